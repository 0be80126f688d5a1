import ArgumentParser
import Foundation
import GlucoModel
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why the working folder cannot be worked in, if its path is too long for Foundation to resolve
/// paths relative to it (about 1 KB: an output folder named relatively spun for ever in the check
/// of where it goes, and an XML file named relatively crashed its parser; hunt P, stop 53).
public func deepWorkingFolder(limit: Int = 1000) -> String? {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    // Longer than PATH_MAX, getcwd fails (ERANGE): the deepest folders of all.
    let length = getcwd(&buffer, buffer.count) != nil ? strlen(buffer) : (errno == ERANGE ? Int(PATH_MAX) + 1 : 0)
    guard length > limit else { return nil }
    return "the working folder's path is \(length > Int(PATH_MAX) ? "more than \(PATH_MAX)" : "\(length)") bytes long, more than the "
        + "\(limit) Foundation resolves relative paths under: run from a folder with a shorter path"
}

/// The least address space (`ulimit -v`, RLIMIT_AS) the commands run in: OpenBLAS takes a 128 MB work
/// buffer at its first least-squares call and, refused it, retries for ever. With
/// `OPENBLAS_NUM_THREADS=1` (docs/deploy.md) train spun at 300 MB and the settings check at 320
/// (hunt AG, stop 57: a night hung holding the store's lock, every later night refused).
public let minimumAddressSpace: UInt64 = 512 << 20

/// Why the commands cannot run under an address-space limit of `limit` bytes (nil: unlimited or enough).
public func addressSpaceProblem(limit: UInt64?) -> String? {
    guard let limit, limit < minimumAddressSpace else { return nil }
    return "the address-space limit (ulimit -v) is \(limit >> 20) MB, under the \(minimumAddressSpace >> 20) MB the toolkit needs: "
        + "OpenBLAS's 128 MB work buffer would be refused, and it retries for ever; raise the limit (docs/deploy.md)"
}

/// This process's address-space limit in bytes, nil when unlimited.
func addressSpaceLimit() -> UInt64? {
    var limit = rlimit()
    #if canImport(Glibc)
    let resource = __rlimit_resource_t(RLIMIT_AS.rawValue)
    #else
    let resource = RLIMIT_AS
    #endif
    guard getrlimit(resource, &limit) == 0, limit.rlim_cur != rlim_t.max else { return nil }
    return UInt64(limit.rlim_cur)
}

/// Why the process cannot start `count` threads at once (nil: it can): under a limit on processes
/// or threads, the import's parse thread never started and libdispatch retried for ever, so
/// `import-data`, `nightly`, `predict`, `dose` and `report` waited without a word, the writers holding
/// the store's lock (hunt AG, stop 57: `ulimit -u` 1 or 2). Each thread waits on a pipe until all are
/// started, then ends.
public func threadProblem(count: Int = 4) -> String? {
    var fds: [Int32] = [0, 0]
    guard pipe(&fds) == 0 else { return nil }
    // The read end's number on the heap: it may be 0 (standard input closed), which as the pointer
    // itself would be nil (the review of stop 57).
    let reader = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
    reader.initialize(to: fds[0])
    var threads: [pthread_t] = []
    var failed: Int32 = 0
    for _ in 0..<count {
        #if canImport(Glibc)
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { arg in
            var byte: UInt8 = 0
            _ = read(arg!.load(as: Int32.self), &byte, 1)
            return nil
        }, reader)
        if result == 0 { threads.append(thread) }
        #else
        var thread: pthread_t?
        let result = pthread_create(&thread, nil, { arg in
            var byte: UInt8 = 0
            _ = read(arg.load(as: Int32.self), &byte, 1)
            return nil
        }, reader)
        if result == 0, let thread { threads.append(thread) }
        #endif
        if result != 0 { failed = result; break }
    }
    close(fds[1])
    for thread in threads { pthread_join(thread, nil) }
    close(fds[0])
    reader.deallocate()
    guard failed != 0 else { return nil }
    return "cannot start \(count) threads (\(String(cString: strerror(failed)))): a limit on processes or threads (ulimit -u, "
        + "a container's pids limit, systemd's TasksMax) leaves the toolkit too few, and it would wait for ever; raise the limit"
}

extension ParsableCommand {
    /// `main()` as ArgumentParser runs it, but the message of an error it prints (a
    /// `ValidationError` quoting a grammar's rule name, a config file's value) has the control
    /// characters that came from files escaped, as `Console.write` escapes every other message:
    /// a rule name holding ESC turned the terminal red (hunt K, stop 52). Help and version text go
    /// to standard output as they are.
    ///
    /// A file-size limit (`ulimit -f`) makes a write fail with its error, named by the writer, not
    /// kill the process (SIGXFSZ, exit 153, no word, a temporary file left); standard output that
    /// could not be written fails the command (`StandardOutputError`). A pipe whose reader is gone
    /// (`| head`) stops the command the same way, then exits 141 in silence, as SIGPIPE would: SIGPIPE
    /// itself killed the process wherever it wrote, standard error included (a log pipe gone, between
    /// a nightly's quarantine move and its summary; hunt AG, stop 57).
    /// Messages on standard error that cannot be written are lost, the command goes on (`Console`).
    public static func mainEscapingMessages(_ arguments: [String]? = nil) {
        signal(SIGXFSZ, SIG_IGN)
        signal(SIGPIPE, SIG_IGN)
        if let small = addressSpaceProblem(limit: addressSpaceLimit()) {
            Console.standardError("Error: \(small)\n")
            Foundation.exit(ExitCode.failure.rawValue)
        }
        if let few = threadProblem() {
            Console.standardError("Error: \(few)\n")
            Foundation.exit(ExitCode.failure.rawValue)
        }
        if let deep = deepWorkingFolder() {
            Console.standardError("Error: \(deep)\n")
            Foundation.exit(ExitCode.validationFailure.rawValue)
        }
        do {
            var command = try parseAsRoot(arguments)
            try command.run()
            if let failed = StandardOutputError.check() { throw failed }
        } catch {
            if (error as? StandardOutputError)?.readerGone == true {
                Foundation.exit(StandardOutputError.readerGoneStatus)
            }
            // The command's own error comes first when the reader has gone too (a bad file named).
            if !(error is StandardOutputError), let failed = StandardOutputError.check(), !failed.readerGone,
               exitCode(for: error) != .failure {
                Console.standardError("Error: \(failed)\n")
                Foundation.exit(ExitCode.failure.rawValue)
            }
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if code == .success {
                if !message.isEmpty { print(message) }
            } else if !message.isEmpty {
                Console.standardError(TerminalText.escaped(message, keepingLines: true) + "\n")
            }
            Foundation.exit(code.rawValue)
        }
    }
}
