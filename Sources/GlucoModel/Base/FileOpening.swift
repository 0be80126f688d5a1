import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file that cannot be opened for reading, for a reason other than its content: no permission,
/// too many files open, a name that is not UTF-8. It is not the file's fault: nightly leaves it in
/// the inbox, and every command names it with the reason (before stop 53 such a file was "missing
/// or not readable", moved to quarantine with healthy files when descriptors ran out, skipped
/// without a word in a folder, or called "in none of the known formats"; hunt P).
public struct FileOpenError: Error, CustomStringConvertible, Equatable {
    public var path: String
    public var reason: String

    /// The reason, without the path (the messages that carry it name the file).
    public var description: String { "cannot open the file: \(reason)" }

    init(_ url: URL, errno code: Int32) {
        path = url.path
        switch code {
        case EACCES, EPERM: reason = "permission denied (the account running this cannot read it)"
        case EMFILE, ENFILE: reason = "too many files open (the limit of open files, ulimit -n, is too low); nothing is wrong with the file"
        case ENOENT where url.lastPathComponent.contains("\u{FFFD}"):
            reason = "its name is not UTF-8 text (a name in another encoding, such as Latin-1 from a Windows share), "
                + "which this toolkit cannot open: rename it"
        case ENOENT: reason = "no such file"
        default: reason = String(cString: strerror(code))
        }
    }

    /// `url` opened for reading.
    /// - Throws: `FileOpenError` with the system's reason.
    public static func reading(_ url: URL) throws -> FileHandle {
        let fd = open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileOpenError(url, errno: errno) }
        return FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    }

    /// Why `url` cannot be opened for reading, or nil when it can (opened without waiting: a named
    /// pipe is not read).
    public static func problem(_ url: URL) -> FileOpenError? {
        let fd = open(url.path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return FileOpenError(url, errno: errno) }
        close(fd)
        return nil
    }
}
