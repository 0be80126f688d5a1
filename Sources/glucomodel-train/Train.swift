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
        days are held out. A run that is stopped can be started again with the same command: finished models \
        are kept, unfinished ones resume from their checkpoint.

        Job arrays: --shards N trains shard (task id mod N) of N, the task id coming from --task-id, \
        SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX, so 0- and 1-based arrays both work; --shards auto takes \
        the count recorded in --out by an earlier task, else the array's size. --shard i/n trains shard i \
        (0-based). Each task reads only its own patients' files. The first task records N in OUT/shards/count \
        and every later task must use it. Exit status: 0 when every patient trained, 2 when some failed (the \
        others finished), 1 when none could be trained.
        """)

    @OptionGroup var input: DataArguments

    @Option(help: "Prediction horizons in minutes, comma-separated.")
    var horizons = HorizonList([30, 60, 90, 120])

    @Option(help: "Output folder.")
    var out: String = "out/train"

    @Option(help: "Population size.")
    var population: Int?

    @Option(help: "Generations.")
    var generations: Int?

    @Option(help: "Random seed: the same seed gives the same models.")
    var seed: UInt64 = 1

    @Option(help: "Threads (default: all cores). Results do not depend on it.")
    var threads: Int?

    /// `--threads`, or every core of this machine.
    var threadCount: Int { threads ?? ProcessInfo.processInfo.activeProcessorCount }

    @Option(help: "Grammar: a bundled name (glucose-directed, glucose-symbolic) or a .bnf file.")
    var grammar: String = "glucose-symbolic"

    @Option(help: "Fitness: rmse, mae, clarke (zone-weighted RMSE) or nsga2 (RMSE vs size).")
    var fitness: TrainingFitness = .rmse

    @Option(help: "Base model the expression corrects: arx or none.")
    var base: ModelBase = .arx

    @Option(help: "Train only shard i of n (0-based), e.g. 0/4.")
    var shard: String?

    @Option(help: "Split the cohort into N shards and train this array task's one (N, or auto).")
    var shards: String?

    @Option(help: "The array task id for --shards (default: SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX).")
    var taskID: Int?

    @OptionGroup var time: TimeZoneOption

    @Flag(help: "Retrain models that are already finished.")
    var retrain = false

    @Flag(help: "Train and score on CGM readings at the sensor's limits and flat lines too (left out by default).")
    var keepSensorLimits = false

    @Flag(help: "Print one row per patient and horizon after the medians.")
    var perPatient = false

    @OptionGroup var units: GlucoseUnitsOption

    func validate() throws {
        if let threads, threads < 1 { throw ValidationError("--threads must be at least 1") }
        if let population, population < 2 { throw ValidationError("--population must be at least 2") }
        if let generations, generations < 0 { throw ValidationError("--generations must be 0 or more") }
        _ = try shardRequest()
    }

    /// The sharding asked for by --shard, --shards and --task-id (or the scheduler's environment).
    func shardRequest() throws -> ShardRequest {
        if let shard {
            guard shards == nil, taskID == nil else { throw ValidationError("--shard i/n cannot go with --shards or --task-id") }
            do { return .fixed(try Shard(shard)) } catch { throw ValidationError("--shard: \(error)") }
        }
        guard let shards else {
            if taskID != nil { throw ValidationError("--task-id needs --shards N (or auto)") }
            return .whole
        }
        let count = Int(shards)
        guard shards == "auto" || (count ?? 0) >= 1 else { throw ValidationError("--shards: expected a count of 1 or more, or auto; got '\(shards)'") }
        let task: ArrayTask
        if let taskID {
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
        var options = TrainingOptions(grammar: try GrammarSource.load(grammar))
        options.horizons = horizons.minutes
        options.fitness = fitness
        options.base = base
        options.evolution.seed = seed
        options.keepSensorLimits = keepSensorLimits
        if let population { options.evolution.populationSize = population }
        if let generations { options.evolution.generations = generations }
        if input.data.isEmpty, input.store == nil, !FileManager.default.fileExists(atPath: "datasets") {
            throw ValidationError("no DATA given and no datasets/ folder here: run from the package folder or name the data")
        }
        let output = URL(fileURLWithPath: out)
        let shard: Shard?
        do { shard = try shardRequest().resolve(output: output) } catch let error as ValidationError { throw error } catch {
            throw ValidationError("\(error)")
        }
        let source = try input.source(timeZone: time.zone(), defaultData: ["datasets"])
        var failures: [(subject: String, message: String)] = []
        let loaded: LoadedPatients
        var shardPatients: [PatientID] = []
        if let shard {
            let pick = try ShardPick(source, shard: shard)
            Console.status("Shard \(shard): \(pick.summary)")
            try ShardLedger.write(ShardReport(shard: shard, patients: pick.patients, horizons: options.horizons), in: output)
            let read = try pick.load()
            shardPatients = pick.patients
            loaded = read.loaded
            failures += read.failures
        } else {
            Console.status("Reading \(input.store.map { "store \($0)" } ?? "the data")...")
            loaded = try source.load()
        }
        failures += loaded.failures.map { (subject: "skipped file", message: "\($0)") }
        let settings = CohortRunSettings(output: output, threads: threadCount, shard: shard ?? .whole, retrain: retrain)
        let trainer = try CohortTrainer(options: options, settings: settings)
        Console.status("Training \(loaded.patients.count) patients (shard \(settings.shard)) at \(options.horizons.map(String.init).joined(separator: ", ")) min; population \(options.evolution.populationSize), \(options.evolution.generations) generations, seed \(seed), \(threadCount) threads")
        let progress = ProgressLine()
        let outcome = trainer.run(loaded.patients) { progress.show($0) }
        progress.end()
        failures += outcome.failures
        for failure in failures { Console.warn("\(failure.subject): \(failure.message)") }
        if let shard {
            try ShardLedger.write(ShardReport(shard: shard, patients: shardPatients, horizons: options.horizons,
                                              failures: failures.map { .init(subject: $0.subject, message: $0.message) },
                                              finished: true), in: output)
        }
        print(ResultsTable.summary(outcome.results))
        if perPatient { print("\n" + ResultsTable.perPatient(outcome.results)) }
        for line in ResultsTable.sensorLimitLines(outcome.sensorLimits, kept: keepSensorLimits) { print(line) }
        let summaryURL = URL(fileURLWithPath: out).appendingPathComponent("summary.html")
        do {
            try ResearchSummary.load(URL(fileURLWithPath: out), units: units.unit).write(to: summaryURL)
            print("Research summary: \(summaryURL.path)")
        } catch {
            Console.warn("no research summary: \(error)")
        }
        print("\nTrained \(outcome.trained.count), reused \(outcome.reused), failed \(failures.count). Results: \(out)/results.csv; models: \(out)/models/")
        if loaded.patients.isEmpty {
            Console.warn("no patient data in \(input.store ?? (input.data.isEmpty ? "datasets" : input.data.joined(separator: ", ")))")
        }
        // 0 all trained; 2 partial (some patients or files failed, the others finished); 1 nothing
        // trained (also no data at all). A scheduler's afterok sees either failure.
        // A shard task with no patients of its own (more tasks than patients) has nothing to do: success.
        if shard != nil, shardPatients.isEmpty, failures.isEmpty { return }
        let status = RunStatus.of(done: outcome.trained.count + outcome.reused, failed: failures.count)
        if status != .success { throw ExitCode(status.rawValue) }
    }
}
