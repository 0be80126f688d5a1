import Foundation
import GrammarEvolution

/// The settings of a nightly scoring run.
public struct NightlySettings: Sendable {
    /// The store (SQLite file); `<store>.lock` keeps a second run out.
    public var storePath: String
    /// Folder of new export files; files already imported (same content) are skipped.
    public var inbox: URL
    /// The trainer's output folder (or its `models/`).
    public var modelsFolder: URL
    /// Output root: the night's files go to `<output>/<night>/`.
    public var output: URL
    /// The night's label, `YYYY-MM-DD`.
    public var night: String
    public var thresholds = AlertThresholds()
    /// Horizons to predict (minutes); nil: every horizon a patient has a model for.
    public var horizons: [Int]?
    public var importOptions: ImportOptions
    /// Each subfolder of the inbox is a patient: a file in `<inbox>/<id>/` (at any depth below it) is
    /// imported as `import-data --patient <id>` imports it, whatever its name (Dexcom Clarity names
    /// each export after the day it was made: from its name alone, each night's file would be a new
    /// patient). Files directly in the inbox name their patient as without it.
    public var patientFolders = false
    /// An inbox file that fails to import within this long (seconds) of its last change stays in
    /// the inbox for the next run instead of going to the quarantine: it may still be being written.
    public var settleTime: TimeInterval = 600
    /// The unit of the glucose columns of the night's files (`_mgdl` or `_mmoll`) and of the
    /// summary line. A night's files are all in one unit: a run in another unit is refused.
    public var units: GlucoseUnit = .mgdL

    public init(storePath: String, inbox: URL, modelsFolder: URL, output: URL, night: String,
                importOptions: ImportOptions = ImportOptions()) {
        self.storePath = storePath
        self.inbox = inbox
        self.modelsFolder = modelsFolder
        self.output = output
        self.night = night
        self.importOptions = importOptions
    }

    /// The label of the night containing `date` in `timeZone`.
    public static func nightLabel(_ date: Date, timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let c = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", c.year!, c.month!, c.day!)
    }

    /// Whether `text` is a `YYYY-MM-DD` date.
    public static func isNightLabel(_ text: String) -> Bool {
        guard text.count == 10, let t = TimestampParser.iso8601(text) else { return false }
        return t.local.hour == 0 && t.local.minute == 0
    }
}

/// The extension point for dose audits: given a patient, their whole log, their models and the
/// period of the night's rows this run writes (from the night's start for the patient), CSV text for `<night>/dose-audit/<patient>.csv` (nil: no file).
public typealias NightlyDoseAuditor = @Sendable (PatientID, PatientLog, ModelSet, DateInterval) throws -> String?

/// Why a nightly run could not run at all.
public enum NightlyError: Error, CustomStringConvertible, Equatable {
    case busy(String)
    case unusableStore(String, String)
    case missingFolder(String, String)
    /// The path given for a folder is a file.
    case notAFolder(String, String)
    case cannotWrite(String, String)
    /// `--out` would write over or into what the night reads (`ReadFiles.check(outputFolder:)`'s message).
    case outputOverInput(String)
    /// The night's files were written with another header (another `--units`, or an older version).
    case otherHeader(path: String, found: String, expected: String)
    /// An earlier night of the store was interrupted and could not be completed (`NightFolder.unfinished`).
    case interruptedNight(String, String)

    public var description: String {
        switch self {
        case let .busy(message): return message
        case let .unusableStore(path, why): return "cannot use the store \(path): \(why)"
        case let .missingFolder(role, path): return "the \(role) folder \(path) does not exist"
        case let .notAFolder(role, path): return "the \(role) folder \(path) is a file, not a folder"
        case let .cannotWrite(path, why): return "cannot write \(path): \(why)"
        case let .outputOverInput(message): return message
        case let .otherHeader(path, found, expected):
            return "\(path) was written with the header '\(found)', not '\(expected)' (another glucose unit?); "
                + "run the night with the units it was started in, or write to another output folder"
        case let .interruptedNight(night, why):
            return "night \(night) was interrupted and cannot be completed (\(why)); this night is not run, so that no "
                + "patient's rows are in both nights. Settle that and run this night again: the run completes night \(night) "
                + "first (a run with --night \(night) would take this night's inbox files into that night)"
        }
    }
}

/// What a nightly run did. `exitCode` (`RunStatus`): 0 all done, 1 failed (nothing could be
/// done), 2 done with warnings (a patient skipped, a file quarantined), 75 another run holds the lock.
public struct NightlyOutcome: Sendable {

