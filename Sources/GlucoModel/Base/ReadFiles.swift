import Foundation

/// The files a command reads (its data files, store, settings file), which nothing it writes may
/// replace: `settings --out` named like its `--data` log replaced the log by a settings file, and
/// `predict --out` over its store replaced the store by the predictions, both exiting 0.
public struct ReadFiles: Sendable, Hashable {
    public struct File: Sendable, Hashable {
        /// What the file is to the command, for the message: "the data file", "the store".
        public var role: String
        public var path: String
    }

    public private(set) var files: [File] = []

    public init() {}

    /// `paths`, each `role` ("the data file").
    public init(_ paths: [String], role: String) { add(paths, role: role) }

    public mutating func add(_ paths: [String], role: String) {
        files += paths.map { File(role: role, path: $0) }
    }

    public mutating func add(_ other: ReadFiles) { files += other.files }

    /// Refuses `output` when it is one of the files, however it is named (`./`, `../`, a
    /// symbolic link, a hard link: the same device and inode). A file that does not exist yet
    /// replaces nothing.
    /// - Parameter option: the option naming `output`, for the message ("--out"), if any.
    /// - Throws: `InputError` naming `output`, the file it would replace and its role.
    public func check(output: URL, option: String? = nil) throws {
        guard let target = Self.identity(output.path) else { return }
        for file in files where Self.identity(file.path) == target {
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
