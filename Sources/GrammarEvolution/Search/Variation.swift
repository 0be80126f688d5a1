/// Variation operators restricted to the codons the mapping used ("effective" operators):
/// codons beyond `effectiveLength` never influence the phenotype, so changing them is wasted.
public enum Variation {
    /// Effective one-point crossover with a cut in each parent's used region
    /// (`p1 in 1 ..< used1`, `p2 in 1 ..< used2`, or 0 for a parent that used at most 1 codon):
    /// child 1 = `a[..<p1] + b[p2...]`, child 2 = `b[..<p2] + a[p1...]`.
    public static func onePointCrossover(_ a: [Genome.Codon], usedA: Int, _ b: [Genome.Codon], usedB: Int,
                                         random: inout RandomSource) -> ([Genome.Codon], [Genome.Codon]) {
        let p1 = cutPoint(length: min(usedA, a.count), random: &random)
        let p2 = cutPoint(length: min(usedB, b.count), random: &random)
        return (Array(a[..<p1] + b[p2...]), Array(b[..<p2] + a[p1...]))
    }

    static func cutPoint(length: Int, random: inout RandomSource) -> Int {
        length > 1 ? 1 + random.uniform(length - 1) : 0
    }

    /// Int-flip mutation: each of the first `used` codons is replaced by a random codon with
    /// probability `probability`. Returns how many codons changed.
    @discardableResult
    public static func intFlip(_ genome: inout [Genome.Codon], used: Int, probability: Double,
                               random: inout RandomSource) -> Int {
        var changed = 0
        for i in 0..<min(used, genome.count) where random.chance(probability) {
            genome[i] = random.codon()
            changed += 1
        }
        return changed
    }
}

/// Parent selection.
enum Selection {
    /// Index of the best of `size` uniformly drawn individuals (with replacement).
    static func tournament(_ population: [Individual], size: Int, random: inout RandomSource) -> Int {
        var best = random.uniform(population.count)
        for _ in 1..<max(size, 1) {
            let c = random.uniform(population.count)
            if Individual.better(population[c], population[best]) { best = c }
        }
        return best
    }

    /// NSGA-II crowded binary tournament: lower rank wins, then larger crowding distance.
    static func crowdedTournament(rank: [Int], crowding: [Double], random: inout RandomSource) -> Int {
        let a = random.uniform(rank.count), b = random.uniform(rank.count)
        if rank[a] != rank[b] { return rank[a] < rank[b] ? a : b }
        if crowding[a] != crowding[b] { return crowding[a] > crowding[b] ? a : b }
        return min(a, b)
    }
}