    /// Patients given new predictions this run.
    public var patientsScored = 0
    /// Patients with models and nothing new to score.
    public var patientsUpToDate = 0
    public var filesImported = 0
    /// Inbox files that could not be imported, moved to `<out>/quarantine/` with a reason file.
    public var filesQuarantined = 0
    public var readingsImported = 0
    public var readingsScored = 0
    public var predictions = 0
    /// Alert episodes (`AlertEpisode`), beyond `thresholds`.
    public var alerts = 0
    public var thresholds = AlertThresholds()
    /// The unit the summary line prints the thresholds in.
    public var units: GlucoseUnit = .mgdL
    /// Patients whose newly scored CGM readings hold runs at the sensor's limits or flat lines:
    /// flagged (not warnings: the night's work is done), alerts still raised on them.
    public var sensorLimits: [(patient: PatientID, runs: [SensorLimitRun])] = []
    /// Patients whose new predictions include some at the limit of what a model may predict (10 or
    /// 600 mg/dL, `GlucoseModel.isAtLimit`): the model was evaluated beyond its training data and
    /// should be retrained. Flagged like `sensorLimits`; alerts still raised on them.
    public var modelLimits: [(patient: PatientID, predictions: Int)] = []
    /// Patients with new predictions of an evolved model made by its ARX base alone
    /// (`GlucoseModel.Prediction.baseAlone`): the expression was not finite or beyond its training
    /// range at those inputs. Flagged like `sensorLimits`.
    public var baseAlone: [(patient: PatientID, predictions: Int)] = []
    public var warnings: [String] = []
    /// Set when the run could not be done at all.
    public var failure: NightlyError?

    public init() {}

    /// Failed when the run could not start or no patient could be handled while something
    /// went wrong; done with warnings when a patient was skipped or a file failed to import.
    /// On the one scale of every command (`RunStatus`; nightly had a copy of its own).
    public var status: RunStatus {
        if case .busy? = failure { return .locked }
        if failure != nil { return .failure }
        if warnings.isEmpty { return .success }
        return patientsScored + patientsUpToDate == 0 && filesImported == 0 ? .failure : .partial
    }

    public var exitCode: Int32 { status.rawValue }

    public var summaryLine: String {
        if let failure { return "nightly failed: \(failure)" }
        return "nightly: \(Plural.of(patientsScored, "patient")) scored (\(patientsUpToDate) up to date), "
            + "\(Plural.of(readingsImported, "reading")) imported, \(Plural.of(readingsScored, "reading")) scored, "
            + "\(Plural.of(predictions, "prediction")), \(Plural.of(alerts, "alert episode")) "
            + "(low < \(PredictionCSV.glucose(thresholds.low, units, mgdLDecimals: 1)), "
            + "high > \(PredictionCSV.glucose(thresholds.high, units, mgdLDecimals: 1)) \(units.rawValue)), "
            + (sensorLimits.isEmpty ? "" : "sensor limits in \(sensorLimits.map { "\($0.patient) (\(Plural.of($0.runs.count, "run")))" }.joined(separator: ", ")), ")
            + (modelLimits.isEmpty ? "" : "predictions at a model's limit in \(modelLimits.map { "\($0.patient) (\($0.predictions))" }.joined(separator: ", ")), ")
            + (baseAlone.isEmpty ? "" : "predictions by ARX alone in \(baseAlone.map { "\($0.patient) (\($0.predictions))" }.joined(separator: ", ")), ")
            + Plural.of(warnings.count, "warning")
    }
}

/// Nightly scoring: imports the inbox into the store, predicts each patient's readings newer
/// than the last scored one, and writes the night's predictions, alerts and summary.
///
/// Safe to re-run and to interrupt. Per patient, its files are written atomically first and its
/// scoring state is advanced after, in one transaction; a patient whose state did not advance is
/// scored again from the same state, giving the same rows. A later run of the same night with new
/// readings rewrites the patient's files of the night from where the night started for it (kept
/// with the state), so several runs of a night leave the files one run would; the combined files
/// are regenerated from the per-patient files at the end. An exclusive lock on `<store>.lock` keeps a second run out.
public struct NightlyScorer {
    public var settings: NightlySettings
    /// Dose audits (see `NightlyDoseAuditor`); nil: none are written.
    public var auditor: NightlyDoseAuditor?
    /// Settings checks (see `NightlySettingsChecker`); nil: none are written.
    public var settingsChecker: NightlySettingsChecker?
    /// The weekday whose nights get the settings checks; nil: every night `settingsChecker` is given.
    /// Judged by the night scored (an interrupted Monday completed on Tuesday gets Monday's checks).
    public var settingsCheckDay: Weekday?
    /// How much a night reads of a patient's history beyond what the models, the audit and the
    /// settings check are known to need (`history(of:...)`).
    public var historyMargin: TimeInterval = 86_400
    /// Called after a patient's files are written and before its state advances (tests use it
    /// to interrupt a run at the worst moment).
    public var afterPatientFiles: ((PatientID) throws -> Void)?
    /// A progress line ("imported 120 of 1000 files", "scored 40 of 1000 patients") at most this
    /// often, so a long night is not silent until its summary; 0: after every file and patient.
    public var progressInterval: TimeInterval = 10

