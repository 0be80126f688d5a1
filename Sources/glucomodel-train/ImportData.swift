import ArgumentParser
import Foundation
import GlucoModel
import GlucoModelCommandLine

/// `glucomodel-train import-data FILES... --store FILE [--patient ID] [--time-zone TZ] [--format F] [--columns MAP] [--date-order dmy|mdy]`
struct ImportData: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import-data",
        abstract: "Import exported patient logs (OhioT1DM XML, GlucoModel CSV, Dexcom Clarity, LibreView, Nightscout, Tidepool, a mapped CSV) into a store.",
        discussion: """
            Another tool's CSV is read through --columns (the format csv): one import takes one patient, so a \
            file with a patient column naming several patients is refused at the line of the second (with \
            --patient, only that patient's rows are read).
            """)

    @Argument(help: "Files or folders to import (a folder: the data files in it and its subfolders that some format reads, in name order).")
    var files: [String]

    @Option(help: "The store (SQLite file), created if missing.")
    var store: String

    @Option(help: "Patient id for files that do not name one (or to override them).")
    var patient: String?

    @OptionGroup var time: TimeZoneOption

    @Option(help: "Format of every file (\(ImportFormats.names.joined(separator: ", "))); default: detected from each file's content.")
    var format: String?

    @OptionGroup var reading: ImportReadOptions

    @Flag(help: "Print every warning, not only the first 20 per file.")
    var verbose = false

    @Flag(help: "Undo the imports of the files given (known by their content), so that they can be imported again with other options (a wrong --time-zone or --patient): their records are deleted, and a patient left with none. Refused, changing nothing, while a later import of the same patient found records already stored (give those files too).")
    var forget = false

    func validate() throws {
        if let patient { _ = try parsePatient(patient) }
        _ = try reading.format(format)
        if forget, patient != nil || format != nil {
            throw ValidationError("--forget takes the files and --store only: a file is known by its content, whatever its options were")
        }
    }

    func parsePatient(_ raw: String) throws -> PatientID {
        do { return try PatientID(raw) } catch { throw ValidationError("--patient: \(error)") }
    }

    func run() throws {
        if forget { return try forgetImports() }
        var options = try reading.importOptions(timeZone: time.zone())
        if let patient { options.patient = try parsePatient(patient) }
        let format = try reading.format(format)
        // Listed before the lock: a named pipe is refused here, not waited on with the store locked.
        let paths = try expandingFolders(options: options)
        let db = try PatientStore(path: store)
        try db.requireWritable()
        let lock = try takeLock()
        defer { lock.release() }
        var failed = 0, done = 0, rowsSkipped = 0
        // Several files per transaction (`ImportBatchLimits.standard`), each still all or nothing;
        // a file's lines are printed once its batch is committed.
        try db.importFiles(paths) { path in
            try PreparedImport(url: URL(fileURLWithPath: path), format: format, options: options)
        } committed: { results in
            for (path, result) in results {
                do {
                    let outcome = try result.get()
                    done += 1
                    switch outcome {
                    case let .imported(run):
                        rowsSkipped += run.summary.rowsSkippedForProblems
                        print("\(run.summary)")
                        print("  " + run.storedLine)
                        printWarnings(run.summary)
                    case let .alreadyImported(run):
                        // The store knows a file by its content: the same file with another --patient or
                        // --time-zone is still this one (a store keeps a content's first import until forgotten).
                        print("\(path): already imported (same content as run \(run.id), \(run.filePath), patient \(run.patient)); "
                              + "nothing added (to read it with another --patient or --time-zone, forget that import first: "
                              + "import-data --forget \(path) --store \(store))")
                        if let note = run.futureRowsNote(now: Date(), forget: "import-data --forget \(path) --store \(store)") {
                            print("  " + note)
                        }
                        if let kept = run.skippedInsulinKeptNow, kept > 0 {
                            print("  \(Plural.of(kept, "insulin record")) its import skipped (stored by an earlier build, which kept none) "
                                  + "now kept with it: a dose within their action is refused (skipped_insulin_record)")
                        }
                        if run.skippedInsulinUnread {
                            print("  an earlier build stored it without the insulin records its import skipped, and it does not read as "
                                  + "it was imported now (another --time-zone?): import it again with the options it was imported with")
                        }
                    }
                } catch let nothing as NothingKeptError {
                    // A failed file, with the warnings that say why (nothing was stored).
                    failed += 1
                    print("\(nothing.summary)")
                    printWarnings(nothing.summary)
                    print("\(nothing)")
                } catch let error as InputError {
                    failed += 1
                    print("\(error)")
                } catch {
                    // Not the file's own error (a full disk): the message names the file (hunt J, stop 52).
                    failed += 1
                    print("\(path): error: cannot import the file: "
                          + (StoreErrorText.reason(error).map { "the store \(store) failed (\($0))" } ?? "\(error)")
                          + "; nothing of it was stored")
                }
            }
        }
        // Rows skipped for a problem (with warnings) are rows that failed, as nightly counts them:
        // partial, so that a script sees the data it asked for is not all in the store.
        let status = rowsSkipped > 0 && failed == 0 ? RunStatus.partial : RunStatus.of(done: done, failed: failed)
        if status != .success { throw ExitCode(status.rawValue) }
    }

    /// `--forget`: undoes the files' imports in one transaction, under the store's lock (a nightly
    /// run is not mid-night); prints a line per file. Nothing changes when one cannot be forgotten.
    func forgetImports() throws {
        let db = try PatientStore(path: store)
        try db.requireWritable()
        let lock = try takeLock()
        defer { lock.release() }
        let urls = try expandingFolders(options: ImportOptions()).map { URL(fileURLWithPath: $0) }
        do {
            for forgotten in try db.forgetImports(of: urls) { print(forgotten.line) }
        } catch let error as ForgetImportError {
            Console.write("\(error)")
            throw ExitCode(1)
        }
    }

    /// The store's lock (`<store>.lock`), as nightly takes it: one writer at a time, so an import
    /// never meets another import or a night mid-write (and `flock <store>.lock cp ...` copies a whole
    /// store). Held by another run: exit 75, try again later.
    func takeLock() throws -> StoreLock {
        do { return try StoreLock(storePath: store) } catch let error as StoreLock.LockError {
            Console.write("\(error)")
            if case .busy = error { throw ExitCode(RunStatus.locked.rawValue) }
            throw ExitCode(RunStatus.failure.rawValue)
        }
    }

    /// `files` with each folder replaced by the data files in it (`CohortLoader.files`, as train
    /// and predict read a folder); a folder with none is an error. All are read in path order, as
    /// `train` reads the same list (the first file's record of an event is the one kept), so that
    /// `train --store` gives the models `train FILES` gives (hunt AP: `import-data b.csv a.csv` kept
    /// b's readings, `train b.csv a.csv` a's).
    func expandingFolders(options: ImportOptions) throws -> [String] {
        try files.flatMap { path -> [String] in
            // A named pipe, a device or a socket would be waited on for ever (holding the store's
            // lock, so that every night meanwhile exited 75; hunt P), as the other commands refuse it.
            try checkDataFiles([path])
            var isFolder: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isFolder)
            guard exists, isFolder.boolValue else { return [path] }
            let found = try CohortLoader.files([path], options: options).map(\.path)
            if found.isEmpty {
                throw ValidationError("\(path): no data file in this folder that a format reads (\(ImportFormats.names.joined(separator: ", ")))")
            }
            return found
        }.sorted { URL(fileURLWithPath: $0).path < URL(fileURLWithPath: $1).path }
    }

    /// The file's warnings, indented under its summary: the first 20, or all with `--verbose`.
    func printWarnings(_ summary: ImportSummary) {
        for line in summary.warningLines(limit: verbose ? nil : 20, more: " (--verbose)") { print("  \(line)") }
    }
}
