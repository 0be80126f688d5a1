import Foundation

/// Reads training data from files and folders.
public enum CohortLoader {
    /// Why a data file named that is a pipe, device or socket is refused (it would be waited on for ever).
    public static let notRegularFile = "not a regular file (a pipe, device or socket); give a data file"

    /// File extensions looked at inside folders.
    public static let dataExtensions: Set<String> = ["xml", "csv", "json"]

    /// Files named directly, and the data files found (recursively) in folders, sorted.
    /// Inside folders, only files some importer recognises are taken when `onlyRecognised`
    /// (a data folder may also hold settings or notes); a file named directly is always taken,
    /// so a bad one is an error. An inbox passes `false`, so that a file nobody can read is reported.
    /// With a column mapping in `options`, the files taken from folders are the ones whose header
    /// has the mapped columns (`ImportFormats.isReadable`).
    public static func files(_ paths: [String], onlyRecognised: Bool = true, options: ImportOptions = ImportOptions()) throws -> [URL] {
        var out: [URL] = []
        for path in paths {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
                throw InputError(SourceLocation(file: path), "no such file or folder")
            }
            if isDir.boolValue {
                // A folder named that cannot be listed said "no data file in this folder" (hunt U).
                if let problem = FileOpenError.problem(URL(fileURLWithPath: path)) {
                    throw InputError(SourceLocation(file: path), "cannot list the folder: \(problem.reason)")
                }
                // A file that cannot be opened (no permission, a name not UTF-8) is kept: reading it
                // names it with the reason, where leaving it out lost a patient without a word.
                out += candidates(inFolder: path).filter {
                    !onlyRecognised || ImportFormats.isReadable($0, options: options) || FileOpenError.problem($0) != nil
                }
            } else {
                guard isRegularFile(path) else {
                    throw InputError(SourceLocation(file: path), notRegularFile)
                }
                out.append(URL(fileURLWithPath: path))
            }
        }
        return out.sorted { $0.path < $1.path }
    }

    /// The regular files with a data extension (`dataExtensions`) in `path` and its subfolders.
    static func candidates(inFolder path: String) -> [URL] {
        // Resolved first: the enumerator does not descend into a folder named through a symbolic link.
        let folder = URL(fileURLWithPath: path).resolvingSymlinksInPath()
        // A subfolder the listing cannot read (a patient's folder of another owner) is kept, to be
        // named "permission denied" when read, not passed over (hunt U, stop 53); but a file
        // system's own lost+found, which only its owner reads, is no data.
        var unreadable: [URL] = []
        let e = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil, options: [], errorHandler: { url, _ in
            if url.lastPathComponent != "lost+found", url.standardizedFileURL != folder.standardizedFileURL { unreadable.append(url) }
            return true
        })
        var out: [URL] = []
        while let url = e?.nextObject() as? URL {
            // Named pipes, devices and sockets would block or never end: never opened. A name that is
            // not UTF-8 (a file's, or a folder's the listing cannot enter) reaches here with U+FFFD in
            // its place, which names nothing: it is kept, to be named as a file that cannot be opened
            // (`FileOpenError`), not lost.
            let unnamable = url.lastPathComponent.contains("\u{FFFD}") && !FileManager.default.fileExists(atPath: url.path)
            if unnamable || dataExtensions.contains(url.pathExtension.lowercased()) && isRegularFile(url.path) { out.append(url) }
        }
        return out + unreadable.filter { FileOpenError.problem($0) != nil && !out.contains($0) }
    }

    /// The files with a data extension in the folders of `paths` that `files(_:)` leaves out because
    /// no importer recognises them: an export of a format or a language GlucoModel does not read, an
    /// empty or cut-short file. A command names them, so that no patient goes missing without a word.
    /// Not counted: GlucoModel's settings files (a JSON object with `carbRatio`, docs/dosing.md) and
    /// the files under `excluding` (an output folder inside the data folder). Sorted.
    public static func unrecognised(_ paths: [String], options: ImportOptions = ImportOptions(), excluding: URL? = nil) -> [URL] {
        let skip = excluding.map { $0.resolvingSymlinksInPath().standardizedFileURL.path + "/" }
        var out: [URL] = []
        for path in paths {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir), isDir.boolValue else { continue }
            for url in candidates(inFolder: path) where !ImportFormats.isReadable(url, options: options) && FileOpenError.problem(url) == nil
                && !isSettingsFile(url) {
                if let skip, url.standardizedFileURL.path.hasPrefix(skip) { continue }
                out.append(url)
            }
        }
        return out.sorted { $0.path < $1.path }
    }

    /// Whether `url` begins like a settings file (`docs/dosing.md`): a JSON object with a
    /// `carbRatio` key in its first `ImportFormats.headBytes`.
    static func isSettingsFile(_ url: URL) -> Bool {
        guard url.pathExtension.lowercased() == "json", let handle = try? FileHandle(forReadingFrom: url) else { return false }
        defer { try? handle.close() }
        let head = String(decoding: (try? handle.read(upToCount: ImportFormats.headBytes)) ?? Data(), as: UTF8.self)
        return head.drop { $0.isWhitespace || $0 == "\u{FEFF}" }.first == "{" && head.contains("\"carbRatio\"")
    }

    /// Whether `path` is a regular file (following symbolic links), checked without opening it.
    public static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// Imports every file and groups the logs by patient (`PatientLog.merging`). A file that fails
    /// is reported and left out; the others go on. A file with the same content (SHA-256) as one read
    /// before is not read again, as the store does not import it again: its summary says so.
    /// - Parameter format: a format name forcing one importer (`ImportFormats.names`); by default
    ///   each file's format is detected from its content.
    public static func load(_ urls: [URL], options: ImportOptions, format: String? = nil)
        -> (patients: [PatientData], summaries: [ImportSummary], failures: [InputError]) {
        var byPatient: [PatientID: PatientData] = [:]
        var logs: [PatientID: [PatientLog]] = [:]
        var read: [PatientID: [(result: ImportResult, summary: Int, path: String)]] = [:]
        var summaries: [ImportSummary] = [], failures: [InputError] = []
        var seen: [String: String] = [:]
        for url in urls {
            do {
                let digest = try? ContentDigest.hexDigest(ofFile: url)
                if let digest, let first = seen[digest] {
                    var summary = ImportSummary(file: url.path)
                    summary.issues.append(ImportIssue(.warning, SourceLocation(file: url.path), "same content as \(first); not read again"))
                    summaries.append(summary)
                    continue
                }
                let results = try ImportFormats.importPatients(at: url, format: format, options: options)
                // Only a file that was read counts as seen: a copy of one that failed (an export
                // renamed to a pseudonymous id beside the original, whose name is no id) is read.
                if let digest { seen[digest] = url.path }
                for result in results {
                    read[result.log.patient, default: []].append((result, summaries.count, url.path))
                    summaries.append(result.summary)
                    let id = result.log.patient
                    var data = byPatient[id] ?? PatientData(patient: id, log: PatientLog(patient: id), testStart: nil, files: [])
                    logs[id, default: []].append(result.log)
                    data.files.append(url.path)
                    if PatientData.isTestFile(url.path), let first = result.log.firstTime {
                        data.testStart = min(data.testStart ?? first, first)
                    }
                    byPatient[id] = data
                }
            } catch let error as InputError {
                failures.append(error)
            } catch {
                failures.append(InputError(SourceLocation(file: url.path), "\(error)"))
            }
        }
        // Merged once per patient at the end (`PatientLog.merging(_:)`): merging file by file was
        // quadratic in the files (a thousand daily exports took a dose ask 46 s).
        for (id, list) in logs { byPatient[id]?.log = PatientLog.merging(list) }
        for (id, files) in read {
            let skipped = FileConflicts.report(files, into: &summaries)
            if !skipped.isEmpty, let log = byPatient[id]?.log {
                byPatient[id]?.log.skippedInsulin = SkippedInsulin.ordered(log.skippedInsulin + skipped)
            }
        }
        return (byPatient.values.sorted { $0.patient < $1.patient }, summaries, failures)
    }
}
