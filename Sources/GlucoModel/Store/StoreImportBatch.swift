import Foundation
import GRDB

/// When a batch of imported files is committed: after `files` files, or once `seconds` have passed
/// since the batch began (checked after each file), whichever comes first.
public struct ImportBatchLimits: Sendable, Hashable {
    public var files: Int
    public var seconds: TimeInterval

    public init(files: Int, seconds: TimeInterval) {
        self.files = max(1, files)
        self.seconds = seconds
    }

    /// 100 files or 2 seconds. A commit costs a few fsyncs (about 10-40 ms here, more on a slow
    /// disk): over 100 small files it is under 1% of the import, and 2 s bound what a kill or a
    /// power cut loses and how long a file's output line waits for its batch's commit.
    public static let standard = ImportBatchLimits(files: 100, seconds: 2)
    /// Every file in a transaction of its own (as before batches).
    public static let eachFile = ImportBatchLimits(files: 1, seconds: 0)
}

/// A file ready to import: where it is, how to read it and with which options.
public struct PreparedImport {
    public var url: URL
    public var importer: any PatientDataImporter
    public var options: ImportOptions
    /// The format the user named for the file (`--format`), or nil: a file whose content is another
    /// format's then fails saying so (`ImportFormats.hintingAtContent`).
    public var namedFormat: String?

    public init(url: URL, importer: any PatientDataImporter, options: ImportOptions, namedFormat: String? = nil) {
        self.url = url
        self.importer = importer
        self.options = options
        self.namedFormat = namedFormat
    }

    /// `url` read by the importer named `format`, or the mapped CSV's when `options` has a column
    /// mapping, or the one its content shows (`ImportFormats`' choice, as every other reader makes it).
    /// - Throws: `InputError` for an unknown format name or a file in none of the known formats.
    public init(url: URL, format: String?, options: ImportOptions) throws {
        self.init(url: url, importer: try ImportFormats.importer(for: url, format: format, options: options),
                  options: options, namedFormat: format)
    }
}

extension PatientStore {
    /// Imports `items` in order, several files per transaction, each file still stored entirely
    /// or not at all.
    ///
    /// A batch is one transaction (`limits`: so many files or seconds); each file goes in within a
    /// savepoint of its own, rolled back when that file fails (its error is its result, the batch
    /// goes on), exactly as `importFile` rolls back its own transaction. Each file sees the files
    /// before it (overlapping records, the same content imported twice), as it would one file at
    /// a time, so the store ends the same. `prepare` turns an item into a file to import (a format
    /// it cannot detect is that file's failure: it throws).
    ///
    /// `committed` receives a batch's results, in order, once the batch is committed (durable):
    /// whatever follows a file's import (printing it, moving the file) waits for that, so a run
    /// killed mid-batch leaves the store as before the batch and reports none of it, and a re-run
    /// imports those files again. Should SQLite lose the batch (its commit fails, or an error rolls
    /// back the whole transaction, as a full disk can), the batch's files are imported again one per
    /// transaction, so each then fails or is stored on its own, as before batches.
    /// - Throws: what `committed` or `afterFile` throws (a batch under way is rolled back), or a
    ///   database error opening the store's connection.
    public func importFiles<Item>(_ items: [Item], limits: ImportBatchLimits = .standard,
                                  prepare: (Item) throws -> PreparedImport,
                                  committed: ([(item: Item, result: Result<StoreImportOutcome, any Error>)]) throws -> Void) throws {
        try importFiles(items, limits: limits, prepare: prepare, afterFile: nil, committed: committed)
    }

    /// `importFiles`, with `afterFile(i)` called inside the batch's transaction after item `i` was
    /// imported (tests throw from it to stop a run mid-batch, as a kill would).
    func importFiles<Item>(_ items: [Item], limits: ImportBatchLimits, prepare: (Item) throws -> PreparedImport,
                           afterFile: ((Int) throws -> Void)?,
                           committed: ([(item: Item, result: Result<StoreImportOutcome, any Error>)]) throws -> Void) throws {
        try Self.bulkConnection(db) { db in
            var next = items.startIndex
            while next < items.endIndex {
                let batch: (results: [Result<StoreImportOutcome, any Error>], end: Int)
                do {
                    batch = try importBatch(items, from: next, limits: limits, prepare: prepare, afterFile: afterFile, db: db)
                } catch let lost as BatchLost {
                    // Again one file per transaction: each file's own outcome, as without batches.
                    var results: [Result<StoreImportOutcome, any Error>] = []
                    for i in next..<lost.end {
                        results += try importBatch(items, from: i, limits: .eachFile, prepare: prepare, afterFile: afterFile, db: db).results
                    }
                    batch = (results, lost.end)
                }
                try committed(zip(items[next..<batch.end], batch.results).map { ($0, $1) })
                next = batch.end
            }
        }
    }

    /// SQLite rolled back (or could not commit) a batch of several files: none of them is stored.
    private struct BatchLost: Error { var end: Int }

    /// What `afterFile` threw: the run stops (the batch is rolled back).
    private struct Stopped: Error { var underlying: any Error }

    /// One batch from `items[start]` on, in one transaction; returns each file's result and where
    /// the batch ended. A batch of one file that SQLite loses has that as the file's result.
    private func importBatch<Item>(_ items: [Item], from start: Int, limits: ImportBatchLimits,
                                   prepare: (Item) throws -> PreparedImport, afterFile: ((Int) throws -> Void)?,
                                   db: Database) throws -> (results: [Result<StoreImportOutcome, any Error>], end: Int) {
        let began = Date()
        var results: [Result<StoreImportOutcome, any Error>] = []
        var end = start
        do {
            try db.inTransaction {
                while end < items.endIndex && results.count < limits.files
                        && (results.isEmpty || Date().timeIntervalSince(began) < limits.seconds) {
                    let result = Result { () throws -> StoreImportOutcome in
                        let file = try prepare(items[end])
                        return try ImportFormats.hintingAtContent(file.url, format: file.namedFormat) {
                            try importOne(file.url, importer: file.importer, options: file.options, db: db)
                        }
                    }
                    // A store SQLite cannot write fails every file alike: the run stops with it.
                    if case let .failure(error) = result, StoreFileError.isReadOnly(error) { throw Stopped(underlying: error) }
                    results.append(result)
                    end += 1
                    // An error SQLite answered by rolling back the whole transaction: the files
                    // before this one are gone too.
                    if case .failure = result, !db.isInsideTransaction { throw BatchLost(end: end) }
                    do { try afterFile?(end - 1) } catch { throw Stopped(underlying: error) }
                }
                return .commit
            }
        } catch let stopped as Stopped {
            throw stopped.underlying
        } catch let lost as BatchLost {
            if results.count > 1 { throw lost }
        } catch {
            // BEGIN or COMMIT failed: nothing of the batch is stored.
            if results.count > 1 { throw BatchLost(end: end) }
            if results.isEmpty {
                // BEGIN failed: the next file fails with that (after its own format's error).
                let item = items[start]
                return ([Result { _ = try prepare(item); throw error }], start + 1)
            }
            if case .success = results[0] { results[0] = .failure(error) }
        }
        return (results, end)
    }
}
