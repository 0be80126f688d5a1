import ArgumentParser
import Foundation
import GlucoModel
import GlucoModelCommandLine
import GrammarEvolution

struct Train: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Train a personal model per patient and horizon, with baselines and results.csv.",
        discussion: """
        DATA are files or folders of patient exports (OhioT1DM XML, GlucoModel CSV, ...), or --store FILE \
        names a store made by import-data. With neither, trains on the bundled datasets/ folder. OhioT1DM \
        pairs (<id>-ws-training.xml / <id>-ws-testing.xml) are tested on the testing file; otherwise the last \
        days are held out. A patient needs 2 days of training data before the validation days (about 4 days \
        of export without a testing file). A run that is stopped can be started again with the same command: finished models \
        are kept, unfinished ones resume from their checkpoint. Another tool's CSV is read with --columns \
        (e.g. time=date,patient=id,glucose=CGM,bolus=insulin,carbs=carbs); one file may hold several patients.

        Experiments: --config FILE.json sets any option below (keys are the long option names, e.g. \
        {"horizons": [30, 60], "population": 200}); the command line wins over the file. Every run writes \
        every option it used, defaults included, to OUT/config.json, so --config OUT/config.json repeats it.

        Job arrays: --shards N trains shard (task id mod N) of N, the task id coming from --task-id, \
        SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX, so 0- and 1-based arrays both work; --shards auto takes \
        the count recorded in --out by an earlier task, else the array's size. --shard i/n trains shard i \
        (0-based). Each task reads only its own patients' files. The first task records N in OUT/shards/count \
        and every later task must use it. Exit status: 0 when every patient trained, 2 when some failed (the \
        others finished), 1 when none could be trained.
        """)

    @Option(help: ArgumentHelp(
        "An experiment file (JSON) giving any of these options; options on the command line take its place.",
        discussion: "Every run writes its resolved options to OUT/config.json: --config OUT/config.json runs it again (docs/formats.md).",
        valueName: "file.json"))
    var config: String?

    @OptionGroup var input: DataArguments

    @Option(help: "Format of every data file (\(ImportFormats.names.joined(separator: ", "))); default: detected from each file's content.")
    var format: String?

    @Option(parsing: .unconditional, help: "Prediction horizons in minutes, comma-separated (default: \(TrainingRunConfig.defaultHorizons.map(String.init).joined(separator: ","))).", transform: HorizonList.read)
    var horizons: HorizonList?

    @Option(help: "Output folder (default: \(TrainingRunConfig.defaultOut)).")
    var out: String?

    // `.unconditional` on the number options: `--seed -1` is a value to refuse by name, not "Missing value".
    @Option(parsing: .unconditional, help: "Population size (default: \(TrainingRunConfig.defaultPopulation)).", transform: WholeArgument.read)
    var population: Int?

    @Option(parsing: .unconditional, help: "Generations (default: \(TrainingRunConfig.defaultGenerations)).", transform: WholeArgument.read)
    var generations: Int?

    @Option(parsing: .unconditional, help: "Most evolved terms per model, fitted jointly by least squares (default: \(TrainingRunConfig.defaultTerms); 1: one expression).", transform: WholeArgument.read)
    var terms: Int?

    @Option(parsing: .unconditional, help: "Independent searches sharing the population, each with its own seed, whose models are averaged (default: \(TrainingRunConfig.defaultEnsemble); 1: one search). The time is that of one search. docs/accuracy.md.", transform: WholeArgument.read)
    var ensemble: Int?

    @Option(help: "Insulin and carbohydrate curves: single (default; the series' own, the linear part's weights free), single-held (the same, the weights held so that a meal never lowers glucose and insulin never raises it), multi (those and the same amounts at several speeds, the weights held) or multi-free (the weights free: closer predictions, but its models do not advise insulin). docs/accuracy.md.")
    var curves: FeatureCurves?

    @Option(name: .customLong("arx-ridge"), parsing: .unconditional, help: "Ridge weight of the ARX fit (the baseline and the evolved model's linear part), per row on standardised features: a number from 0 to 1 (default: \(TrainingRunConfig.defaultARXRidge)) or auto, the one of 1e-3 ... 1e-8 with the lowest RMSE on the validation days. docs/accuracy.md.")
    var arxRidge: String?

    @Option(parsing: .unconditional, help: "Random seed: the same seed gives the same models (default: \(TrainingRunConfig.defaultSeed)).", transform: WholeArgument.read)
    var seed: UInt64?

    @Option(parsing: .unconditional, help: "Threads (default: all cores). Results do not depend on it.", transform: WholeArgument.read)
    var threads: Int?

    @Option(help: "Grammar: a bundled name (glucose-directed, glucose-symbolic) or a .bnf file (default: \(TrainingRunConfig.defaultGrammar)).")
    var grammar: String?

    @Option(help: "Fitness: rmse (default), mae, clarke (zone-weighted RMSE) or nsga2 (RMSE vs size).")
    var fitness: TrainingFitness?

    @Option(help: "Base model the expression corrects: arx (default) or none.")
    var base: ModelBase?

    @Option(help: "Train only shard i of n (0-based), e.g. 0/4.")
    var shard: String?

    @Option(help: "Split the cohort into N shards and train this array task's one (N, or auto).")
    var shards: String?

    @Option(parsing: .unconditional, help: "The array task id for --shards (default: SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX).", transform: WholeArgument.read)
    var taskID: Int?

    @OptionGroup var time: TimeZoneOption

    @Flag(inversion: .prefixedNo, help: "Retrain models that are already finished (default: no).")
    var retrain: Bool?

    @Flag(inversion: .prefixedNo, help: "Train and score on CGM readings at the sensor's limits and flat lines too (default: no, they are left out).")
    var keepSensorLimits: Bool?

    @Flag(inversion: .prefixedNo, help: "Print one row per patient and horizon after the medians (default: no).")
    var perPatient: Bool?

    @OptionGroup var units: GlucoseUnitsOption

    func validate() throws {
        typealias C = TrainingRunConfig
        if let threads, !C.threadsRange.contains(threads) { throw ValidationError("--threads must be \(C.describe(C.threadsRange))") }
        if let population, !C.populationRange.contains(population) { throw ValidationError("--population must be \(C.describe(C.populationRange))") }
        if let generations, !C.generationsRange.contains(generations) { throw ValidationError("--generations must be \(C.describe(C.generationsRange))") }
        if let terms, !C.termsRange.contains(terms) { throw ValidationError("--terms must be \(C.describe(C.termsRange))") }
        if let ensemble, !C.ensembleRange.contains(ensemble) { throw ValidationError("--ensemble must be \(C.describe(C.ensembleRange))") }
        if let arxRidge, ARXRidge(text: arxRidge) == nil { throw ValidationError("--arx-ridge must be auto or a number from 0 to 1") }
        try checkImportFormat(format, option: "--format")
        let run = try runConfig()
        do {
            try TrainingOptions.checkEnsemble(run.ensemble ?? TrainingRunConfig.defaultEnsemble,
                                              population: run.population ?? TrainingRunConfig.defaultPopulation)
        } catch { throw ValidationError("\(error)") }
        _ = try shardRequest(run)
        _ = try importSettings(run)
    }

    /// The options given on the command line (nil where not given).
    func commandLine() throws -> TrainingRunConfig {
        var c = TrainingRunConfig()
        c.data = input.data.isEmpty ? nil : input.data
        c.store = input.store
        c.format = format.map { ImportFormats.named($0)?.formatName ?? $0 }
        c.columns = try input.reading.mapping()?.columns
        c.glucoseUnits = try input.reading.glucoseUnit()
        c.carbUnits = try input.reading.carbUnit()
        c.dateOrder = input.reading.dateOrder
        c.timeZone = time.name
        c.horizons = horizons?.minutes
        c.out = out
        c.population = population
        c.generations = generations
        c.terms = terms
        c.ensemble = ensemble
        c.curves = curves
        c.arxRidge = arxRidge.flatMap(ARXRidge.init(text:))?.text
        c.seed = seed
        c.threads = threads
        c.grammar = grammar
        c.fitness = fitness
        c.base = base
        c.shard = shard
        c.shards = shards
        c.taskID = taskID
        c.retrain = retrain
        c.keepSensorLimits = keepSensorLimits
        c.perPatient = perPatient
        c.units = units.given
        return c
    }

    /// The run's options: `--config`'s file with the command line over it (not yet resolved:
    /// unset options are nil).
    func runConfig() throws -> TrainingRunConfig {
        var file = TrainingRunConfig()
        if let config {
            do { file = try TrainingRunConfig.load(URL(fileURLWithPath: config)) } catch let error as InputError {
                throw ValidationError("--config: \(error)")
            }
        }
        let merged = file.overridden(by: try commandLine())
        if merged.data?.isEmpty == false, merged.store != nil { throw ValidationError("give DATA or --store, not both") }
        if let zone = merged.timeZone {
            do { _ = try TimeArgument.timeZone(named: zone) } catch { throw ValidationError("--time-zone: \(error)") }
        }
        return merged
    }

    /// The import options and format of `c`.
    func importSettings(_ c: TrainingRunConfig) throws -> (options: ImportOptions, format: String?) {
        let mapping: CSVColumnMapping?
        do { mapping = try c.columnMapping() } catch { throw ValidationError("columns: \(error)") }
        // Checked by the rules every command shares; the format stays as given (a mapping reads the files as csv by itself).
        do { _ = try ImportOptions.format(c.format, columns: mapping != nil, glucoseUnits: c.glucoseUnits != nil,
                                                carbUnits: c.carbUnits != nil) } catch {
            throw ValidationError("\(error)")
        }
        var options = ImportOptions(timeZone: try TimeArgument.timeZone(named: c.timeZone))
        options.undecidedDateOrder = c.dateOrder
        options.columns = mapping
        return (options, c.format)
    }

    /// The sharding asked for by shard, shards and task-id of `c` (the command line's, or else the
    /// file's: they are replaced as a group), or the scheduler's environment.
    func shardRequest(_ c: TrainingRunConfig) throws -> ShardRequest {
        if let shard = c.shard {
            guard c.shards == nil, c.taskID == nil else { throw ValidationError("--shard i/n cannot go with --shards or --task-id") }
            do { return .fixed(try Shard(shard)) } catch { throw ValidationError("--shard: \(error)") }
        }
        guard let shards = c.shards else {
            if c.taskID != nil { throw ValidationError("--task-id needs --shards N (or auto)") }
            return .whole
        }
        let count = Int(shards)
        guard shards == "auto" || (count ?? 0) >= 1 else { throw ValidationError("--shards: expected a count of 1 or more, or auto; got '\(shards)'") }
        let task: ArrayTask
        if let taskID = c.taskID {
            guard taskID >= 0 else { throw ValidationError("--task-id must be 0 or more") }
            task = ArrayTask(id: taskID, source: "--task-id")
        } else {
            let found: ArrayTask?
            do { found = try ArrayTask(environment: ProcessInfo.processInfo.environment) } catch { throw ValidationError("--shards: \(error)") }
            guard let found else {
                throw ValidationError("--shards needs the array task id: run as a job array (SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX) or give --task-id")
            }
            task = found
        }
        return .array(task: task, count: count)
    }

    func run() throws {
        let merged = try runConfig()
        var resolved = merged.resolved(machineTimeZone: try TimeArgument.timeZone(named: merged.timeZone))
        let (importOptions, dataFormat) = try importSettings(resolved)
        let out = resolved.out ?? TrainingRunConfig.defaultOut
        let threadCount = resolved.threads ?? ProcessInfo.processInfo.activeProcessorCount
        let keepSensorLimits = resolved.keepSensorLimits ?? false
        let unit = resolved.units ?? .mgdL
        let options = try resolved.trainingOptions()
        if let change = resolved.grammarChange(options.grammar) { Console.warn("--config \(config ?? ""): \(change)") }
        resolved.grammarHash = options.grammar.hash
        let seed = options.evolution.seed
        let defaultData = merged.store == nil && merged.data?.isEmpty ?? true
        if defaultData, !FileManager.default.fileExists(atPath: "datasets") {
            throw ValidationError("no DATA given and no datasets/ folder here: run from the package folder or name the data")
        }
        try checkDataFiles(resolved.data ?? [])
        let output = URL(fileURLWithPath: out)
        var read = ReadFiles(resolved.data ?? [], role: "the data")
        if let store = resolved.store { read.add(store: store) }
        // The files found in data folders too (a folder that cannot be listed is an error when read, below).
        if let files = try? ExportFiles(paths: resolved.data ?? [], options: importOptions).files() { read.add(files) }
        try read.check(outputFolder: output, writing: CohortRunSettings.written, option: "--out")
        let request = try shardRequest(merged)
        let shard: Shard?
        do { shard = try request.resolve(output: output) } catch let error as ValidationError { throw error } catch {
            throw ValidationError("\(error)")
        }
        // A job array's tasks share one config.json: its count, never a task's own shard.
        if case .array = request, let shard { resolved.shards = String(shard.count) }
        var account = RunAccount(shard: shard, output: output, horizons: options.horizons)
        // A task that stops on an error once it has its shard says so in its report (RunAccount.stopped).
        func reporting<T>(_ step: () throws -> T) throws -> T {
            do { return try step() } catch { account.stopped(by: error); throw error }
        }
        // The grammar and options are checked before any data is read (a grammar refused after a
        // cohort's data was: hunt BE, stop 61), and the grammar's warnings shown.
        let settings = CohortRunSettings(output: output, threads: threadCount, shard: shard ?? .whole, retrain: resolved.retrain ?? false)
        let trainer = try reporting { try CohortTrainer(options: options, settings: settings) }
        for line in trainer.grammarWarnings { Console.warn(line) }
        let source = try reporting {
            try patientSource(paths: resolved.data ?? [], store: resolved.store, options: importOptions, format: dataFormat)
        }
        var loaded: LoadedPatients
        if let shard {
            let pick = try reporting { try ShardPick(source, shard: shard) }
            Console.status("Shard \(shard): \(pick.summary)")
            try account.begin(patients: pick.patients)
            let read = try reporting { try pick.load() }
            loaded = read.loaded
            account.record(read.failures.map { .init(subject: $0.subject, message: $0.message) })
        } else {
            Console.status("Reading \(resolved.store.map { "store \($0)" } ?? "the data")...")
            loaded = try source.load()
        }
        reportImportWarnings(loaded.summaries)
        reportUnrecognisedFiles(resolved.data ?? [], options: importOptions, excluding: output)
        account.record(loaded.failures.map { .init(subject: "skipped file", message: "\($0)") })
        // No data at all: nothing is written, so an earlier run's config.json, results.csv and
        // summary in the same folder stay as they were (a shard with no patients of its own
        // is another matter: its task has nothing to do, and says so in its report).
        if shard == nil, loaded.patients.isEmpty {
            for failure in account.failures { Console.failed(CohortOutcome.failureLine(subject: failure.subject, message: failure.message)) }
            Console.write("Error: no patient data in \(resolved.store ?? (resolved.data ?? []).joined(separator: ", ")): nothing trained, nothing written to \(out)")
            throw ExitCode(RunStatus.failure.rawValue)
        }
        try reporting {
            try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
            try resolved.write(to: output.appendingPathComponent("config.json"))
        }
        // An unsharded run keeps its own account too (run.json): what it could not train, and why.
        if shard == nil { try account.begin(patients: loaded.patients.map(\.patient)) }
        Console.status("Training \(Plural.of(loaded.patients.count, "patient"))\(shard.map { " (shard \($0))" } ?? "") at \(options.horizons.map(String.init).joined(separator: ", ")) min; population \(options.evolution.populationSize)\(options.ensemble > 1 ? " shared by \(options.ensemble) searches" : ""), \(Plural.of(options.evolution.generations, "generation")), seed \(seed), \(Plural.of(threadCount, "thread"))")
        let progress = ProgressLine()
        // The trainer holds each patient's data until its models are trained, and no longer.
        let patients = loaded.patients
        loaded.patients = []
        let outcome = trainer.run(consume patients) { progress.show($0) }
        progress.end()
        account.record(outcome.failures.map { .init(subject: $0.subject, message: $0.message) })
        for note in outcome.notes { Console.status(note) }
        for failure in account.failures { Console.failed(CohortOutcome.failureLine(subject: failure.subject, message: failure.message)) }
        try account.finish()
        // results.csv holds every model of the folder: say which it could not read, or which came
        // from an earlier run with other options (a sharded run's are for `collect`, once all ran).
        if shard == nil, let check = try? CohortCompleteness.check(output, current: options.fingerprint) {
            for line in check.modelLines + check.shardLines { Console.warn(line) }
        }
        print(ResultsTable.summary(outcome.results, units: unit))
        if resolved.perPatient ?? false { print("\n" + ResultsTable.perPatient(outcome.results, units: unit)) }
        if let line = ResultsTable.unscoredLine(outcome.results) { print(line) }
        for line in ResultsTable.sensorLimitLines(outcome.sensorLimits, kept: keepSensorLimits) { print(line) }
        // Only a folder holding models has something to summarise: a run that trained nothing
        // and found no earlier models writes no summary, and says nothing about it.
        if let failure = outcome.resultsFailure { Console.warn("results.csv: \(failure)") }
        if !outcome.results.isEmpty, outcome.resultsFailure == nil { writeResearchSummary(output, units: unit) }
        let failures = account.failures
        let skipped = failures.count - outcome.failures.count
        print("\nModels: trained \(outcome.trained.count), reused \(outcome.reused), failed \(outcome.failedModels)"
              + (skipped > 0 ? "; files skipped \(skipped)" : "")
              + (outcome.resultsFailure == nil ? ". Results: \(out)/results.csv" : ". Results: not written (above)")
              + "; models: \(out)/models/; options: \(out)/config.json")
        // 0 all trained; 2 partial (some patients or files failed, the others finished); 1 nothing
        // trained (also no data at all). A scheduler's afterok sees either failure.
        // A shard task with no patients of its own (more tasks than patients) has nothing to do: success.
        if shard != nil, account.patients.isEmpty, failures.isEmpty { return }
        let status = RunStatus.of(done: outcome.trained.count + outcome.reused, failed: failures.count + (outcome.resultsFailure == nil ? 0 : 1))
        if status != .success { throw ExitCode(status.rawValue) }
    }
}

/// Writes `summary.html` from every model in `output` (the trainer's last step, and `collect`'s),
/// saying where; a summary that cannot be made is a warning, not a failure of the run.
func writeResearchSummary(_ output: URL, units: GlucoseUnit) {
    let summaryURL = output.appendingPathComponent("summary.html")
    Console.status("Writing the research summary...")
    do {
        try ResearchSummary.load(output, units: units).write(to: summaryURL)
        print("Research summary: \(summaryURL.path)")
    } catch {
        Console.warn("no research summary: \(error)")
    }
}
