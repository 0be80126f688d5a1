import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The JSON checkpoint: everything a run needs to continue exactly where it stopped.
/// Random-state words are hex strings (JSON numbers lose 64-bit precision); an infinite
/// (invalid) fitness is `null`.
struct CheckpointFile: Codable {
    struct Saved: Codable {
        var genome: [Genome.Codon]
        var fitness: Double?
        /// Set for fixed seed programs (which have no genome).
        var fixedProgram: Program?
        var fixedText: String?
    }

    var format = "GrammarEvolution checkpoint"
    var version = 1
    var grammarFingerprint: String
    var parametersFingerprint: String
    /// `EvolutionOutputs.checkpointContext` (absent in older checkpoints: read as "").
    var context: String?
    var generation: Int
    var random: [String]
    var population: [Saved]
    var best: Saved?
    var statistics: [GenerationStatistics]
}

extension Evolution {
    /// Writes the current state to `url` atomically (a temporary file renamed over the target).
    public func writeCheckpoint(to url: URL) throws {
        func save(_ i: Individual) -> CheckpointFile.Saved {
            .init(genome: i.genome, fitness: i.fitness.isFinite ? i.fitness : nil,
                  fixedProgram: i.isFixedSeed ? i.program : nil, fixedText: i.isFixedSeed ? i.text : nil)
        }
        let file = CheckpointFile(
            grammarFingerprint: mapper.grammar.fingerprint, parametersFingerprint: parameters.fingerprint,
            context: outputs.checkpointContext, generation: generation, random: random.state.map { String($0, radix: 16) },
            population: population.map(save), best: best.map(save), statistics: statistics)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data: Data
        do { data = try encoder.encode(file) } catch {
            throw EvolutionError.cannotWrite(path: url.path, reason: SystemErrorText.reason(error))
        }
        try Self.replace(url, with: data)
    }

    /// Writes `data` to a temporary file beside `url` and renames it over `url`: a kill leaves the
    /// old file or the new one, never part of either (checkpoints and statistics files).
    static func replace(_ url: URL, with data: Data) throws {
        // With the process id: two runs into one folder (a job resubmitted while the first runs)
        // renamed each other's file away (hunt J, stop 52).
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(getpid()).tmp")
        do {
            try data.write(to: temporary)
        } catch {
            throw EvolutionError.cannotWrite(path: temporary.path, reason: SystemErrorText.reason(error))
        }
        guard rename(temporary.path, url.path) == 0 else {
            throw EvolutionError.cannotWrite(path: url.path, reason: String(cString: strerror(errno)))
        }
    }

    func restore(from url: URL) throws {
        let file: CheckpointFile
        do {
            file = try JSONDecoder().decode(CheckpointFile.self, from: Data(contentsOf: url))
        } catch {
            throw EvolutionError.checkpointUnreadable(path: url.path, reason: "\(error)")
        }
        guard file.version == 1 else {
            throw EvolutionError.checkpointUnreadable(path: url.path, reason: "format version \(file.version), expected 1")
        }
        if file.grammarFingerprint != mapper.grammar.fingerprint {
            throw EvolutionError.checkpointMismatch(path: url.path, field: "grammar", checkpoint: file.grammarFingerprint, current: mapper.grammar.fingerprint)
        }
        if file.parametersFingerprint != parameters.fingerprint {
            throw EvolutionError.checkpointMismatch(path: url.path, field: "parameters", checkpoint: file.parametersFingerprint, current: parameters.fingerprint)
        }
        if file.context ?? "" != outputs.checkpointContext {
            throw EvolutionError.checkpointMismatch(path: url.path, field: "context", checkpoint: file.context ?? "",
                                                    current: outputs.checkpointContext)
        }
        // A run of fewer generations than the checkpoint's is another run (it would have stopped earlier).
        if file.generation > parameters.generations {
            throw EvolutionError.checkpointMismatch(path: url.path, field: "generation", checkpoint: "\(file.generation)",
                                                    current: "at most \(parameters.generations)")
        }
        guard let state = RandomSource(state: file.random.compactMap { UInt64($0, radix: 16) }) else {
            throw EvolutionError.checkpointUnreadable(path: url.path, reason: "field 'random': expected four hex words, not all zero")
        }
        guard file.population.count == parameters.populationSize else {
            throw EvolutionError.checkpointUnreadable(path: url.path, reason: "field 'population': \(file.population.count) individuals, expected \(parameters.populationSize)")
        }
        random = state
        generation = file.generation
        statistics = file.statistics
        func load(_ s: CheckpointFile.Saved) -> Individual {
            var i: Individual
            if let program = s.fixedProgram {
                i = Individual(fixed: program, text: s.fixedText ?? program.infix(mapper.variables))
            } else {
                i = Individual(genome: s.genome)
                let mapped = mapper.map(s.genome)
                i.usedCodons = mapped.usedCodons
                i.phenotype = mapped.program == nil ? nil : mapped.phenotype
                i.program = mapped.program
            }
            i.fitness = s.fitness ?? .infinity
            return i
        }
        population = file.population.map(load)
        best = file.best.map(load)
    }