    public init(settings: NightlySettings, auditor: NightlyDoseAuditor? = nil) {
        self.settings = settings
        self.auditor = auditor
    }

    /// Runs the night. Per-patient and per-file problems become warnings; `message` receives
    /// progress and warnings for people.
    /// - Throws: only what `afterPatientFiles` throws (the run stops there, as if killed).
    public func run(message: (String) -> Void = { _ in }) throws -> NightlyOutcome {
        var outcome = NightlyOutcome()
        outcome.thresholds = settings.thresholds
        outcome.units = settings.units
        // Before anything is written (the lock file, the night's folder, a quarantined file): the
        // night's files and the quarantine are never inside the inbox (they would be imported or
        // quarantined the next night), nor over the store or a model.
        var read = ReadFiles(store: settings.storePath)
        read.add(folder: settings.inbox.path, role: "the inbox")
        read.add(modelsIn: settings.modelsFolder)
        // A night's folder among the patients' model folders would be a patient without models.
        read.add(folder: ModelSet.modelsRoot(settings.modelsFolder).path, role: "the models folder")
        do {
            try read.check(outputFolder: settings.output, writing: [settings.night, "quarantine"], option: "--out")
            try StoreFileCheck.checkHeader(settings.storePath)
        } catch let error as StoreFileError {
            outcome.failure = .unusableStore(settings.storePath, "\(error)")
            return outcome
        } catch {
            outcome.failure = .outputOverInput("\(error)")
            return outcome
        }
        // The folders it reads, before the lock file or a new store is made: a mistyped --inbox
        // leaves nothing behind.
        for (role, url) in [("inbox", settings.inbox), ("models", settings.modelsFolder)] {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDir) else {
                outcome.failure = .missingFolder(role, url.path)
                return outcome
            }
            guard isDir.boolValue else {
                outcome.failure = .notAFolder(role, url.path)
                return outcome
            }
        }
        let lock: StoreLock
        do { lock = try StoreLock(storePath: settings.storePath) } catch let error as StoreLock.LockError {
            if case .busy = error { outcome.failure = .busy("\(error)") } else { outcome.failure = .unusableStore(settings.storePath, "\(error)") }
            return outcome
        }
        defer { lock.release() }
        let store: PatientStore
        do {
            store = try PatientStore(path: settings.storePath)
            // A store that cannot be written would take the night's files but not the scoring
            // state: the next night would score them again.
            try store.requireWritable()
        } catch {
            outcome.failure = .unusableStore(settings.storePath, "\(error)")
            return outcome
        }
        // A night killed before its end, and not run again under its own label, is completed first,
        // before the inbox brings this night's files (hunt AU, stop 59: the next night ran instead,
        // the killed night's combined files were never written, and a patient whose file was in
        // place but whose state had not advanced was scored again into this night, its rows in both).
        // If it cannot be completed, this run stops: scoring on would put the interrupted night's
        // rows in this night's files too (the review of stop 59).
        for earlier in NightFolder.unfinished(in: settings.output, store: settings.storePath) where earlier != settings.night {
            var scorer = self
            scorer.settings.night = earlier
            // In the unit its files are in (a night in mg/dL, completed by a run in mmol/L).
            scorer.settings.units = NightFolder(root: settings.output.appendingPathComponent(earlier)).units() ?? settings.units
            message("nightly: night \(earlier) was interrupted; completing it first")
            let completed = scorer.complete(store, message)
            if let failure = completed.failure {
                outcome.failure = .interruptedNight(earlier, "\(failure)")
                return outcome
            }
            warn(&outcome, message, "night \(earlier) was interrupted (killed or stopped) and has been completed by this run: "
                 + "\(Plural.of(completed.patientsScored, "patient")) scored, \(Plural.of(completed.predictions, "prediction")), "
                 + "\(Plural.of(completed.alerts, "alert episode")) in its files")
        }
        let folder = NightFolder(root: settings.output.appendingPathComponent(settings.night))
        do { try folder.create() } catch {
            outcome.failure = .cannotWrite(folder.root.path, "\(error)")
            return outcome
        }
        folder.removeLeftovers()
        LeftoverFiles.removeAll(in: settings.output.appendingPathComponent("quarantine"))
        if let mismatch = folder.headerMismatch(units: settings.units) {
            outcome.failure = mismatch
            return outcome
        }
        // Marked once the folder is known to take this run's files (a run refused for its unit left
        // the mark, and the next night warned of an interruption; the review of stop 59).
        do { try folder.markUnfinished(store: settings.storePath) } catch {
            outcome.failure = .cannotWrite(folder.root.path, "\(error)")
            return outcome
        }
        do { try importInbox(store, folder: folder, &outcome, message) } catch {
            outcome.failure = .unusableStore(settings.storePath, StoreErrorText.reason(error) ?? "\(error)")
            return outcome
        }
        try scoreAndFinish(store, folder: folder, &outcome, message)
        return outcome
    }

    /// Scores the night's patients into `folder`, then writes its combined files and removes its
    /// unfinished mark; a failure leaves the mark, for the next run to complete the night.
    func scoreAndFinish(_ store: PatientStore, folder: NightFolder, _ outcome: inout NightlyOutcome, _ message: (String) -> Void) throws {
        try scorePatients(store, folder: folder, &outcome, message)
        if outcome.failure != nil { return }
        do {
            try folder.regenerateCombined(night: settings.night, warnings: outcome.warnings, units: settings.units)
            folder.markFinished(store: settings.storePath)
        } catch {
            outcome.failure = .cannotWrite(folder.root.path, "\(error)")
        }
    }

    /// Scores every patient of the store with models into `folder`, the night `settings.night`.
    func scorePatients(_ store: PatientStore, folder: NightFolder, _ outcome: inout NightlyOutcome, _ message: (String) -> Void) throws {
        let withModels = Set(ModelSet.patients(in: settings.modelsFolder))
        let patients: [PatientID]
        do { patients = try store.patients() } catch {
            outcome.failure = .unusableStore(settings.storePath, StoreErrorText.reason(error) ?? "\(error)")
            return
        }
        var progress = Progress(interval: progressInterval, total: patients.count, what: "patients", verb: "scored")
        for patient in patients {
            progress.tick(message)
            guard withModels.contains(patient) else {
                warn(&outcome, message, "\(patient): no trained model in \(settings.modelsFolder.path); not scored")
                continue
            }
            do {
                try score(patient, store: store, folder: folder, &outcome, message)
            } catch let error as NightlyInterruption {
                throw error.underlying
            } catch {
                if let reason = StoreErrorText.reason(error) {
                    warn(&outcome, message, "\(patient): the store \(settings.storePath) failed (\(reason)): "
                        + "the patient's scoring state did not advance, and the next run scores it again")
                } else {
                    warn(&outcome, message, error is PredictionError ? "\(error)" : "\(patient): \(error)")
                }
            }
        }
    }

    /// The end of the night labelled `label` (the next midnight, UTC); nil for a label that is no date.
    static func nightEnd(_ label: String) -> Date? {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withFullDate]
        return f.date(from: label).map { $0.addingTimeInterval(86_400) }
    }

    /// Whether this night gets settings checks.
    var checksSettingsTonight: Bool { settingsChecker != nil && (settingsCheckDay?.matches(night: settings.night) ?? true) }

    /// Whether a patient with nothing new to score still needs tonight's settings check (none written yet).
    func settingsCheckDue(_ patient: PatientID, _ folder: NightFolder) -> Bool {
        checksSettingsTonight && !FileManager.default.fileExists(atPath: folder.file(folder.settingsCheck, patient).path)
    }

    /// The patient's settings check of the night (`settingsChecker`), if one is made tonight. Made for
    /// a patient with nothing new to score too (hunt AU, stop 59: a Monday upload that came late left
    /// the patient without the week's check, with no warning; the check reads the stored log).
    func checkSettings(_ patient: PatientID, _ log: PatientLog, folder: NightFolder, _ outcome: inout NightlyOutcome,
                       _ message: (String) -> Void) throws {
        guard checksSettingsTonight, let settingsChecker else { return }
        let text: String?
        do { text = try settingsChecker(patient, log) } catch {
            text = nil
            warn(&outcome, message, "\(patient): no settings check: \(error)")
        }
        if let text { try NightFolder.writeAtomically(Data(text.utf8), to: folder.file(folder.created(folder.settingsCheck), patient)) }
    }

    /// Completes the night `settings.night`, interrupted earlier: scores what it had imported (no
    /// inbox is read), as a run of that night again would, and writes its combined files.
    func complete(_ store: PatientStore, _ message: (String) -> Void) -> NightlyOutcome {
        var outcome = NightlyOutcome()
        outcome.thresholds = settings.thresholds
        outcome.units = settings.units
        let folder = NightFolder(root: settings.output.appendingPathComponent(settings.night))
        folder.removeLeftovers()
        if let mismatch = folder.headerMismatch(units: settings.units) {
            outcome.failure = mismatch
            return outcome
        }
        do { try scoreAndFinish(store, folder: folder, &outcome, message) } catch {
            outcome.failure = .cannotWrite(folder.root.path, "\(error)")
        }
        return outcome
    }

    /// "scored 40 of 1000 patients (12 s)" when `interval` has passed since the last line.
    struct Progress {
        let interval: TimeInterval, total: Int, what: String, verb: String
        let start = Date()
        var last = Date()
        var done = 0

        /// Called before each item: says how many are done.
        mutating func tick(_ message: (String) -> Void) {
            let now = Date()
            if done > 0, now.timeIntervalSince(last) >= interval {
                message("\(verb) \(done) of \(total) \(what) (\(Int(now.timeIntervalSince(start).rounded())) s)")
                last = now
            }
            done += 1
        }
    }

    private func warn(_ outcome: inout NightlyOutcome, _ message: (String) -> Void, _ text: String) {
        outcome.warnings.append(text)
        message("warning: " + text)
    }

    /// Imports every data file of the inbox (sorted by path) not imported before, several files
    /// per transaction (`PatientStore.importFiles`, each file all or nothing). A file is counted,
    /// reported or quarantined once its batch is committed.
    ///
    /// The warnings of a batch (a file quarantined, rows skipped) are recorded in the night's summary
    /// as the batch is done: its files are moved or imported, and a run killed later (importing the
    /// rest of a backfill, or scoring) would leave no other trace of them. Until stop 52 they were
    /// written once the whole inbox was imported, and a night killed before then was run again
    /// with exit 0 and no warning of the file quarantined (hunt J).
    func importInbox(_ store: PatientStore, folder: NightFolder, _ outcome: inout NightlyOutcome, _ message: (String) -> Void) throws {
        let files = try CohortLoader.files([settings.inbox.path], onlyRecognised: false)
        var progress = Progress(interval: progressInterval, total: files.count, what: "inbox files", verb: "read")
        try store.importFiles(files) { url in
            progress.tick(message)
            var options = settings.importOptions
            // With a column mapping, a file whose header has the mapped columns is a mapped CSV (a
            // pump's export); every other file is read as its content says.
            let type: any PatientDataImporter.Type
            if options.columns != nil, ImportFormats.isReadable(url, options: options) {
                type = MappedCSVImporter.self
            } else if let detected = try ImportFormats.detect(url) {
                type = detected
                options.columns = nil
            } else {
                throw InputError(SourceLocation(file: url.path, line: 1),
                                  "the file is in none of the known formats (\(ImportFormats.names.joined(separator: ", ")))"
                                  + (options.columns.map { ", and its header lacks the mapped columns (\($0.text))" } ?? ""))
            }
            if settings.patientFolders, let patient = try patientFolder(of: url) { options.patient = patient }
            return PreparedImport(url: url, importer: ImportFormats.importer(type), options: options)
        } committed: { results in
            let warned = outcome.warnings.count
            defer {
                if outcome.warnings.count > warned {
                    try? folder.regenerateCombined(night: settings.night, warnings: outcome.warnings, units: settings.units)
                }
            }
            for (url, result) in results {
                do {
                    switch try result.get() {
                    case let .imported(run):
                        outcome.filesImported += 1
                        outcome.readingsImported += run.recordsAddedByKind?[.glucose] ?? 0
                        reportImport(run.summary, &outcome, message)
                    case let .alreadyImported(run):
                        let forget = "glucomodel-train import-data --forget \(url.path) --store \(settings.storePath)"
                        if let note = run.futureRowsNote(now: Date(), forget: forget) { warn(&outcome, message, "\(url.path): " + note) }
                    }
                } catch let error as InputError {
                    quarantine(url, error.description, &outcome, message)
                } catch let nothing as NothingKeptError {
                    quarantine(url, nothing.description, details: nothing.summary.report(warnings: 5), &outcome, message)
                } catch {
                    // Not the file's fault (a full disk, a store SQLite cannot write): it stays in the inbox.
                    warn(&outcome, message, "import failed: \(url.path): \(error); the file stays in the inbox for the next run")
                }
            }
        }
    }

    /// The patient whose inbox subfolder holds `url` (`patientFolders`); nil for a file directly in the inbox.
    /// - Throws: `InputError` naming the folder when its name is no patient id.
    func patientFolder(of url: URL) throws -> PatientID? {
        let inbox = settings.inbox.resolvingSymlinksInPath().standardizedFileURL.pathComponents
        let file = url.standardizedFileURL.pathComponents
        guard file.count > inbox.count + 1, Array(file.prefix(inbox.count)) == inbox else { return nil }
        let folder = file[inbox.count]
        do { return try PatientID(folder) } catch {
            throw InputError(SourceLocation(file: url.path),
                             "the inbox folder '\(folder)' names no patient (\(error)); with patient folders, each folder of the inbox is a patient's id")
        }
    }

    /// The file itself is bad: it would fail every night. Moves it out of the inbox, with the
    /// reason (and `details`, the import's summary) beside it, and reports it this once.
    private func quarantine(_ url: URL, _ reason: String, details: String? = nil,
                            _ outcome: inout NightlyOutcome, _ message: (String) -> Void) {
        let more = details.map { "\n" + $0 } ?? ""
        // A file written a moment ago may still be being written (a JSON export cut short reads as
        // truncated): moved away, its writer would finish it in the quarantine, never to be read.
        // Up to an hour ahead too (an inbox on a file server whose clock runs fast); a time further
        // ahead is no file being written (a file dated in the future was reported "changed 0 s ago"
        // every night until then; hunt AG and the review of stop 57).
        if let modified = try? url.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate,
           (-max(settings.settleTime, 3600)..<settings.settleTime).contains(Date().timeIntervalSince(modified)) {
            let still = StillWritten(file: url.path, reason: reason, age: max(0, Date().timeIntervalSince(modified)), settle: settings.settleTime)
            warn(&outcome, message, "\(still)" + more)
            return
        }
        let folder = settings.output.appendingPathComponent("quarantine")
        do {
            let moved = try Quarantine.move(url, into: folder, reason: reason + more)
            outcome.filesQuarantined += 1
            warn(&outcome, message, "import failed: \(reason); moved to \(moved.path)" + more)
        } catch {
            warn(&outcome, message, "import failed: \(reason); it could not be moved out of the inbox (\(SystemErrorText.reason(error))), "
                + "so it stays, and is reported each night until it is removed" + more)
        }
    }

    /// An imported file's skipped rows are a warning of the night (its summary line and first
    /// warnings, as `import-data` prints them): the rows never reach the store, and the file is
    /// not read again. Warnings without skipped rows (an id from the file name, an adjusted
    /// row) only go to `message`.
    private func reportImport(_ summary: ImportSummary, _ outcome: inout NightlyOutcome, _ message: (String) -> Void) {
        if summary.rowsSkippedForProblems > 0 {
            warn(&outcome, message, summary.report(warnings: 5))
        } else if !summary.issues.isEmpty {
            message(summary.report(warnings: 5))
        }
    }

    /// Scores one patient's readings newer than its scoring state.
    func score(_ patient: PatientID, store: PatientStore, folder: NightFolder,
               _ outcome: inout NightlyOutcome, _ message: (String) -> Void) throws {
        let state = try store.scoringState(for: patient)
        // Read before the log: a file imported after it is news for the next run.
        let latestRun = try store.newestImportRun(for: patient)
        // In the night its state was written by, a patient with records imported since is scored
        // again even when they are all older than the state (a delayed upload, files delivered out
        // of order, a newest-first file delivered cut short and then whole): the night's rows are
        // scored again with them, as one run over the same data would. In a later night they are
        // not: an earlier night's rows are never rewritten.
        let importedSince = state.map { s in
            s.night == settings.night && latestRun.map { run in s.lastRunID.map { run > $0 } ?? false } ?? false
        } ?? false
        if !importedSince, let last = state?.lastScoredAt, let stored = try store.newestGlucoseTime(for: patient), stored <= last {
            outcome.patientsUpToDate += 1
            if settingsCheckDue(patient, folder) {
                // Not from data older than the check reads (the review of stop 59: a patient without
                // data since February got February's check again every Monday, in September's folders).
                let stale = Self.nightEnd(settings.night).map { stored.timeIntervalSince($0) < -SettingsEstimator.lookback() } ?? false
                if !stale {
                    let models = try ModelSet.load(settings.modelsFolder, patient: patient, horizons: settings.horizons)
                    try checkSettings(patient, try history(of: patient, store: store, state: state, models: models), folder: folder, &outcome, message)
                }
            }
            return
        }
        let models = try ModelSet.load(settings.modelsFolder, patient: patient, horizons: settings.horizons)
        let log = try history(of: patient, store: store, state: state, models: models)
        guard let newest = log.glucose.last?.time else { throw PredictionError.noGlucose(patient) }
        if !importedSince, let last = state?.lastScoredAt, newest <= last {
            outcome.patientsUpToDate += 1
            if settingsCheckDue(patient, folder) {
                try checkSettings(patient, log, folder: folder, &outcome, message)
            }
            return
        }
        // The patient's rows of this night begin after `nightFrom`: the state an earlier run of the
        // same night started from (that run advanced the state, and recorded the night with it), else
        // the state now. Every row after it is scored again, up to the newest reading, and the
        // night's files are rewritten with them: the same rows as one run over the same data (a row
        // depends only on data up to its issue moment), with references measured since, episodes that
        // span the runs as one, and every bolus audited with all its follow-up. Rows before it (of
        // another night's state, or of an older build's) are kept as they are.
        let committed = state?.lastScoredAt
        let nightFrom = Self.nightFrom(state, night: settings.night)
        // Issue moments strictly after it, up to the newest reading. The rows go to the patient's
        // file a week at a time (a first night over years of backfilled history holds a week of
        // them); kept are the counts, the first issue moment and the rows alert episodes are made
        // of (`AlertEpisode.isExcursion`).
        let from = nightFrom.map { $0.addingTimeInterval(1) }
        let units = settings.units
        let thresholds = settings.thresholds
        // `earlierRows`: the rows an earlier run of the night wrote up to the state; those this run
        // writes beyond them there are news too (a gap an upload filled).
        let (file, earlierRows) = try folder.patientFile(folder.file(folder.predictions, patient),
                                                         header: PredictionRow.csvHeader(units: units),
                                                         keepingThrough: nightFrom, counting: committed)
        var excursions: [PredictionRow] = []
        var spacing = IssueSpacing()
        var firstIssued: Date?
        var newRows = 0, rowsToState = 0, atLimit = 0, byBase = 0
        var check = PersistenceCheck(for: log)
        do {
            try Predictor(models: models).predict(log, from: from, to: newest) { chunk in
                firstIssued = firstIssued ?? chunk.first?.issuedAt
                for row in chunk {
                    file.writeLine(row.csvLine(units: units))
                    check.add(row)
                    let ge = row.model == ModelKind.ge.rawValue
                    if ge { spacing.add(row) }
                    if AlertEpisode.isExcursion(row, thresholds) { excursions.append(row) }
                    guard committed.map({ row.issuedAt > $0 }) ?? true else {
                        rowsToState += 1
                        continue
                    }
                    newRows += 1
                    if row.isAtLimit { atLimit += 1 }
                    if row.isByBaseAlone { byBase += 1 }
                }
            }
        } catch PredictionError.nothingToPredict {
        } catch {
            file.discard()
            throw error
        }
        try file.commit()
        let alerts = AlertEpisode.episodes(in: excursions, thresholds: thresholds, step: spacing.usual(atLeast: models.seriesOptions.step),
                                           glucose: log.glucose)
        // `earlierAlerts`: the episodes earlier runs of the night wrote (all first issued by the
        // state), counted as `earlierRows` is for the predictions.
        let (alertFile, earlierAlerts) = try folder.patientFile(folder.file(folder.alerts, patient),
                                                                header: AlertEpisode.csvHeader(units: units),
                                                                keepingThrough: nightFrom, counting: committed)
        alerts.forEach { alertFile.writeLine($0.csvLine(units: units)) }
        try alertFile.commit()
        // A settings file the audit or the check cannot use (broken, implausible) is a warning of the
        // patient's, who is scored as without one: its state advances with its predictions, so the
        // next night does not score them again.
        if let auditor {
            // The boluses after `nightFrom` (all of them from the first issue moment when there is none).
            let period = DateInterval(start: min(from ?? firstIssued ?? log.glucose[0].time, newest), end: newest)
            let text: String?
            do { text = try auditor(patient, log, models, period) } catch {
                text = nil
                warn(&outcome, message, "\(patient): no dose audit: \(error)")
            }
            if let text {
                let lines = text.split(separator: "\n").map(String.init)
                try folder.updatePatientFile(folder.file(folder.created(folder.doseAudit), patient), header: lines.first ?? "",
                                             keepingThrough: nightFrom, lines: Array(lines.dropFirst()))
            }
        }
        try checkSettings(patient, log, folder: folder, &outcome, message)
        do { try afterPatientFiles?(patient) } catch { throw NightlyInterruption(underlying: error) }
        try store.advanceScoring(for: patient, to: newest, night: settings.night, nightFrom: nightFrom, lastRunID: latestRun)
        // The summary line counts this run's news: the night's readings imported since the state
        // (all after it, for a state of an older build), predictions after the state and those
        // beyond the earlier runs' rows before it, and the episodes the predictions after the
        // state start or extend (such a prediction targets a time after the state plus its horizon)
        // and those first issued by the state beyond the earlier runs' episodes (in a gap an
        // upload filled, as for the predictions).
        outcome.patientsScored += 1
        if state == nil || state?.lastRunID != nil {
            outcome.readingsScored += try store.glucoseCount(for: patient, after: nightFrom, importedAfter: state?.lastRunID)
        } else {
            outcome.readingsScored += log.glucose.reversed().prefix { $0.time > committed! }.count
        }
        outcome.predictions += newRows + max(0, rowsToState - earlierRows)
        outcome.alerts += committed.map { c in
            alerts.count { $0.end.timeIntervalSince(c) > Double($0.horizonMinutes * 60) }
                + max(0, alerts.count { $0.firstIssuedAt <= c } - earlierAlerts)
        } ?? alerts.count
        let runs = SensorLimitDetector().runs(in: log.glucose.filter { committed == nil || $0.time > committed! })
        if !runs.isEmpty {
            outcome.sensorLimits.append((patient, runs))
            message("\(patient): CGM at its limits or flat in \(Plural.of(runs.count, "run")) of the new readings (alerts still raised on them)")
        }
        if atLimit > 0 {
            outcome.modelLimits.append((patient, atLimit))
            message(PredictionRow.atLimitNote(patient, count: atLimit, units: settings.units) + " (alerts still raised on them)")
        }
        if let note = check.note(patient) { message(note) }
        if byBase > 0 {
            outcome.baseAlone.append((patient, byBase))
            message(PredictionRow.baseAloneNote(patient, count: byBase) + " (alerts raised on the ARX's values)")
        }
    }
}

