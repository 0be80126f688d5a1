import Foundation

/// Writes text to a file atomically: into a temporary file beside it, renamed over it at `commit()`.
/// Buffered, so a million short lines are a few large writes.
public final class AtomicTextFile {
    public let url: URL
    let temporary: URL
    let handle: FileHandle
    var buffer: [UInt8] = []

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
        handle.write(Data(buffer))
        buffer.removeAll(keepingCapacity: true)
    }

    /// Flushes, closes and renames the temporary file over `url`.
    public func commit() throws {
        flush()
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
