import ArgumentParser
import Foundation
import GlucoModel
import GrammarEvolution

struct Train: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Train a personal model per patient and horizon, with baselines and results.csv.",
        discussion: """
        DATA are files or folders of patient exports (OhioT1DM XML, GlucoModel CSV, ...). With no DATA,
        trains on the bundled datasets/ folder. OhioT1DM pairs (<id>-ws-training.xml / <id>-ws-testing.xml)
        are tested on the testing file; otherwise the last days are held out. A run that is stopped can be
        started again with the same command: finished models are kept, unfinished ones resume from their
        checkpoint. --shard i/n trains only every n-th patient (0-based i), for job arrays.
        """)

    @Argument(help: "Data files or folders (default: datasets/).")
    var data: [String] = []

    @Option(help: "Prediction horizons in minutes, comma-separated.")
    var horizons: String = "30,60,90,120"

    @Option(help: "Output folder.")
    var out: String = "out/train"

    @Option(help: "Population size.")
    var population: Int?

    @Option(help: "Generations.")
    var generations: Int?

    @Option(help: "Random seed: the same seed gives the same models.")
    var seed: UInt64 = 1

    @Option(help: "Threads (default: all cores). Results do not depend on it.")
    var threads: Int = ProcessInfo.processInfo.activeProcessorCount

    @Option(help: "Grammar: a bundled name (glucose-directed, glucose-symbolic) or a .bnf file.")
    var grammar: String = "glucose-symbolic"

    @Option(help: "Fitness: rmse, mae, clarke (zone-weighted RMSE) or nsga2 (RMSE vs size).")
    var fitness: TrainingFitness = .rmse

    @Option(help: "Base model the expression corrects: arx or none.")
    var base: ModelBase = .arx

    @Option(help: "Train only shard i of n (0-based), e.g. 0/4.")
    var shard: String = "0/1"

    @Option(help: "Time zone of local times without an offset in the data (default: this machine's).")
    var timeZone: String?

    @Flag(help: "Retrain models that are already finished.")
    var retrain = false

    @Flag(help: "Train and score on CGM readings at the sensor's limits and flat lines too (left out by default).")
    var keepSensorLimits = false

    func validate() throws {
        guard (try? parsedHorizons()) != nil else { throw ValidationError("--horizons: expected minutes like 30,60,90,120") }
        guard threads >= 1 else { throw ValidationError("--threads must be at least 1") }
        if let population, population < 2 { throw ValidationError("--population must be at least 2") }
        if let generations, generations < 0 { throw ValidationError("--generations must be 0 or more") }
        _ = try timeZoneOption(timeZone)
        do { _ = try Shard(shard) } catch { throw ValidationError("--shard: \(error)") }
    }

    func parsedHorizons() throws -> [Int] {
        let values = horizons.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !values.isEmpty, values.allSatisfy({ ($0 ?? 0) > 0 }) else { throw ValidationError("bad horizons") }
        return values.map { $0! }
    }

    func run() throws {
        var options = TrainingOptions(grammar: try GrammarSource.load(grammar))
        options.horizons = try parsedHorizons()
        options.fitness = fitness
        options.base = base
        options.evolution.seed = seed
        options.keepSensorLimits = keepSensorLimits
        if let population { options.evolution.populationSize = population }
        if let generations { options.evolution.generations = generations }
        let paths = data.isEmpty ? ["datasets"] : data
        if data.isEmpty, !FileManager.default.fileExists(atPath: "datasets") {
            throw ValidationError("no DATA given and no datasets/ folder here: run from the package folder or name the data")
        }
        let files = try CohortLoader.files(paths)
        let importOptions = ImportOptions(timeZone: try timeZoneOption(timeZone))
        Console.status("Reading \(files.count) files...")
        let loaded = CohortLoader.load(files, options: importOptions)
        for failure in loaded.failures { Console.warn("skipped: \(failure)") }
        let settings = CohortRunSettings(output: URL(fileURLWithPath: out), threads: threads,
                                         shard: try Shard(shard), retrain: retrain)
        let trainer = try CohortTrainer(options: options, settings: settings)
        Console.status("Training \(loaded.patients.count) patients (shard \(settings.shard)) at \(options.horizons.map(String.init).joined(separator: ", ")) min; population \(options.evolution.populationSize), \(options.evolution.generations) generations, seed \(seed), \(threads) threads")
        let progress = ProgressLine()
        let outcome = trainer.run(loaded.patients) { progress.show($0) }
        progress.end()
        for failure in outcome.failures { Console.warn("\(failure.subject): \(failure.message)") }
        print(ResultsTable.summary(outcome.results))
        for line in ResultsTable.sensorLimitLines(outcome.sensorLimits, kept: keepSensorLimits) { print(line) }
        print("\nTrained \(outcome.trained.count), reused \(outcome.reused), failed \(outcome.failures.count). Results: \(out)/results.csv; models: \(out)/models/")
        if !outcome.failures.isEmpty && outcome.trained.isEmpty && outcome.reused == 0 { throw ExitCode(1) }
    }
}

extension TrainingFitness: ExpressibleByArgument {}
extension ModelBase: ExpressibleByArgument {}