extension NightlyScorer {
    /// Where a patient's rows of the night begin (see `score`): nil when it was never scored.
    static func nightFrom(_ state: ScoringState?, night: String) -> Date? {
        state.flatMap { $0.night == night ? $0.nightFrom : $0.lastScoredAt }
    }

    /// What a night reads of a patient's history: the whole log the first time, else the records
    /// from a day more than the models' and the dose audit's memory before where the night's rows
    /// begin, or than a settings check's weeks (`SettingsEstimator.lookback`) before the newest
    /// reading on a night with one (`PatientLog.since`: the same rows and estimate as from the
    /// whole log, at the cost of the night rather than of the years before it). Also the whole log
    /// when that window holds no reading from before the night (the audit of a bolus then sees how
    /// old the last reading was).
    func history(of patient: PatientID, store: PatientStore, state: ScoringState?, models: ModelSet) throws -> PatientLog {
        guard let from = Self.nightFrom(state, night: settings.night) else {
            return try store.log(for: patient)
        }
        var earliest = from.timeIntervalSince1970 - max(models.memory, auditor == nil ? 0 : DoseAdvisor.memory)
        if checksSettingsTonight, let newest = try store.newestGlucoseTime(for: patient) {
            earliest = min(earliest, newest.timeIntervalSince1970 - SettingsEstimator.lookback())
        }
        let start = (earliest - historyMargin) / 3600
        return try store.log(for: patient, since: Date(timeIntervalSince1970: start.rounded(.down) * 3600), readingBy: from)
    }
}

/// Carries an error of the `afterPatientFiles` hook out of the per-patient error handling.
struct NightlyInterruption: Error {
    var underlying: any Error
}

/// An inbox file that failed to import minutes after its last change: left in the inbox for the next run.
struct StillWritten: Error, CustomStringConvertible {
    var file: String
    var reason: String
    var age: TimeInterval
    var settle: TimeInterval

    var description: String {
        "not imported: \(reason); \(file) changed \(Int(age.rounded())) s ago and may still be being written: "
            + "left in the inbox for the next run (quarantined if it still fails \(Int(settle / 60)) minutes after its last change)"
    }
}
