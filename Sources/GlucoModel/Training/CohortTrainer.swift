import Foundation
import GrammarEvolution

/// Where a cohort run writes, and how it shares the machine.
///
/// Layout of `output`:
/// - `models/<patient>/h030.json`: each model (written atomically when it is finished)
/// - `checkpoints/<patient>-h030.json`: the evolutionary run in progress (resumed from); an
///   ensemble's further searches beside it (`<patient>-h030-s2.json`, ...)
/// - `statistics/<patient>-h030.jsonl`: per-generation statistics, one JSON object a line (an
///   ensemble's further searches: `<patient>-h030-s2.jsonl`, ...)
/// - `timings/<patient>-h030.json`: where the time of each trained model went
/// - `predictions/<patient>-h030.csv`: each model's predictions on every scored row
/// - `results.csv`: every model in `models/` (of this run, earlier runs and other shards)
public struct CohortRunSettings: Sendable {
    public var output: URL
    /// Workers training (patient, horizon) jobs at once; with one job left, its evaluation gets them.
    public var threads: Int
    /// The shard this run trains, for messages and its report; the caller picks the shard's
    /// patients (`ShardPick`) and `CohortTrainer.run` trains every patient it is given.
    public var shard: Shard
    /// Retrain models even when a finished one with the same settings exists.
    public var retrain: Bool

    public init(output: URL, threads: Int = 2, shard: Shard = .whole, retrain: Bool = false) {
        self.output = output; self.threads = max(1, threads); self.shard = shard; self.retrain = retrain
    }

    /// What a training run writes directly in `output` (above; with `config.json`, the run's options,
    /// `summary.html`, `shards/`, a job array's reports, and `run.json`, an unsharded run's): no file
    /// it reads may be one of them.
    public static let written = ["models", "checkpoints", "statistics", "timings", "predictions", "results.csv",
                                 "config.json", "summary.html", "shards", "run.json"]

    func modelURL(_ p: PatientID, _ h: Int) -> URL {
        output.appendingPathComponent("models").appendingPathComponent(GlucoseModel.relativePath(patient: p, horizonMinutes: h))
    }
    func jobURL(_ folder: String, _ p: PatientID, _ h: Int, _ ext: String) -> URL {
        output.appendingPathComponent(folder).appendingPathComponent("\(p.rawValue)-h\(String(format: "%03d", h)).\(ext)")
    }
}

/// What a cohort run is doing, for a progress line.
public struct CohortProgress: Sendable {
    public var jobs: Int
    public var finished: Int
    public var reused: Int
    public var failed: Int
    /// Per running job: patient, horizon, the ensemble's search (from 0) of how many, its generation
    /// reached of the generations each search runs, best training error.
    public var running: [String: (search: Int, searches: Int, generation: Int, of: Int, best: Double?)]
    public var elapsedSeconds: Double
    /// Estimated seconds left, from the pace of the jobs finished so far.
    public var remainingSeconds: Double?
}

/// The outcome of a cohort run.
public struct CohortOutcome: Sendable {
    /// Rows of every model in the output folder.
    public var results: [ResultRow]
    public var trained: [(patient: PatientID, horizon: Int, timings: TrainingTimings)]
    public var reused: Int
    /// Models trained again where a finished one with the same options was, and why (`patient h30:
    /// trained again: the data differ ...`).
    public var notes: [String] = []
    /// Per patient (or patient and horizon), why it could not be trained.
    public var failures: [(subject: String, message: String)]
    /// Patients whose CGM has runs at its limits or flat lines (`SensorLimitDetector`), with the runs.
    public var sensorLimits: [(patient: PatientID, runs: [SensorLimitRun])] = []
    /// Models not trained: a failed horizon counts one, a patient that could not be trained at all
    /// counts each of its horizons (so that it reads beside `trained`, which counts models).
    public var failedModels = 0
    /// Why `results.csv` could not be written, if it could not (an unsharded run's earlier one is
    /// removed then: it would read as this one's). Not a patient's failure: not in `failures`, nor
    /// in the run's report, so that `collect` rebuilding the table is a success.
    public var resultsFailure: String?

