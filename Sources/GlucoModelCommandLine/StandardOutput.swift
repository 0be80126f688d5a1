import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Standard output that could not be written (a full disk under `> file`, `/dev/full`): the output
/// is incomplete, and the command says so and fails, where `print` and `FileHandle` failed in
/// silence (a 0-byte `dose --format json` file, exit 0) or trapped (`predict > /dev/full`, exit 132;
/// hunt P, stop 53).
///
/// A reader that has gone (`predict | head`) is not a failure to report: the command stops as it
/// would for any error (a store's transaction rolled back or already committed), then exits in
/// silence with 141, the status SIGPIPE gives, as `cat` and `grep` do (`readerGone`).
public struct StandardOutputError: Error, CustomStringConvertible {
    public var reason: String
    /// The system's error number (EPIPE: the pipe's reader has gone).
    public var code: Int32 = 0
    /// The pipe's reader has gone (EPIPE).
    public var readerGone: Bool { code == EPIPE }
    /// The status a process killed by SIGPIPE ends with, as the shell reports it.
    public static let readerGoneStatus: Int32 = 128 + SIGPIPE
    public var description: String { "standard output could not be written (\(reason)): the output is incomplete" }

    /// Flushes what `print` holds (every C stream: Swift 6 does not let `stdout` itself be named);
    /// the error if that failed.
    public static func check() -> StandardOutputError? {
        guard fflush(nil) != 0 else { return nil }
        let code = errno
        return StandardOutputError(reason: String(cString: strerror(code)), code: code)
    }

    /// Writes `bytes` to standard output's descriptor whole, or throws with the system's reason.
    public static func writeAll(_ bytes: [UInt8]) throws { try writeAll(bytes, to: STDOUT_FILENO) }

    /// Writes `bytes` to descriptor `fd` whole, or throws with the system's reason.
    static func writeAll(_ bytes: [UInt8], to fd: Int32) throws {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 {
                let code = errno
                if code == EINTR { continue }
                throw StandardOutputError(reason: String(cString: strerror(code)), code: code)
            }
            done += n
        }
    }
}
