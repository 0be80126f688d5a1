/// Settings of a GE run. Defaults follow the glUCModel research settings (population 200,
/// one-point crossover 0.75, per-codon mutation 0.15, 300 codons, 5 wraps; EUROCAST 2017)
/// except for a modest default of 50 generations.
public struct EvolutionParameters: Sendable, Codable, Equatable {
    public enum Initialisation: String, Sendable, Codable {
        /// Genomes of `genomeLength` uniform random codons (invalid individuals are redrawn).
        case random
        /// Ramped half-and-half (grow/full) derivation trees with depths from the start rule's
        /// minimum depth to `maxInitialDepth`; duplicate phenotypes are redrawn (a few tries).
        case rampedHalfAndHalf
    }

    public enum Selection: String, Sendable, Codable {
        /// Tournament on the error (ties broken by smaller size).
        case tournament
        /// NSGA-II (Deb et al. 2002) on (error, size): crowded binary tournaments for parents,
        /// (µ + λ) survival by non-dominated rank then crowding distance.
        case nsga2
    }

    public enum Replacement: String, Sendable, Codable {
        /// The offspring replace the population, except `elitism` best individuals.
        case generational
        /// Each child replaces the current worst individual when it is better; a generation is
        /// `populationSize` children. (Ignored by NSGA-II, which is always (µ + λ).)
        case steadyState
    }

    public var populationSize = 200
    public var generations = 50
    /// Probability that a pair of parents is recombined by effective one-point crossover.
    public var crossoverProbability = 0.75
    /// Probability that each *used* codon of a child is replaced by a random codon (int-flip).
    /// With ~30 used codons the default 0.15 changes about 4-5 codons per child.
    public var mutationProbability = 0.15
    /// Individuals drawn (with replacement) for each tournament; at most `maximumTournamentSize`.
    public var tournamentSize = 3
    /// Best individuals copied unchanged into the next generation (generational replacement).
    public var elitism = 2
    public var initialisation = Initialisation.rampedHalfAndHalf
    /// Codons per genome for random initialisation; at most `maximumGenomeLength`.
    public var genomeLength = 300
    /// Deepest derivation tree built by sensible initialisation; at most `maxDepth` and
    /// `maximumInitialDepth`.
    public var maxInitialDepth = 6
    /// Random codons appended after the recorded choices of a sensible genome, as a fraction of
    /// them (0 to 100).
    public var tailFraction = 0.5
    public var maxWraps = 5
    /// Deepest derivation tree (rule nodes) a genome may map to; deeper is invalid. At most
    /// `maximumDepth`.
    public var maxDepth = 17
    public var selection = Selection.tournament
    public var replacement = Replacement.generational
    public var seed: UInt64 = 1
    /// Threads given to the fitness evaluator. Does not change results.
    public var threads = 1
    /// Most entries kept in the fitness cache (least recently used dropped). Does not change results.
    public var cacheCapacity = 100_000

    public init() {}

    // Upper limits (hunt BV). Each lies far above any setting in use, and stops a value that would
    // take the machine's memory or time without a word: a run with such a value died out of memory
    // or seemed to hang.

    /// The largest `maxDepth`: 256, fifteen times Koza's classic 17 (this engine's default) and
    /// above PonyGE2's default of 90. The depth limits a derivation; a deeper program is beyond any
    /// use (and a phenotype nested deeper than `Program.maximumNesting`, 256, fails to compile).
    public static let maximumDepth = 256
    /// The largest `maxInitialDepth`: 20, against 6 here and in Koza's ramped half-and-half and
    /// PonyGE2's default of 10. A "full" tree of a grammar whose rules branch in two doubles with
    /// each level: a population of 50 such trees took 0.13 s and 51 MB at depth 17, 42 s and 6.2 GB at
    /// depth 25, and ran out of memory beyond. At 20 a full tree of such a grammar has over a million
    /// codons (8 times depth 17: some 400 MB for those 50 trees), and a grammar whose rules branch
    /// wider grows faster still: the limit stops the runaway values, not every costly one.
    public static let maximumInitialDepth = 20
    /// The largest `tournamentSize`: 1000, against 3 by default and the 2 to 7 of the literature
    /// (Koza: 7). Each selection draws `tournamentSize` individuals (with replacement), so a
    /// tournament far larger than the population only picks the best, at that cost: 10⁹ draws per
    /// selection seemed to hang.
    public static let maximumTournamentSize = 1000
    /// The largest `genomeLength`: 100,000 codons, against 300 here (glUCModel) and 200 in PonyGE2.
    /// Random initialisation draws and keeps `populationSize × genomeLength` codons.
    public static let maximumGenomeLength = 100_000

