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

    /// Set when `url` is no regular file but a stream (`/dev/stdout`, a named pipe, a terminal):
    /// written in place, as nothing can be renamed over it.
    let inPlace: Bool

    /// - Parameter temporary: the file written until `commit()` (default: a hidden name with the
    ///   process id beside `url`).
    ///
    /// A symbolic link is followed: the file it points to is replaced, the link kept. A stream
    /// (`--out /dev/stdout`, a named pipe) is written in place. Until stop 52 both were replaced
    /// by a regular file (as root, `/dev/stdout` itself), and nothing reached the reader.
    public init(url: URL, temporary: URL? = nil) throws {
        var target = url
        var info = stat()
        if stat(url.path, &info) == 0, (info.st_mode & S_IFMT) != S_IFREG {
            inPlace = (info.st_mode & S_IFMT) != S_IFDIR
        } else {
            inPlace = false
            var link = stat()
            if lstat(url.path, &link) == 0, (link.st_mode & S_IFMT) == S_IFLNK, let real = realpath(url.path, nil) {
                target = URL(fileURLWithPath: String(cString: real))
                free(real)
            }
        }
        self.url = target
        self.temporary = inPlace ? target : temporary ?? target.deletingLastPathComponent()
            .appendingPathComponent(".\(target.lastPathComponent).\(ProcessInfo.processInfo.processIdentifier).tmp")
        // open(2) itself, not `FileManager.createFile`: that writes the empty file atomically through
        // a `.dat.nosync*` file of its own, which a process killed at that moment leaves behind.
        let descriptor = inPlace ? open(target.path, O_WRONLY) : open(self.temporary.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
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
        if inPlace { return }
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
        if !inPlace { try? FileManager.default.removeItem(at: temporary) }
    }
}
