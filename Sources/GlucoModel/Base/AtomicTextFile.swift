import Foundation

/// Writes text to a file atomically: into a temporary file beside it, renamed over it at `commit()`.
/// Buffered, so a million short lines are a few large writes.
public final class AtomicTextFile {
    public let url: URL
    let temporary: URL
    let handle: FileHandle
    var buffer: [UInt8] = []
    /// The first write that failed (a full disk, a file-size limit): later lines are dropped, and
    /// `commit()` throws it with the temporary file removed. Until stop 51 the write trapped
    /// (Foundation's non-throwing `FileHandle.write`): exit 132 and a backtrace, the `.tmp` left.
    var failure: String?

    /// - Parameter temporary: the file written until `commit()` (default: a hidden name with the
    ///   process id beside `url`).
    public init(url: URL, temporary: URL? = nil) throws {
        self.url = url
        self.temporary = temporary ?? url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(ProcessInfo.processInfo.processIdentifier).tmp")
        // open(2) itself, not `FileManager.createFile`: that writes the empty file atomically through
        // a `.dat.nosync*` file of its own, which a process killed at that moment leaves behind.
        let descriptor = open(self.temporary.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else {
            throw InputError(SourceLocation(file: url.path),
                             "cannot create a file in \(url.deletingLastPathComponent().path): \(String(cString: strerror(errno)))")
        }
        handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        buffer.reserveCapacity(1 << 20)
    }

    public func writeLine(_ line: String) {
        buffer.append(contentsOf: line.utf8)
        buffer.append(UInt8(ascii: "\n"))
        if buffer.count >= 1 << 20 { flush() }
    }

    func flush() {
        if failure == nil {
            do { try handle.write(contentsOf: buffer) } catch {
                failure = (error as NSError).localizedDescription
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Flushes, closes and renames the temporary file over `url`; on a write that failed, removes the
    /// temporary file and throws, leaving `url` as it was.
    public func commit() throws {
        flush()
        if let failure {
            discard()
            throw InputError(SourceLocation(file: url.path), "cannot write the file (\(failure)); the earlier file, if any, is left as it was")
        }
        try handle.close()
        // rename(2) replaces an existing file atomically (same directory, same file system).
        guard rename(temporary.path, url.path) == 0 else {
            let reason = String(cString: strerror(errno))
            discard()
            throw InputError(SourceLocation(file: url.path), "cannot write the file: \(reason)")
        }
    }

    /// Closes and deletes the temporary file (on error).
    public func discard() {
        try? handle.close()
        try? FileManager.default.removeItem(at: temporary)
    }
}
