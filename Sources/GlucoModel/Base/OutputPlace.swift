import Foundation

/// Where a command writes, checked before it does any work: a run that could not write there, or
/// would write over or into what it reads, stops at once with the path named and writes nothing.
/// Every command's `--out`, `--out-dir` and output folder goes through one of these (README,
/// "Exit codes": what is refused).
extension ReadFiles {
    /// A file the command writes (`--out FILE`, written atomically): refused over a file read
    /// (`check(output:option:)`), where a folder is, in a folder that does not exist, and where
    /// the command may not write (a read-only folder or file).
    /// - Throws: `InputError` naming `output` and what is wrong.
    public func check(outputFile output: URL, option: String? = nil) throws {
        try check(output: output, option: option)
        let path = output.path
        if Self.kind(path) == .folder {
            throw Self.refusal(path, "is a folder" + (option.map { "; give \($0) a file name" } ?? ""))
        }
        let folder = output.deletingLastPathComponent().path
        switch Self.kind(folder) {
        case nil: throw Self.refusal(path, "the folder \(folder) does not exist")
        case .file?: throw Self.refusal(path, "\(folder) is a file, not a folder")
        case .folder?: break
        }
        if access(folder, W_OK | X_OK) != 0 { throw Self.refusal(path, "cannot write in \(folder): \(Self.reason())") }
        if Self.kind(path) != nil, access(path, W_OK) != 0 { throw Self.refusal(path, "the file is read-only: \(Self.reason())") }
    }

    /// A folder the command writes into (made with its parents when missing), and `names`, the
    /// files and folders the command writes directly in it. Refused when it is a file; when it
    /// cannot be made or written; when it or one of `names` is a file or folder read; and when
    /// one of `names` (the folder itself, without any) is inside a folder the command reads whole
    /// (`add(folder:role:)`, an inbox) or holds one.
    /// - Throws: `InputError` naming the path and what is wrong.
    public func check(outputFolder output: URL, writing names: [String] = [], option: String? = nil) throws {
        let places = names.isEmpty ? [output] : names.map { output.appendingPathComponent($0) }
        for file in files where file.whole {
            let read = Self.resolved(file.path)
            for place in places {
                let written = Self.resolved(place.path)
                let advice = option.map { "; give \($0) a folder outside it" } ?? ""
                if Self.isInside(written, read) {
                    throw Self.refusal(place.path, "refusing to write inside \(file.role) \(file.path), every file of which this command reads" + advice)
                }
                if Self.isInside(read, written) {
                    throw Self.refusal(place.path, "refusing to write in a folder holding \(file.role) \(file.path), every file of which this command reads" + advice)
                }
            }
        }
        try check(output: output, option: option)
        for name in names { try check(output: output.appendingPathComponent(name), option: option) }
        // The folder, or the nearest of its parents that exists: the one the command writes in.
        // A relative path (Foundation leaves one relative under a working folder deeper than about
        // 1 KB) ends in "": the working folder. It spun for ever there (hunt P, stop 53).
        var existing = output.path
        while Self.kind(existing) == nil, existing != "/" {
            let parent = (existing as NSString).deletingLastPathComponent
            existing = parent.isEmpty || parent == existing ? "." : parent
        }
        if Self.kind(existing) == .file {
            throw Self.refusal(output.path, existing == output.path
                               ? "is a file, not a folder" + (option.map { "; give \($0) a folder" } ?? "")
                               : "\(existing) is a file, not a folder")
        }
        if access(existing, W_OK | X_OK) != 0 { throw Self.refusal(output.path, "cannot write in \(existing): \(Self.reason())") }
    }

    enum Kind { case file, folder }

    /// What is at `path` (following symbolic links); nil when nothing is there.
    static func kind(_ path: String) -> Kind? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return (info.st_mode & S_IFMT) == S_IFDIR ? .folder : .file
    }

    /// `path` absolute, its symbolic links resolved and `.`/`..` removed; the part that does not
    /// exist yet is appended to its nearest existing folder, resolved.
    static func resolved(_ path: String) -> String {
        var head = URL(fileURLWithPath: path).path
        var rest: [String] = []
        while true {
            if let real = realpath(head, nil) {
                defer { free(real) }
                var parts = String(cString: real).split(separator: "/").map(String.init)
                for part in rest {
                    if part == ".." { _ = parts.popLast() } else if part != "." && !part.isEmpty { parts.append(part) }
                }
                return "/" + parts.joined(separator: "/")
            }
            guard head != "/", !head.isEmpty else { return URL(fileURLWithPath: path).standardizedFileURL.path }
            rest.insert((head as NSString).lastPathComponent, at: 0)
            head = (head as NSString).deletingLastPathComponent
        }
    }

    /// Whether resolved path `inner` is `outer` or inside it.
    static func isInside(_ inner: String, _ outer: String) -> Bool {
        inner == outer || inner.hasPrefix(outer == "/" ? "/" : outer + "/")
    }

    static func refusal(_ path: String, _ message: String) -> InputError {
        InputError(SourceLocation(file: path), message)
    }

    static func reason() -> String { String(cString: strerror(errno)) }
}
