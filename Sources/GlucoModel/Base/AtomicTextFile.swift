import Foundation
import GrammarEvolution

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
    /// - Parameter removingLeftovers: remove the temporary files of this name that ended processes
    ///   left beside `url` (`LeftoverFiles.remove(besides:)`).
    ///
    /// A symbolic link is followed: the file it points to is replaced, the link kept. A stream
    /// (`--out /dev/stdout`, a named pipe) is written in place. Until stop 52 both were replaced
    /// by a regular file (as root, `/dev/stdout` itself), and nothing reached the reader.
    public init(url: URL, temporary: URL? = nil, removingLeftovers: Bool = true) throws {
        var target = url
        var info = stat()
        // One of this process's own descriptors (`/dev/stdout`, `/dev/fd/1`, `/proc/self/fd/1`):
        // written through a copy of it, so `--out /dev/stdout >> log` appends to the log, as the
        // shell opened it (following the link to the file replaced it; review, stop 52).
        if let inherited = Self.inheritedDescriptor(url.path) {
            let descriptor = dup(inherited)
            guard descriptor >= 0 else {
                throw InputError(SourceLocation(file: url.path), "cannot write the file: \(String(cString: strerror(errno)))")
            }
            self.url = url
            self.temporary = url
            inPlace = true
            handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
            buffer.reserveCapacity(1 << 20)
            return
        }
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
        if !inPlace, temporary == nil, removingLeftovers { LeftoverFiles.remove(besides: target) }
    }

    /// Writes `data` to `url` atomically (`AtomicTextFile`: a temporary file with the process id,
    /// renamed over it; a link's file replaced, a stream written in place). For whole files
    /// (reports, models, tables): Foundation's `.atomic` write leaves a `.dat.nosync*` file when
    /// the process is killed at that moment, which nothing removes (hunt J, stop 52).
    /// The descriptor of this process that `path` names: `/dev/stdin`, `/dev/stdout`, `/dev/stderr`,
    /// `/dev/fd/N`, `/proc/self/fd/N`; nil for any other path.
    static func inheritedDescriptor(_ path: String) -> Int32? {
        switch path {
        case "/dev/stdin": return 0
        case "/dev/stdout": return 1
        case "/dev/stderr": return 2
        default:
            for prefix in ["/dev/fd/", "/proc/self/fd/"] where path.hasPrefix(prefix) {
                return Int32(path.dropFirst(prefix.count))
            }
            return nil
        }
    }

    /// Leftovers are not looked for here (a trainer writes thousands of files in one folder): the
    /// command removes those of its folders once (`LeftoverFiles.removeAll(in:)`).
    public static func write(_ data: Data, to url: URL) throws {
        let file = try AtomicTextFile(url: url, removingLeftovers: false)
        file.buffer.append(contentsOf: data)
        try file.commit()
    }

    public func writeLine(_ line: String) {
        buffer.append(contentsOf: line.utf8)
        buffer.append(UInt8(ascii: "\n"))
        if buffer.count >= 1 << 20 { flush() }
    }

    func flush() {
        if failure == nil {
            do { try handle.write(contentsOf: buffer) } catch {
                failure = SystemErrorText.reason(error)
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

/// Temporary files of processes that no longer run: a write killed before its rename leaves
/// `.<name>.<pid>.tmp` beside its file (five interrupted `predict --out` runs left 66 MB).
public enum LeftoverFiles {
    /// Removes `.<name>.<pid>.tmp` beside `url` (its own temporary files, `AtomicTextFile`'s
    /// names) whose process has ended. A running process's file is left: two runs may write beside
    /// each other.
    public static func remove(besides url: URL) {
        let prefix = "." + url.lastPathComponent + "."
        remove(in: url.deletingLastPathComponent()) { $0.hasPrefix(prefix) && Int32($0.dropFirst(prefix.count).dropLast(4)) != nil }
    }

    /// Removes, in `folder` and the folders in it (one level), every `.<name>.<pid>.tmp` whose
    /// process has ended: a command's start, for the files it writes there.
    public static func removeAll(in folder: URL) {
        let fm = FileManager.default
        var folders = [folder]
        for name in (try? fm.contentsOfDirectory(atPath: folder.path)) ?? [] {
            var isFolder: ObjCBool = false
            if fm.fileExists(atPath: folder.appendingPathComponent(name).path, isDirectory: &isFolder), isFolder.boolValue {
                folders.append(folder.appendingPathComponent(name))
            }
        }
        for dir in folders { remove(in: dir) }
    }

    /// Removes the files of `dir` named `.<name>.<pid><suffix>` (and passing `matching`) whose process
    /// has ended (`isLeftover`); with `unnumbered`, also those with no process id (an older build's).
    /// The one rule of `remove(besides:)`, `removeAll(in:)` and nightly's `.partial` files.
    public static func remove(in dir: URL, suffix: String = ".tmp", unnumbered: Bool = false,
                              matching: (String) -> Bool = { $0.hasPrefix(".") }) {
        let fm = FileManager.default
        for name in (try? fm.contentsOfDirectory(atPath: dir.path)) ?? [] where name.hasSuffix(suffix) && matching(name) {
            let parts = name.dropLast(suffix.count).split(separator: ".")
            let file = dir.appendingPathComponent(name)
            if parts.count >= 2, let process = Int32(parts[parts.count - 1]) {
                guard isLeftover(file, process: process) else { continue }
            } else if !unnumbered {
                continue
            }
            try? fm.removeItem(at: file)
        }
    }

    /// How long a temporary file of an ended process is left alone (s): the process id is this
    /// machine's, and a folder may be shared by runs on other machines (the tasks of a job array
    /// on a cluster's nodes), whose files being written are newer than this.
    public static let quietSeconds: TimeInterval = 600

    /// Whether `file`, the temporary file of process `process`, is a leftover: its process has
    /// ended here and the file has not been written for `quietSeconds`.
    public static func isLeftover(_ file: URL, process: Int32) -> Bool {
        guard !isRunning(process) else { return false }
        guard let modified = try? file.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate else { return false }
        return Date().timeIntervalSince(modified) >= quietSeconds
    }

    /// Whether process `pid` runs (`kill(pid, 0)`: no such process is ESRCH).
    public static func isRunning(_ pid: Int32) -> Bool {
        pid > 0 && (kill(pid, 0) == 0 || errno != ESRCH)
    }
}