    /// `subject: message`, or the message alone when it already begins with the subject's patient
    /// (errors such as `TrainingError` name it: "p at 30 min: ...", not "p h30: p at 30 min: ...").
    public static func failureLine(subject: String, message: String) -> String {
        let patient = subject.split(separator: " ").first.map(String.init) ?? subject
        if !patient.isEmpty, message.hasPrefix(patient + ":") || message.hasPrefix(patient + " at ") { return message }
        return "\(subject): \(message)"
    }
}

/// Trains every patient it is given (a cohort, or one shard of it) at every horizon, in parallel,
/// reusing finished models and resuming interrupted ones.
public struct CohortTrainer: Sendable {
    public let options: TrainingOptions
    public let grammar: Grammar
    public let settings: CohortRunSettings

    public init(options: TrainingOptions, settings: CohortRunSettings) throws {
        var options = options
        options.horizons = TrainingOptions.distinct(options.horizons)
        self.options = options
        self.settings = settings
        grammar = try Grammar(text: options.grammar.text, source: options.grammar.name).validated()
        try options.checkEnsemble()
        // A horizon off the series' grid failed every patient, each with a warning (hunt BE, stop 61).
        let step = Int(options.series.step / 60)
        if let off = options.horizons.first(where: { step <= 0 || $0 % step != 0 }) {
            throw TrainingError.horizonNotOnGrid(horizon: off, stepMinutes: step)
        }
        // Each search's parameters, as they run: the elitism is capped to a search's population
        // (`member`), so the smallest population, 2, trains (it stopped on "parameter elitism").
        for k in 0..<options.ensemble { try options.evolution.member(k, of: options.ensemble).validate() }
        let names = options.features(horizonMinutes: options.horizons.first ?? 30, stepMinutes: 5).names
        let unknown = grammar.unknownNames(VariableNames(names))
        if let wrong = Self.lagRangeError(options.grammar, unknown: unknown, glucoseLags: options.glucoseLags, stepMinutes: step) {
            throw wrong
        }
        if !unknown.isEmpty {
            throw TrainingError.grammarUnknownVariables(options.grammar.name, names: unknown.map(\.name),
                                                        lines: unknown.map(\.line), features: names, calls: unknown.map(\.isCall))
        }
        let lags = grammar.lagLines()
        if !lags.isEmpty { throw TrainingError.grammarUsesLag(options.grammar.name, lines: lags) }
        // A grammar none of whose phenotypes could compile (a typographic minus, terms side by
        // side) is refused here, naming its line, rather than training a constant for everyone.
        _ = try Mapper(grammar: grammar, maxDepth: options.evolution.maxDepth)
    }

    /// A rule the grammar's start never reaches (a typo in a rule's name), and a grammar that names
    /// no feature, each as a line naming the grammar and its line: the check found them and nothing
    /// said so (hunt BE, stop 61). (Its other warning, an alternative that is one rule, is a style
    /// the shipped grammars use.)
    public var grammarWarnings: [String] {
        let unreachable = grammar.check().warnings.filter { $0.kind == .unreachableRule }
        // A generated grammar may hold thousands of unused rules: ten lines, and a count (review BG).
        var lines = unreachable.prefix(10).map { "grammar \(options.grammar.name)\($0.line.map { ", line \($0)" } ?? ""): \($0.message)" }
        if unreachable.count > 10 {
            lines.append("grammar \(options.grammar.name): \(unreachable.count - 10) more rules cannot be reached from the start rule")
        }
        let names = options.features(horizonMinutes: options.horizons.first ?? 30, stepMinutes: 5).names
        if !grammar.namesAny(of: VariableNames(names)) {
            lines.append("grammar \(options.grammar.name): names no feature: every evolved expression is a constant, and each model the ARX alone")
        }
        return lines
    }

