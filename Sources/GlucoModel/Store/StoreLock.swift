import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive, non-blocking `flock(2)` on `<store>.lock`, so two runs never write at once.
/// The lock is released by `release()`, on deinit, or by the system when the process ends
/// (even when it is killed), so a crashed run never leaves a stale lock behind.
public final class StoreLock {
    public enum LockError: Error, CustomStringConvertible, Equatable {
        case busy(String)
        case cannotOpen(String, String)

        public var description: String {
            switch self {
            case let .busy(path): return "\(path) is locked: another run is using this store; try again when it has finished"
            case let .cannotOpen(path, why): return "cannot open the lock file \(path): \(why)"
            }
        }
    }

    public let path: String
    private var descriptor: Int32

    /// Takes the lock for the store at `storePath`, however the path is spelt: the lock file is
    /// beside the store's real file (`resolved(_:)`), so a run naming the store through a symbolic
    /// link (`current.sqlite -> cohort.sqlite`) and one naming the file lock the same
    /// `cohort.sqlite.lock`. Until stop 52 each locked its own spelling, and both wrote at once.
    /// - Throws: `LockError.busy` when another process (or another `StoreLock` here) holds it.
    public init(storePath: String) throws {
        path = Self.resolved(storePath) + ".lock"
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw LockError.cannotOpen(path, String(cString: strerror(errno))) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let busy = errno == EWOULDBLOCK
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw busy ? LockError.busy(path) : LockError.cannotOpen(path, reason)
        }
    }

    /// `path` with every symbolic link and `.`/`..` resolved (`realpath(3)`); for a store not made
    /// yet, its folder's real path and its name; `path` itself when neither resolves.
    static func resolved(_ path: String, links: Int = 0) -> String {
        if let real = realpath(path, nil) { defer { free(real) }; return String(cString: real) }
        // A link to a store not made yet: its target's lock (review, stop 52).
        if links < 8, let target = try? FileManager.default.destinationOfSymbolicLink(atPath: path) {
            let absolute = target.hasPrefix("/") ? target : URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent(target).path
            return resolved(absolute, links: links + 1)
        }
        let url = URL(fileURLWithPath: path)
        guard let folder = realpath(url.deletingLastPathComponent().path, nil) else { return path }
        defer { free(folder) }
        return URL(fileURLWithPath: String(cString: folder)).appendingPathComponent(url.lastPathComponent).path
    }

    public func release() {
        guard descriptor >= 0 else { return }
        flock(descriptor, LOCK_UN)
        close(descriptor)
        descriptor = -1
    }

    deinit { release() }
}
