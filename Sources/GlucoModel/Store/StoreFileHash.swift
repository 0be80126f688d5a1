import Foundation

/// A cheap first look at a file's content: its size and the SHA-256 of its first `headBytes` bytes.
///
/// Two files with the same content have the same fingerprint, so a file whose fingerprint matches
/// no earlier import run cannot have been imported before (runs stored before schema v4 have no
/// fingerprint: the full hash, checked at the end of the import, still catches them). Only when a
/// run matches does the import hash the whole file before reading it.
struct FileFingerprint: Equatable {
    static let headBytes = 1 << 20
    var size: Int64
    var headHash: String

    init(of url: URL) throws {
        let handle = try FileOpenError.reading(url)
        defer { try? handle.close() }
        size = Int64(try handle.seekToEnd())
        try handle.seek(toOffset: 0)
        var digest = ContentDigest()
        digest.update(try handle.read(upToCount: Self.headBytes) ?? Data())
        headHash = digest.hexDigest()
    }
}

/// The SHA-256 of a file computed on its own thread while the file is imported, so the import
/// does not wait for a separate pass over the file.
final class BackgroundFileHash: @unchecked Sendable {
    private let condition = NSCondition()
    private var result: Result<String, any Error>?
    private var cancelled = false

    /// Starts hashing `url` (1 MiB reads) on a new thread.
    init(_ url: URL) {
        let thread = Thread { [self] in
            let outcome = Result { try ContentDigest.hexDigest(ofFile: url, continuing: { !self.isCancelled }) }
            condition.lock()
            result = outcome
            condition.broadcast()
            condition.unlock()
        }
        thread.name = "glucomodel-hash"
        thread.start()
    }

    /// A hash computed already (no thread).
    init(known hash: String) { result = .success(hash) }

    private var isCancelled: Bool {
        condition.lock()
        defer { condition.unlock() }
        return cancelled
    }

    /// Stops hashing (the import failed); the thread ends after its current chunk.
    func cancel() {
        condition.lock()
        cancelled = true
        condition.unlock()
    }

    /// The file's SHA-256 (hex), once computed.
    func value() throws -> String {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let result { return try result.get() }
            condition.wait()
        }
    }
}