    /// Trains `patients`, `threads` jobs (a patient at a horizon) at once. A patient's trainer (its
    /// series and splits) is built when its first job starts and released when its last ends, and
    /// its data with it: a run holds the prepared data of the patients in training, not the cohort's.
    public func run(_ patients: consuming [PatientData], progress: (@Sendable (CohortProgress) -> Void)? = nil) -> CohortOutcome {
        // Temporary files of earlier runs killed mid-write (models, checkpoints, tables).
        LeftoverFiles.removeAll(in: settings.output)
        let pool = TrainerPool(patients, horizons: options.horizons.count) { [options, grammar] in
            try PatientTrainer(data: $0, options: options, grammar: grammar)
        }
        let jobs = (0..<pool.count).flatMap { p in options.horizons.map { (p, $0) } }
        let state = RunState(jobs: jobs.count, progress: progress)
        let workers = max(1, min(settings.threads, jobs.count))
        let evaluationThreads = max(1, settings.threads / workers)
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            while let j = state.nextJob() {
                let (p, h) = jobs[j]
                if let trainer = pool.trainer(p) {
                    runJob(trainer, horizon: h, threads: evaluationThreads, state: state)
                } else {
                    state.dropped("\(pool.patient(p)) h\(h)")
                }
                pool.jobEnded(p)
            }
        }
        let failures = pool.failures
        let results = CohortResults.collect(settings.output)
        var tableFailure: String?
        do { try CohortResults.write(results, to: settings.output) } catch {
            // Left, an unsharded run's earlier table and the summary drawn from it would read as this
            // run's (a job array's results.csv is collect's, which another task may have just written).
            var removed = ""
            if settings.shard == .whole {
                for name in ["results.csv", "summary.html"] {
                    let url = settings.output.appendingPathComponent(name)
                    if CohortLoader.isRegularFile(url.path), (try? FileManager.default.removeItem(at: url)) != nil { removed += " \(name)" }
                }
            }
            tableFailure = "\(error)" + (removed.isEmpty ? "" : "; an earlier run's\(removed) removed, so that none reads as this run's")
                + ": once it can be written, glucomodel-train collect --out \(settings.output.path) makes it from the models"
        }
        var outcome = CohortOutcome(results: results, trained: state.trained, reused: state.reusedCount,
                                    failures: failures + state.failures)
        outcome.resultsFailure = tableFailure
        outcome.failedModels = failures.count * options.horizons.count + state.failures.count
        outcome.notes = state.notes
        outcome.sensorLimits = pool.sensorLimits
        return outcome
    }

    private func runJob(_ trainer: PatientTrainer, horizon h: Int, threads: Int, state: RunState) {
        let patient = trainer.data.patient
        let modelURL = settings.modelURL(patient, h)
        let key = "\(patient) h\(h)"
        let companions = [settings.jobURL("timings", patient, h, "json"), settings.jobURL("predictions", patient, h, "csv")]
        if !settings.retrain, let existing = try? GlucoseModel.read(from: modelURL), existing.settings == options.fingerprint {
            // The same options on other data (an export that gained days, a file corrected or
            // added) train the model a fresh run would: its metrics are of today's test days.
            let sameData = existing.data.map { $0 == (try? trainer.dataFingerprint(horizon: h)) } ?? false
            // A model whose predictions or timings file is missing (a run stopped between them,
            // before stop 53 wrote the model first) was reused without them for ever.
            let missing = companions.first { !FileManager.default.fileExists(atPath: $0.path) }
            if sameData, missing == nil {
                state.finish(key, reused: true)
                return
            }
            state.note("\(key): trained again: " + (existing.data == nil
                ? "its model file was written before models recorded their data"
                : !sameData ? "the data differ from those its model was trained on (more days, or files changed)"
                : "its \(missing!.deletingLastPathComponent().lastPathComponent) file is missing (\(missing!.path))"))
        }
        let fm = FileManager.default
        for folder in ["checkpoints", "statistics", "timings", "predictions"] {
            try? fm.createDirectory(at: settings.output.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        let checkpoint = settings.jobURL("checkpoints", patient, h, "json")
        let statistics = settings.jobURL("statistics", patient, h, "jsonl")
        // An ensemble's searches keep theirs beside the first's (`PatientTrainer.searchURL`).
        let searches = 0..<options.ensemble
        if settings.retrain || !fm.fileExists(atPath: checkpoint.path) {
            for k in searches {
                try? fm.removeItem(at: PatientTrainer.searchURL(checkpoint, search: k))
                try? fm.removeItem(at: PatientTrainer.searchURL(statistics, search: k))
            }
        }
        let generations = options.evolution.generations, ensemble = options.ensemble
        do {
            let trained = try trainer.train(horizon: h, threads: threads, checkpoint: checkpoint, statistics: statistics) { k, s in
                state.update(key, search: k, of: ensemble, generation: s.generation, of: generations, best: s.bestFitness)
            }
            // The model file last: it is what marks the job done (a run stopped before it trains
            // the job again, from its checkpoint).
            let timings = try GlucoseModel.encoder.encode(trained.timings)
            try AtomicTextFile.write(timings, to: companions[0])
            try AtomicTextFile.write(Data(trained.predictionsCSV.utf8), to: companions[1])
            try trained.model.write(to: modelURL)
            for k in searches { try? fm.removeItem(at: PatientTrainer.searchURL(checkpoint, search: k)) }
            state.finish(key, trained: (patient, h, trained.timings))
        } catch {
            state.fail(key, "\(error)")
        }
    }
}

/// The results of every model in an output folder, whichever run or shard trained it.
public enum CohortResults {
    /// Every model file under `output/models` that can be read, as result rows (the others are
    /// named by `CohortCompleteness`).
    public static func collect(_ output: URL) -> [ResultRow] {
        modelFiles(output).flatMap { url -> [ResultRow] in
            guard let model = try? GlucoseModel.read(from: url) else { return [] }
            return model.metrics.map { ResultRow(patient: model.patient, horizonMinutes: model.horizonMinutes, metrics: $0) }
        }
    }

    /// The `.json` files under `output/models`, sorted by path.
    static func modelFiles(_ output: URL) -> [URL] {
        let root = output.appendingPathComponent("models")
        guard let e = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { return [] }
        var files: [URL] = []
        while let url = e.nextObject() as? URL {
            if url.pathExtension == "json" { files.append(url) }
        }
        return files.sorted { $0.path < $1.path }
    }

    /// The unit a run's table and summary are in: the `units` its `config.json` records (every
    /// shard's run writes it), mg/dL when there is none (the trainer's default).
    /// - Throws: `InputError` naming `config.json` when it cannot be read.
    public static func units(of output: URL) throws -> GlucoseUnit {
        let config = output.appendingPathComponent("config.json")
        guard FileManager.default.fileExists(atPath: config.path) else { return .mgdL }
        return try TrainingRunConfig.load(config).units ?? .mgdL
    }

    /// Writes `output/results.csv` atomically.
    public static func write(_ rows: [ResultRow], to output: URL) throws {
        try AtomicTextFile.write(Data(ResultsTable.csv(rows).utf8), to: output.appendingPathComponent("results.csv"))
    }
}

/// Each patient's trainer, built by the first of its jobs to ask and released when its last job
/// ends. A patient whose trainer cannot be built (too few days, no glucose) is one failure, named
/// once, whatever its horizons.
final class TrainerPool: @unchecked Sendable {
    private final class Slot: @unchecked Sendable {
        let lock = NSLock()
        let patient: PatientID
        var data: PatientData?
        var trainer: PatientTrainer?
        var failure: String?
        var sensorLimitRuns: [SensorLimitRun] = []
        var jobsLeft: Int
        init(_ data: PatientData, jobs: Int) { patient = data.patient; self.data = data; jobsLeft = jobs }
    }
    private let slots: [Slot]
    private let build: @Sendable (PatientData) throws -> PatientTrainer

    init(_ patients: consuming [PatientData], horizons: Int, build: @escaping @Sendable (PatientData) throws -> PatientTrainer) {
        slots = patients.map { Slot($0, jobs: horizons) }
        self.build = build
    }

    var count: Int { slots.count }

    func patient(_ p: Int) -> PatientID { slots[p].patient }

    /// Patient `p`'s trainer, built on the first call; nil when it could not be built (`failures`).
    func trainer(_ p: Int) -> PatientTrainer? {
        let slot = slots[p]
        return slot.lock.withLock {
            if let data = slot.data {
                slot.data = nil
                do {
                    let trainer = try build(data)
                    slot.trainer = trainer
                    slot.sensorLimitRuns = trainer.sensorLimitRuns
                } catch {
                    slot.failure = "\(error)"
                }
            }
            return slot.trainer
        }
    }

    /// One of patient `p`'s jobs has ended: after the last, its trainer is released.
    func jobEnded(_ p: Int) {
        let slot = slots[p]
        slot.lock.withLock {
            slot.jobsLeft -= 1
            if slot.jobsLeft <= 0 { slot.trainer = nil; slot.data = nil }
        }
    }

    /// The patients whose trainers could not be built, in the order given, with why.
    var failures: [(String, String)] {
        slots.compactMap { slot in slot.lock.withLock { slot.failure.map { (slot.patient.rawValue, $0) } } }
    }

    /// The patients whose CGM has runs at its limits or flat lines, in the order given.
    var sensorLimits: [(patient: PatientID, runs: [SensorLimitRun])] {
        slots.compactMap { slot in slot.lock.withLock { slot.sensorLimitRuns.isEmpty ? nil : (slot.patient, slot.sensorLimitRuns) } }
    }
}

/// Shared, lock-protected bookkeeping of a cohort run.
final class RunState: @unchecked Sendable {
    private let lock = NSLock()
    private let progress: (@Sendable (CohortProgress) -> Void)?
    private let start = Date()
    private var next = 0
    private var snapshot: CohortProgress
    private var trainedSeconds = 0.0
    private var trainedJobs: [(patient: PatientID, horizon: Int, timings: TrainingTimings)] = []
    private var failed: [(String, String)] = []
    private var noted: [String] = []
    private var jobStarts: [String: Date] = [:]

    init(jobs: Int, progress: (@Sendable (CohortProgress) -> Void)?) {
        self.progress = progress
        snapshot = CohortProgress(jobs: jobs, finished: 0, reused: 0, failed: 0, running: [:], elapsedSeconds: 0)
    }

    var reusedCount: Int { lock.withLock { snapshot.reused } }
    /// The jobs trained and the failures so far, read under the lock that the workers write them under.
    var trained: [(patient: PatientID, horizon: Int, timings: TrainingTimings)] { lock.withLock { trainedJobs } }
    var failures: [(String, String)] { lock.withLock { failed } }

    func nextJob() -> Int? {
        lock.withLock {
            guard next < snapshot.jobs else { return nil }
            defer { next += 1 }
            return next
        }
    }

    func update(_ key: String, search: Int, of searches: Int, generation: Int, of total: Int, best: Double?) {
        report {
            if jobStarts[key] == nil { jobStarts[key] = Date() }
            snapshot.running[key] = (search, searches, generation, total, best)
        }
    }

    func finish(_ key: String, reused: Bool = false, trained job: (PatientID, Int, TrainingTimings)? = nil) {
        report {
            snapshot.running[key] = nil
            snapshot.finished += 1
            if reused { snapshot.reused += 1 }
            if let job {
                trainedJobs.append(job)
                trainedSeconds += jobStarts[key].map { Date().timeIntervalSince($0) } ?? 0
            }
        }
    }

    var notes: [String] { lock.withLock { noted.sorted() } }

    func note(_ line: String) { lock.withLock { noted.append(line) } }

    /// A job not run: its patient could not be trained at all (named once, by the caller).
    func dropped(_ key: String) {
        report {
            snapshot.running[key] = nil
            snapshot.finished += 1
            snapshot.failed += 1
        }
    }

    func fail(_ key: String, _ message: String) {
        report {
            snapshot.running[key] = nil
            snapshot.finished += 1
            snapshot.failed += 1
            failed.append((key, message))
        }
    }

    private func report(_ change: () -> Void) {
        let copy: CohortProgress = lock.withLock {
            change()
            snapshot.elapsedSeconds = Date().timeIntervalSince(start)
            let done = trainedJobs.count
            if done > 0 {
                let left = snapshot.jobs - snapshot.finished
                let workers = max(1, snapshot.running.count)
                snapshot.remainingSeconds = trainedSeconds / Double(done) * Double(left) / Double(workers)
            }
            return snapshot
        }
        progress?(copy)
    }
}
