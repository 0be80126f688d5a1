import Foundation

/// Where inbox files that cannot be imported go, so they fail once instead of every night.
enum Quarantine {
    /// Moves `file` into `folder` (created if needed) as `<name>` (or `<name>.1`, `<name>.2`, ...
    /// when taken), after writing `<that name>.reason.txt` with `reason` and the time.
    /// - Returns: the file's new location.
    static func move(_ file: URL, into folder: URL, reason: String, now: Date = Date()) throws -> URL {
        let fm = FileManager.default
        try fm.createDirectory(at: folder, withIntermediateDirectories: true)
        var target = folder.appendingPathComponent(file.lastPathComponent)
        var n = 0
        while fm.fileExists(atPath: target.path) || fm.fileExists(atPath: target.path + ".reason.txt") {
            n += 1
            target = folder.appendingPathComponent("\(file.lastPathComponent).\(n)")
        }
        let text = "\(file.path)\nquarantined \(now.iso8601)\n\(reason)\n"
        try AtomicTextFile.write(Data(text.utf8), to: URL(fileURLWithPath: target.path + ".reason.txt"))
        try fm.moveItem(at: file, to: target)
        return target
    }
}
