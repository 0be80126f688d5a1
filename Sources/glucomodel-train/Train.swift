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
        are kept, unfinished ones resume from their checkpoint. --shard i/n trains only every n-th patient \
        (0-based i), for job arrays.
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
    var shard: String = "0/1"

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
        do { _ = try Shard(shard) } catch { throw ValidationError("--shard: \(error)") }
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
        Console.status("Reading \(input.store.map { "store \($0)" } ?? "the data")...")
        let loaded = try loadPatients(try input.source(timeZone: time.zone(), defaultData: ["datasets"]), failurePrefix: "skipped: ")
        let settings = CohortRunSettings(output: URL(fileURLWithPath: out), threads: threadCount,
                                         shard: try Shard(shard), retrain: retrain)
        let trainer = try CohortTrainer(options: options, settings: settings)
        Console.status("Training \(loaded.patients.count) patients (shard \(settings.shard)) at \(options.horizons.map(String.init).joined(separator: ", ")) min; population \(options.evolution.populationSize), \(options.evolution.generations) generations, seed \(seed), \(threadCount) threads")
        let progress = ProgressLine()
        let outcome = trainer.run(loaded.patients) { progress.show($0) }
        progress.end()
        for failure in outcome.failures { Console.warn("\(failure.subject): \(failure.message)") }
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
        print("\nTrained \(outcome.trained.count), reused \(outcome.reused), failed \(outcome.failures.count). Results: \(out)/results.csv; models: \(out)/models/")
        if !outcome.failures.isEmpty && outcome.trained.isEmpty && outcome.reused == 0 { throw ExitCode(1) }
    }
}
