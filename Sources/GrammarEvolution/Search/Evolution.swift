import Foundation

/// Where a run writes its per-generation statistics and checkpoints.
public struct EvolutionOutputs: Sendable {
    /// JSON-lines file, one `GenerationStatistics` per line (emptied by a fresh run; a resumed
    /// one rewrites it with the checkpoint's generations, dropping any written after the
    /// checkpoint, then appends).
    public var statisticsURL: URL?
    /// Checkpoint file, rewritten atomically every `checkpointInterval` generations and at the end.
    public var checkpointURL: URL?
    public var checkpointInterval: Int
    /// What the fitness depends on beyond the grammar and the parameters (its data, the caller's
    /// options), as a fingerprint written into the checkpoint: one written with another context is
    /// not resumed (`EvolutionError.checkpointMismatch`, field `context`).
    public var checkpointContext: String

    public init(statisticsURL: URL? = nil, checkpointURL: URL? = nil, checkpointInterval: Int = 10, checkpointContext: String = "") {
        self.statisticsURL = statisticsURL
        self.checkpointURL = checkpointURL
        self.checkpointInterval = max(1, checkpointInterval)
        self.checkpointContext = checkpointContext
    }
}

/// What a run found.
public struct EvolutionResult: Sendable {
    /// Best individual seen in any generation (smallest error, then smallest program). Invalid
    /// (`program` nil, `fitness` infinite) when no genome ever mapped to a program the fitness
    /// could score, e.g. a grammar whose every phenotype fails to compile.
    public var best: Individual
    /// Non-dominated individuals of the final population on (error, size), distinct programs,
    /// by increasing error. This is the NSGA-II result; it is also filled for tournament runs.
    public var paretoFront: [Individual]
    public var statistics: [GenerationStatistics]
    public var population: [Individual]
    /// How each seed entered the population (empty for resumed runs).
    public var seedOutcomes: [SeedOutcome]
}

/// A grammatical-evolution run. The result is a function of (grammar, data seen by the
/// evaluators, parameters, seeds, `parameters.seed`): every random decision is drawn from one
/// `RandomSource` on the calling thread in a fixed order, and only the evaluator runs in
/// parallel (on `parameters.threads` threads), so the thread count never changes the result.
public final class Evolution {
    public let parameters: EvolutionParameters
    public let outputs: EvolutionOutputs
    public let mapper: Mapper
    let fitness: any FitnessEvaluator
    let validation: (any FitnessEvaluator)?
    let seeds: [Seed]
    let initialiser: TreeInitialiser

    var random: RandomSource
    var population: [Individual] = []
    var generation = 0
    var best: Individual?
    var statistics: [GenerationStatistics] = []
    var seedOutcomes: [SeedOutcome] = []
    var programCache: BoundedCache<Phenotype, Result<Program, InvalidReason>>
    var fitnessCache: BoundedCache<Program, Double>
    var validationCache: [Program: Double] = [:]
    var counters = Counters()

    struct Counters {
        var invalids = 0, hits = 0, evaluations = 0
        var mapping = Duration.zero, variation = Duration.zero, evaluation = Duration.zero
    }

    /// - Parameter variables: the names of the data's columns, as the fitness reads them
    ///   (`DataTable.variableNames` of the table it scores on; `.indexed` reads `x0`, `x1`, ...).
    /// - Throws: `GrammarError.invalid` for a grammar with errors; `EvolutionError.badParameter` or
    ///   `.parameterAboveLimit` for a setting out of range; `EvolutionError.unknownNames` for a
    ///   grammar whose terminals name a variable not among `variables`, or a function the expression
    ///   language lacks (`Grammar.unknownNames`): every phenotype reaching such a name would fail to
    ///   compile, and the run would return a constant or an invalid best.
    public init(grammar: Grammar, variables: VariableNames = .indexed, fitness: any FitnessEvaluator,
                validation: (any FitnessEvaluator)? = nil, parameters: EvolutionParameters = .init(),
                seeds: [Seed] = [], outputs: EvolutionOutputs = .init()) throws {
        try parameters.validate()
        self.parameters = parameters
        self.outputs = outputs
        self.mapper = try Mapper(grammar: grammar, maxWraps: parameters.maxWraps, maxDepth: parameters.maxDepth, variables: variables)
        // A grammar naming `z` on data with only `x` ran and returned a constant (hunt BV). A caller
        // that checks the names first, in its own words, never reaches this.
        let unknown = grammar.unknownNames(variables)
        if !unknown.isEmpty {
            throw EvolutionError.unknownNames(source: grammar.source, names: unknown, variables: variables)
        }
        self.initialiser = TreeInitialiser(mapper: mapper)
        self.fitness = fitness
        self.validation = validation
        self.seeds = seeds
        self.random = RandomSource(seed: parameters.seed)
        self.programCache = BoundedCache(capacity: parameters.cacheCapacity)
        self.fitnessCache = BoundedCache(capacity: parameters.cacheCapacity)
    }

