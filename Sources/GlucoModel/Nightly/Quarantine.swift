import Foundation

/// Where inbox files that cannot be imported go, so they fail once instead of every night.
enum Quarantine {
    /// Moves `file` into `folder` (created if needed) as `<name>` (or `<name>.1`, `<name>.2`, ...
    /// when taken), after writing `<that name>.reason.txt` with `reason` and the time. When the file
    /// cannot be moved (an inbox the run may not change, a file it may not read), nothing is left
    /// in the quarantine: a copy (and a reason file) was left there every night (hunt P, stop 53).
    /// - Returns: the file's new location.
    /// - Throws: the reason the file could not be moved.
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
        let reasonFile = URL(fileURLWithPath: target.path + ".reason.txt")
        try AtomicTextFile.write(Data(text.utf8), to: reasonFile)
        do {
            try fm.moveItem(at: file, to: target)
        } catch {
            // Across file systems a move is a copy and a delete: a copy whose original stays is undone.
            if fm.fileExists(atPath: file.path) { try? fm.removeItem(at: target) }
            try? fm.removeItem(at: reasonFile)
            throw error
        }
        return target
    }
}
