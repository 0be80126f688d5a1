import Foundation

/// Where a command gets its patients' data: export files (`ExportFiles`) or a store
/// (`StoreSource`). Every command reads through one, so the two give the same logs: both combine a
/// patient's files with `PatientLog.merging`'s rule.
public protocol PatientSource: Sendable {
    /// Every patient the source holds (or only `patient`), with their combined log, sorted by id.
    /// A file that cannot be read is reported in `failures` and left out; the others go on.
    /// - Throws: `InputError` when the source itself cannot be read (no such folder, no such store).
    func load(patient: PatientID?) throws -> LoadedPatients
}

extension PatientSource {
    /// Every patient the source holds.
    public func load() throws -> LoadedPatients { try load(patient: nil) }
}

/// What a `PatientSource` read.
public struct LoadedPatients: Sendable {
    public var patients: [PatientData]
    /// One per file read now (empty for a store: its files were accounted for at import).
    public var summaries: [ImportSummary]
    public var failures: [InputError]
    /// Patients the source holds that were not asked for (so an unknown patient's message can list them).
    public var others: [PatientID]
    /// Every file the source read (those it failed on too): a command's output may replace none.
    public var read: ReadFiles

    public init(patients: [PatientData], summaries: [ImportSummary] = [], failures: [InputError] = [], others: [PatientID] = [],
                read: ReadFiles = ReadFiles()) {
        self.patients = patients; self.summaries = summaries; self.failures = failures; self.others = others
        self.read = read
    }

    /// Every patient the source holds, asked for or not, sorted.
    public var allPatients: [PatientID] { (patients.map(\.patient) + others).sorted() }

    /// The data of `patient`, or nil when the source has none.
    public func data(for patient: PatientID) -> PatientData? { patients.first { $0.patient == patient } }
}

/// Export files and folders (any format `ImportFormats` reads), imported now.
public struct ExportFiles: PatientSource {
    public var paths: [String]
    public var options: ImportOptions
    /// A format name forcing one importer (`ImportFormats.names`); nil: detected per file.
    public var format: String?

    public init(paths: [String], options: ImportOptions, format: String? = nil) {
        self.paths = paths; self.options = options; self.format = format
    }

    /// The files `load` reads (those found in folders too), listed without reading them: a
    /// command checks where it writes before it reads.
    public func files() throws -> ReadFiles {
        ReadFiles(try CohortLoader.files(paths, options: options).map(\.path), role: "the data file")
    }

    /// Every file is read even for one patient: a file says whose it is only once read.
    public func load(patient: PatientID?) throws -> LoadedPatients {
        let files = try CohortLoader.files(paths, options: options)
        let loaded = CohortLoader.load(files, options: options, format: format)
        return LoadedPatients(patients: loaded.patients.filter { patient == nil || $0.patient == patient },
                              summaries: loaded.summaries, failures: loaded.failures,
                              others: loaded.patients.map(\.patient).filter { patient != nil && $0 != patient },
                              read: ReadFiles(files.map(\.path), role: "the data file"))
    }
}

/// The part of a patient's history a job at one moment reads: the records from `lookback` before
/// the patient's newest glucose reading at or before `moment` on (`PatientLog.since(_:)`), for a
/// store to read the days of a long history a job needs rather than all of it. A job reading
/// through a window gets what it would from the whole log.
public struct HistoryWindow: Sendable, Hashable {
    /// The moment the job is about; nil: the patient's newest glucose reading.
    public var moment: Date?
    /// How far before the newest glucose reading at or before `moment` the job reads (e.g.
    /// `DoseAdvisor.memory`, or `SettingsEstimator.lookback(days:)`).
    public var lookback: TimeInterval

    public init(moment: Date? = nil, lookback: TimeInterval) { self.moment = moment; self.lookback = lookback }
}

/// A `PatientStore` file (`glucomodel-train import-data`, `glucomodel-predict nightly`), read as it is.
public struct StoreSource: PatientSource {
    public var path: String
    /// Read only these patients (one shard of a job array); nil: every patient.
    public var only: Set<PatientID>?
    /// Read only this part of each patient's history; nil: all of it. The whole log is read when
    /// the patient has no glucose reading at or before the window's moment.
    public var window: HistoryWindow?

    public init(path: String, only: Set<PatientID>? = nil, window: HistoryWindow? = nil) {
        self.path = path; self.only = only; self.window = window
    }

    /// `patient`'s log, through `window` when there is one.
    func log(_ patient: PatientID, _ store: PatientStore) throws -> PatientLog {
        guard let window, let newest = try store.newestGlucoseTime(for: patient, by: window.moment) else {
            return try store.log(for: patient)
        }
        return try store.log(for: patient, since: newest.addingTimeInterval(-window.lookback))
    }

    /// Reads only the patients asked for. A store of an older schema is brought up to date first
    /// (as by every other use of `PatientStore`).
    /// - Throws: `InputError` naming the path when there is no such file (a store is never created
    ///   by reading it), or when it is not a store.
    public func load(patient: PatientID?) throws -> LoadedPatients {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
            throw InputError(SourceLocation(file: path), "no such store file (make one with glucomodel-train import-data --store FILE)")
        }
        guard !isDir.boolValue else { throw InputError(SourceLocation(file: path), "a folder, not a store file; give the store's file name") }
        // An empty file is a new store to a writer; read, it was made a store in place, without the
        // lock, over what may be a backup cut short (hunt AG, stop 57: "no patient has glucose readings").
        if let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int, size == 0 {
            throw InputError(SourceLocation(file: path), "the store file is empty (0 bytes), not a store (a copy cut short?); "
                             + "a store is never created by reading it")
        }
        do {
            let store = try PatientStore(path: path)
            let runs = try store.importRuns()
            let ids = try store.patients()
            let wanted = { (id: PatientID) in (patient == nil || id == patient) && (only?.contains(id) ?? true) }
            return LoadedPatients(patients: try ids.filter(wanted).map { id in
                let own = runs.filter { $0.patient == id }
                var testStart: Date?
                for run in own where PatientData.isTestFile(run.filePath) {
                    if let first = try store.firstRecordTime(ofRun: run.id) { testStart = min(testStart ?? first, first) }
                }
                return PatientData(patient: id, log: try log(id, store), testStart: testStart, files: own.map(\.filePath))
            }, others: ids.filter { !wanted($0) }, read: ReadFiles(store: path))
        } catch let error as InputError {
            throw error
        } catch let error as StoreFileError {
            // It says what the file is and why, once (the review: the path twice, and "cannot be
            // read" before a store that is read-only for its upgrade).
            throw InputError(SourceLocation(file: path), error.reason)
        } catch {
            throw InputError(SourceLocation(file: path), "cannot be read as a GlucoModel store: \(error)")
        }
    }
}

/// The source a command line names: the store when `store` is given, else the export files.
/// - Throws: `InputError` when both or neither are given.
/// With a `window`, a store is read through it (export files are read whole: a file is read to
/// its end anyway).
public func patientSource(paths: [String], store: String?, options: ImportOptions, format: String? = nil,
                          window: HistoryWindow? = nil) throws -> any PatientSource {
    switch (paths.isEmpty, store) {
    case let (true, store?): return StoreSource(path: store, window: window)
    case (false, nil): return ExportFiles(paths: paths, options: options, format: format)
    case (false, .some): throw InputError(SourceLocation(file: store ?? ""), "give data files or a store, not both")
    case (true, nil): throw InputError(SourceLocation(file: "-"), "no data: name files or folders, or a store")
    }
}