    /// Runs to `parameters.generations` (generation 0 is the initial population), or continues
    /// the run saved in `checkpoint`, which must come from the same grammar and parameters.
    /// - Parameter progress: called after each generation with its statistics.
    public func run(resumingFrom checkpoint: URL? = nil,
                    progress: ((GenerationStatistics) -> Void)? = nil) throws -> EvolutionResult {
        let started = ContinuousClock.now
        var writer: StatisticsWriter? = nil
        if let checkpoint {
            try restore(from: checkpoint)
            if let url = outputs.statisticsURL { writer = try StatisticsWriter(url: url, lines: statistics) }
        } else {
            if let url = outputs.statisticsURL { writer = try StatisticsWriter(url: url, lines: []) }
            try initialise()
            try finishGeneration(started: started, writer: writer, progress: progress)
        }
        while generation < parameters.generations {
            generation += 1
            counters = Counters()
            switch (parameters.selection, parameters.replacement) {
            case (.nsga2, _): nsga2Generation()
            case (.tournament, .generational): generationalStep()
            case (.tournament, .steadyState): steadyStateStep()
            }
            try finishGeneration(started: started, writer: writer, progress: progress)
        }
        return result()
    }

    // MARK: - Initialisation

    func initialise() throws {
        let start = ContinuousClock.now
        for (i, seed) in seeds.prefix(parameters.populationSize).enumerated() {
            switch seed {
            case let .genome(codons):
                population.append(Individual(genome: codons))
                seedOutcomes.append(.genome)
            case let .phenotype(text):
                if let codons = mapper.codons(deriving: text), mapper.map(codons).isValid {
                    population.append(Individual(genome: codons + tail(for: codons.count)))
                    seedOutcomes.append(.derived(codons: codons.count))
                } else {
                    do {
                        let program = try Program(infix: text, variables: mapper.variables)
                        population.append(Individual(fixed: program, text: text))
                        seedOutcomes.append(.fixedProgram)
                    } catch {
                        throw EvolutionError.badSeed(index: i, message: "'\(text)' is neither derivable from the grammar nor a valid expression: \(error)")
                    }
                }
            }
        }
        var seen = Set<Phenotype>()
        var k = 0
        let depths = initialiser.rampDepths(upTo: parameters.maxInitialDepth)
        while population.count < parameters.populationSize {
            var genome: [Genome.Codon] = []
            for attempt in 0..<20 {
                switch parameters.initialisation {
                case .random:
                    genome = (0..<parameters.genomeLength).map { _ in random.codon() }
                case .rampedHalfAndHalf:
                    // A shallow depth has few trees: after repeats, retry one level deeper every 4 tries.
                    let method: TreeInitialiser.Method = k % 2 == 0 ? .grow : .full
                    let depth = min(depths[(k / 2) % depths.count] + attempt / 4, depths.last!)
                    genome = initialiser.genome(method: method, maxDepth: depth, tail: 0, random: &random)
                    genome += tail(for: genome.count)
                }
                let mapped = mapper.derive(genome)
                if let p = mapped.phenotype, seen.insert(p).inserted { break }
            }
            population.append(Individual(genome: genome))
            k += 1
        }
        counters.variation += ContinuousClock.now - start
        express(population.indices)
        evaluate(population.indices)
    }

    func tail(for count: Int) -> [Genome.Codon] {
        let n = Int((Double(count) * parameters.tailFraction).rounded(.up))
        return (0..<n).map { _ in random.codon() }
    }

    // MARK: - Mapping and evaluation

    /// Maps and compiles individuals that have no program yet (through the phenotype cache).
    func express<S: Sequence>(_ indices: S) where S.Element == Int {
        let start = ContinuousClock.now
        for i in indices where !population[i].isFixedSeed && population[i].program == nil {
            let mapped = mapper.derive(population[i].genome)
            population[i].usedCodons = mapped.usedCodons
            population[i].phenotype = mapped.phenotype
            population[i].fitness = .infinity
            guard let phenotype = mapped.phenotype else { counters.invalids += 1; continue }
            let compiled: Result<Program, InvalidReason>
            if let cached = programCache.value(for: phenotype) {
                compiled = cached
            } else {
                compiled = mapper.compile(phenotype)
                programCache.insert(compiled, for: phenotype)
            }
            switch compiled {
            case let .success(program): population[i].program = program
            case .failure: population[i].phenotype = nil; counters.invalids += 1
            }
        }
        counters.mapping += ContinuousClock.now - start
    }