    // MARK: - Bookkeeping after each generation

    func finishGeneration(started: ContinuousClock.Instant, writer: StatisticsWriter?,
                          progress: ((GenerationStatistics) -> Void)?) throws {
        let order = population.indices.sorted { Individual.better(population[$0], population[$1]) || (!Individual.better(population[$1], population[$0]) && $0 < $1) }
        let top = population[order[0]]
        if best == nil || Individual.better(top, best!) { best = top }
        let fitnesses = order.map { population[$0].fitness }
        let valid = population.filter(\.isValid)
        var validationError: Double? = nil
        if let validation, let program = top.program {
            if let cached = validationCache[program] {
                validationError = cached
            } else {
                let e = validation.errors(of: [program], threads: parameters.threads)[0]
                validationCache[program] = e
                validationError = e
            }
        }
        func finite(_ x: Double?) -> Double? { x.flatMap { $0.isFinite ? $0 : nil } }
        func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18 }
        let stats = GenerationStatistics(
            generation: generation,
            bestFitness: finite(fitnesses.first),
            medianFitness: finite(fitnesses[fitnesses.count / 2]),
            bestValidationFitness: finite(validationError),
            bestSize: top.isValid ? top.size : nil,
            meanSize: valid.isEmpty ? nil : Double(valid.reduce(0) { $0 + $1.size }) / Double(valid.count),
            invalids: counters.invalids, cacheHits: counters.hits, evaluations: counters.evaluations,
            uniquePhenotypes: Set(population.compactMap(\.program)).count,
            elapsedSeconds: seconds(ContinuousClock.now - started),
            mappingSeconds: seconds(counters.mapping), variationSeconds: seconds(counters.variation),
            evaluationSeconds: seconds(counters.evaluation))
        statistics.append(stats)
        try writer?.append(stats)
        progress?(stats)
        if let url = outputs.checkpointURL,
           generation % outputs.checkpointInterval == 0 || generation == parameters.generations {
            try writeCheckpoint(to: url)
        }
    }

    func result() -> EvolutionResult {
        func described(_ i: Individual) -> Individual {
            var i = i
            if i.text == nil, let p = i.phenotype { i.text = mapper.text(of: p) }
            return i
        }
        let front = NSGA2.fronts(Self.objectives(population)).first ?? []
        var seen = Set<Program>()
        let pareto = front.map { population[$0] }
            .filter { $0.isValid && $0.fitness.isFinite }
            .sorted(by: Individual.better)
            .filter { seen.insert($0.program!).inserted }
            .map(described)
        return EvolutionResult(best: described(best ?? population[0]), paretoFront: pareto,
                               statistics: statistics, population: population, seedOutcomes: seedOutcomes)
    }
}
