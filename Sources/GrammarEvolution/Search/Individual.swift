/// One member of the population.
public struct Individual: Sendable {
    public var genome: [Genome.Codon]
    /// Codons the mapping read (wraps included); variation acts on `min(usedCodons, genome.count)`.
    public var usedCodons: Int
    /// Terminal indices of the phenotype (nil when invalid or a fixed seed program).
    public var phenotype: Phenotype?
    /// Phenotype text (terminals joined by spaces), or the infix text of a fixed seed program.
    public var text: String?
    public var program: Program?
    /// Error from the fitness evaluator; `.infinity` for invalid individuals.
    public var fitness: Double
    /// A seed program no genome derives: kept as is, spread only by copying (see `Seed`).
    public var isFixedSeed: Bool

    public var isValid: Bool { program != nil }
    /// Program size (nodes); `Int.max` when invalid.
    public var size: Int { program?.nodeCount ?? Int.max }
    /// Codons variation may touch.
    public var effectiveLength: Int { min(usedCodons, genome.count) }

    init(genome: [Genome.Codon]) {
        self.genome = genome
        self.usedCodons = 0
        self.fitness = .infinity
        self.isFixedSeed = false
    }

    init(fixed program: Program, text: String) {
        self.genome = []
        self.usedCodons = 0
        self.text = text
        self.program = program
        self.fitness = .infinity
        self.isFixedSeed = true
    }

    /// Smaller error first, then smaller program.
    static func better(_ a: Individual, _ b: Individual) -> Bool {
        if a.fitness != b.fitness { return a.fitness < b.fitness }
        return a.size < b.size
    }
}

/// A known solution to put in the initial population.
public enum Seed: Sendable, Equatable {
    case genome([Genome.Codon])
    /// Infix text. If a derivation through the grammar is found (`Mapper.codons(deriving:)`),
    /// it becomes an ordinary genome; otherwise it enters as a *fixed seed program*: it keeps
    /// its `Program`, competes in selection and elitism, and spreads only by copying (crossover
    /// or mutation with it as a parent returns the parents unchanged).
    case phenotype(String)
}

/// How a seed entered the population.
public enum SeedOutcome: Sendable, Equatable {
    case genome
    case derived(codons: Int)
    case fixedProgram
}
