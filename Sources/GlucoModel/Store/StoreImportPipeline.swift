import Foundation

/// The hand-over between the thread that parses a file and the one that writes it into the store:
/// a FIFO of at most `capacity` record batches (so memory stays bounded whatever the file's size),
/// then the importer's result. Batches are taken in the order they were given, so the stored
/// result never depends on timing.
final class BatchPipe: RecordSink, @unchecked Sendable {
    private let condition = NSCondition()
    private var batches: [RecordBatch] = []
    private var head = 0
    private var result: Result<ImportResult, any Error>?
    private var cancelled = false
    private(set) var closedByBuilder = false
    let capacity: Int

    init(capacity: Int = 4) { self.capacity = capacity }

    /// Called by the builder on the parsing thread: waits while the pipe is full.
    func receive(_ batch: RecordBatch) {
        condition.lock()
        defer { condition.unlock() }
        while batches.count - head >= capacity && !cancelled { condition.wait() }
        guard !cancelled else { return }
        batches.append(batch)
        condition.broadcast()
    }

    func close() {
        condition.lock()
        closedByBuilder = true
        condition.unlock()
    }

    /// The parsing thread's end: the importer's result or error.
    func finish(_ outcome: Result<ImportResult, any Error>) {
        condition.lock()
        result = outcome
        condition.broadcast()
        condition.unlock()
    }

    /// The next batch, or nil once the importer has finished and every batch was taken (writing thread).
    func next() -> RecordBatch? {
        condition.lock()
        defer { condition.unlock() }
        while head == batches.count && result == nil { condition.wait() }
        guard head < batches.count else { return nil }
        let batch = batches[head]
        batches[head] = RecordBatch()
        head += 1
        if head > 64 { batches.removeFirst(head); head = 0 }
        condition.broadcast()
        return batch
    }

    /// Stops accepting batches (the writer failed) and waits for the importer to end.
    func cancel() {
        condition.lock()
        cancelled = true
        batches.removeAll()
        head = 0
        condition.broadcast()
        condition.unlock()
    }

    /// The importer's outcome, once it has finished.
    func outcome() -> Result<ImportResult, any Error> {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let result { return result }
            condition.wait()
        }
    }

    /// Runs `importer` on a new thread (16 MiB stack, as a main thread's recursion would have) with
    /// `options` sending its records here.
    func start(_ importer: some PatientDataImporter, url: URL, options: ImportOptions) {
        var spilling = options
        spilling.recordSink = self
        let thread = Thread { [self, spilling] in
            let outcome = Result { try importer.importFile(at: url, options: spilling) }
            finish(outcome)
        }
        thread.stackSize = 16 << 20
        thread.name = "glucomodel-import"
        thread.start()
    }
}