    /// Throws `EvolutionError.badParameter` when a setting is out of range, and
    /// `EvolutionError.parameterAboveLimit` when it is above its upper limit (`maximumDepth`,
    /// `maximumInitialDepth`, `maximumTournamentSize`, `maximumGenomeLength`).
    public func validate() throws {
        func check(_ ok: Bool, _ field: String, _ expected: String) throws {
            if !ok { throw EvolutionError.badParameter(field: field, expected: expected) }
        }
        func limit(_ value: Int, _ field: String, _ maximum: Int) throws {
            if value > maximum { throw EvolutionError.parameterAboveLimit(field: field, value: value, limit: maximum) }
        }
        try check(populationSize >= 2, "populationSize", "at least 2")
        try check(generations >= 0, "generations", "0 or more")
        try check((0...1).contains(crossoverProbability), "crossoverProbability", "a probability in [0, 1]")
        try check((0...1).contains(mutationProbability), "mutationProbability", "a probability in [0, 1]")
        try check(tournamentSize >= 1, "tournamentSize", "at least 1")
        try check(elitism >= 0 && elitism < populationSize, "elitism", "0 up to populationSize - 1")
        try check(genomeLength >= 1, "genomeLength", "at least 1")
        try check(maxInitialDepth >= 1 && maxInitialDepth <= maxDepth, "maxInitialDepth", "between 1 and maxDepth")
        // The tail is `tailFraction` times the recorded codons, made as an Int.
        try check(tailFraction >= 0 && tailFraction <= 100, "tailFraction", "between 0 and 100")
        try check(maxWraps >= 0, "maxWraps", "0 or more")
        try check(maxDepth >= 1, "maxDepth", "at least 1")
        try check(threads >= 1, "threads", "at least 1")
        try check(cacheCapacity >= 0, "cacheCapacity", "0 or more")
        try limit(tournamentSize, "tournamentSize", Self.maximumTournamentSize)
        try limit(genomeLength, "genomeLength", Self.maximumGenomeLength)
        try limit(maxDepth, "maxDepth", Self.maximumDepth)
        try limit(maxInitialDepth, "maxInitialDepth", Self.maximumInitialDepth)
    }

    /// The parameters of search `k` (from 0) of `n` independent searches that share this run's
    /// population, for an ensemble: each gets `populationSize / n` individuals (the first
    /// `populationSize % n` one more) and its own seed, drawn from this seed by SplitMix64; search 0
    /// keeps this seed, so one search of one is this run. Elitism is capped below the share.
    /// - Precondition: `0 <= k < n`.
    public func member(_ k: Int, of n: Int) -> EvolutionParameters {
        precondition(n >= 1 && (0..<n).contains(k), "search k of n needs 0 <= k < n")
        var p = self
        p.populationSize = populationSize / n + (k < populationSize % n ? 1 : 0)
        p.elitism = min(elitism, max(0, p.populationSize - 1))
        if k > 0 {
            var random = RandomSource(seed: seed ^ (UInt64(k) &* 0xD1B5_4A32_D192_ED03))
            p.seed = random.next()
        }
        return p
    }

    /// Hash of the settings that shape the search (not `generations`, `threads` or
    /// `cacheCapacity`, which a resumed run may change without changing where it goes).
    public var fingerprint: String {
        let text = [
            "\(populationSize)", "\(crossoverProbability.bitPattern)", "\(mutationProbability.bitPattern)",
            "\(tournamentSize)", "\(elitism)", initialisation.rawValue, "\(genomeLength)", "\(maxInitialDepth)",
            "\(tailFraction.bitPattern)", "\(maxWraps)", "\(maxDepth)", selection.rawValue, replacement.rawValue, "\(seed)",
        ].joined(separator: ",")
        return FNV1a.hex(text)
    }
}

/// A run that cannot start or continue.
public enum EvolutionError: Error, CustomStringConvertible, Equatable {
    case badParameter(field: String, expected: String)
    /// A setting above its upper limit (`EvolutionParameters.maximumDepth` and the others), which
    /// would take the machine's memory or time.
    case parameterAboveLimit(field: String, value: Int, limit: Int)
    /// Names in the grammar's terminals that are neither among the run's variables nor a function
    /// (`Grammar.unknownNames`), in line order; `source` is the grammar's file, when known.
    case unknownNames(source: String?, names: [Grammar.UnknownName], variables: VariableNames)
    /// A seed phenotype neither derivable nor compilable.
    case badSeed(index: Int, message: String)
    case checkpointUnreadable(path: String, reason: String)
    case checkpointMismatch(path: String, field: String, checkpoint: String, current: String)
    case cannotWrite(path: String, reason: String)

    public var description: String {
        switch self {
        case let .badParameter(field, expected):
            return "parameter \(field): expected \(expected)"
        case let .parameterAboveLimit(field, value, limit):
            return "parameter \(field) is \(value), above its limit of \(limit) (EvolutionParameters: a larger value would take the machine's memory or time)"
        case let .unknownNames(source, names, variables):
            let listed = names.map { "'\($0.name)\($0.isCall ? "(...)" : "")' (line \($0.line))" }.joined(separator: ", ")
            var known = variables.names.joined(separator: ", ")
            if variables.acceptsIndexedX { known += (known.isEmpty ? "" : ", ") + "x0, x1, ..." }
            return "grammar \(source ?? "(text)") names what is neither a variable of the data nor a function: \(listed); "
                + "the variables are \(known.isEmpty ? "none" : known): every phenotype using such a name would fail to compile"
        case let .badSeed(index, message):
            return "seed \(index + 1): \(message)"
        case let .checkpointUnreadable(path, reason):
            return "cannot read checkpoint \(path): \(reason)"
        case let .checkpointMismatch(path, field, checkpoint, current):
            return "checkpoint \(path) was written with a different \(field) (\(checkpoint), now \(current)); resume with the same grammar and parameters, or start a new run"
        case let .cannotWrite(path, reason):
            return "cannot write \(path): \(reason)"
        }
    }
}