    /// Gives every valid individual its error: from the cache, or one evaluator call for the
    /// distinct uncached programs. Non-finite errors become `.infinity`.
    func evaluate<S: Sequence>(_ indices: S) where S.Element == Int {
        let start = ContinuousClock.now
        var pending: [Program] = []
        var slot: [Program: Int] = [:]
        var waiting: [(individual: Int, slot: Int)] = []
        for i in indices {
            guard let program = population[i].program else { continue }
            if let f = fitnessCache.value(for: program) {
                population[i].fitness = f
                counters.hits += 1
            } else if let s = slot[program] {
                waiting.append((i, s))
                counters.hits += 1
            } else {
                slot[program] = pending.count
                waiting.append((i, pending.count))
                pending.append(program)
            }
        }
        if !pending.isEmpty {
            let errors = fitness.errors(of: pending, threads: parameters.threads).map { $0.isFinite && $0 >= 0 ? $0 : .infinity }
            precondition(errors.count == pending.count, "FitnessEvaluator returned \(errors.count) errors for \(pending.count) programs")
            for (p, e) in zip(pending, errors) { fitnessCache.insert(e, for: p) }
            for w in waiting { population[w.individual].fitness = errors[w.slot] }
            counters.evaluations += pending.count
        }
        counters.evaluation += ContinuousClock.now - start
    }

    // MARK: - Generation steps

    /// Two children from two parents: effective one-point crossover (with probability
    /// `crossoverProbability`), then int-flip mutation of each child's used codons.
    func breed(_ a: Individual, _ b: Individual) -> (Individual, Individual) {
        if a.isFixedSeed || b.isFixedSeed { return (a, b) }
        var g1 = a.genome, g2 = b.genome
        var u1 = a.effectiveLength, u2 = b.effectiveLength
        if random.chance(parameters.crossoverProbability) {
            (g1, g2) = Variation.onePointCrossover(a.genome, usedA: u1, b.genome, usedB: u2, random: &random)
            u1 = min(mapper.derive(g1).usedCodons, g1.count)
            u2 = min(mapper.derive(g2).usedCodons, g2.count)
        }
        Variation.intFlip(&g1, used: u1, probability: parameters.mutationProbability, random: &random)
        Variation.intFlip(&g2, used: u2, probability: parameters.mutationProbability, random: &random)
        return (Individual(genome: g1), Individual(genome: g2))
    }

    func generationalStep() {
        let start = ContinuousClock.now
        let order = population.indices.sorted { Individual.better(population[$0], population[$1]) || (!Individual.better(population[$1], population[$0]) && $0 < $1) }
        var next = order.prefix(parameters.elitism).map { population[$0] }
        let elites = next.count
        while next.count < parameters.populationSize {
            let a = Selection.tournament(population, size: parameters.tournamentSize, random: &random)
            let b = Selection.tournament(population, size: parameters.tournamentSize, random: &random)
            let (c1, c2) = breed(population[a], population[b])
            next.append(c1)
            if next.count < parameters.populationSize { next.append(c2) }
        }
        population = next
        counters.variation += ContinuousClock.now - start
        express(elites..<population.count)
        evaluate(elites..<population.count)
    }

    func steadyStateStep() {
        for _ in 0..<((parameters.populationSize + 1) / 2) {
            let start = ContinuousClock.now
            let a = Selection.tournament(population, size: parameters.tournamentSize, random: &random)
            let b = Selection.tournament(population, size: parameters.tournamentSize, random: &random)
            let (c1, c2) = breed(population[a], population[b])
            counters.variation += ContinuousClock.now - start
            for child in [c1, c2] {
                population.append(child)
                express([population.count - 1])
                evaluate([population.count - 1])
                let newcomer = population.removeLast()
                var worst = 0
                for i in population.indices where !Individual.better(population[i], population[worst]) { worst = i }
                if Individual.better(newcomer, population[worst]) { population[worst] = newcomer }
            }
        }
    }

    static func objectives(_ individuals: [Individual]) -> [[Double]] {
        individuals.map { $0.isValid && $0.fitness.isFinite ? [$0.fitness, Double($0.size)] : [.infinity, .infinity] }
    }

    func nsga2Generation() {
        let start = ContinuousClock.now
        let (rank, crowding) = NSGA2.rankAndCrowding(Self.objectives(population))
        let parents = population
        while population.count < 2 * parameters.populationSize {
            let a = Selection.crowdedTournament(rank: rank, crowding: crowding, random: &random)
            let b = Selection.crowdedTournament(rank: rank, crowding: crowding, random: &random)
            let (c1, c2) = breed(parents[a], parents[b])
            population.append(c1)
            if population.count < 2 * parameters.populationSize { population.append(c2) }
        }
        counters.variation += ContinuousClock.now - start
        express(parents.count..<population.count)
        evaluate(parents.count..<population.count)
        let chosen = NSGA2.select(Self.objectives(population), count: parameters.populationSize)
        population = chosen.sorted().map { population[$0] }
    }
}
