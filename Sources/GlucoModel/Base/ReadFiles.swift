import Foundation

/// The files a command reads (its data files, store, settings file), which nothing it writes may
/// replace: `settings --out` named like its `--data` log replaced the log by a settings file, and
/// `predict --out` over its store replaced the store by the predictions, both exiting 0.
public struct ReadFiles: Sendable, Hashable {
    public struct File: Sendable, Hashable {
        /// What the file is to the command, for the message: "the data file", "the store".
        public var role: String
        public var path: String
        /// A folder whose every file the command takes (an inbox): nothing it writes may be
        /// inside it, nor it inside a folder the command writes.
        public var whole = false
    }

    public private(set) var files: [File] = []

    public init() {}

    /// `paths`, each `role` ("the data file").
    public init(_ paths: [String], role: String) { add(paths, role: role) }

    /// The store at `path` and the files beside it that are the store too: SQLite's write-ahead
    /// log, shared memory and journal (`-wal`, `-shm`, `-journal`: another file written over one
    /// loses the commits not yet in the store file) and its lock (`.lock`, `StoreLock`: replaced,
    /// a second night would run beside the first).
    public init(store path: String) { add(store: path) }

    /// Adds the store at `path` and its companions (`init(store:)`).
    public mutating func add(store path: String) {
        add([path], role: "the store")
        add(["-wal", "-shm", "-journal"].map { path + $0 }, role: "the store's SQLite journal")
        // The lock beside the store's real file, where `StoreLock` takes it, and the one as spelt.
        add([path + ".lock", Self.resolved(path) + ".lock"], role: "the store's lock file")
    }

    public mutating func add(_ paths: [String], role: String) {
        files += paths.map { File(role: role, path: $0) }
    }

    public mutating func add(_ other: ReadFiles) { files += other.files }

    /// `path`, a folder whose every file the command takes (`File.whole`), as `role`.
    public mutating func add(folder path: String, role: String) {
        files.append(File(role: role, path: path, whole: true))
    }

    /// Refuses `output` when it is one of the files, however it is named (`./`, `../`, a
    /// symbolic link, a hard link: the same device and inode; a file not made yet: the same path,
    /// its folder's links resolved, `ReadFiles.resolved`).
    /// - Parameter option: the option naming `output`, for the message ("--out"), if any.
    /// - Throws: `InputError` naming `output`, the file it would replace and its role.
    public func check(output: URL, option: String? = nil) throws {
        let target = Self.identity(output.path), path = target == nil ? Self.resolved(output.path) : ""
        for file in files where target.map({ Self.identity(file.path) == $0 }) ?? (Self.resolved(file.path) == path) {
            // The file's own name when the output is spelt otherwise (`./`, a link).
            throw InputError(SourceLocation(file: output.path),
                             "refusing to write over \(file.role)\(file.path == output.path ? "" : " \(file.path)"), which this command reads"
                             + (option.map { "; give \($0) another name" } ?? ""))
        }
    }

    /// The device and inode `path` names, following symbolic links; nil when nothing is there.
    static func identity(_ path: String) -> [UInt64]? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return [UInt64(info.st_dev), UInt64(info.st_ino)]
    }
}
