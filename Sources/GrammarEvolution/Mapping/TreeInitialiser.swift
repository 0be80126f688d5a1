/// Builds genomes by growing derivation trees under depth limits and recording the codon
/// choices ("sensible initialisation", Ryan & Azad 2003; ramped half-and-half after Koza 1992).
///
/// The tree is expanded in the mapper's order (depth-first, leftmost first), so mapping the
/// recorded codons reproduces the tree exactly. A choice `k` among `n` alternatives is recorded
/// as a random codon `c` with `c mod n == k`, so the genome is not biased toward small codons.
public struct TreeInitialiser: Sendable {
    public enum Method: String, Sendable, Codable {
        /// Any alternative that fits the depth limit.
        case grow
        /// Recursive alternatives while they fit, so branches tend to reach the depth limit.
        case full
    }

    let tables: GrammarTables

    public init(mapper: Mapper) { self.tables = mapper.tables }

    /// One genome whose derivation tree has depth at most `maxDepth` (raised to the start
    /// rule's minimum depth when lower), followed by `tail` random codons.
    public func genome(method: Method, maxDepth: Int, tail: Int, random: inout RandomSource) -> [Genome.Codon] {
        let limit = max(maxDepth, tables.ruleMinDepth[0])
        var codons: [Genome.Codon] = []
        var symbolStack: [Int32] = [GrammarTables.kindRule]
        var depthStack: [Int] = [1]
        var candidates: [Int] = []
        while let code = symbolStack.popLast() {
            let depth = depthStack.removeLast()
            switch code & 3 {
            case GrammarTables.kindTerminal:
                continue
            case GrammarTables.kindCodon:
                codons.append(random.codon())
            default:
                let productions = tables.productions(of: Int(code >> 2))
                // Alternatives whose smallest subtree still fits: depth - 1 + minDepth(p) <= limit.
                candidates.removeAll(keepingCapacity: true)
                for p in productions where depth - 1 + tables.productionMinDepth[p] <= limit {
                    candidates.append(p)
                }
                if method == .full, candidates.contains(where: { tables.productionRecursive[$0] }) {
                    candidates.removeAll { !tables.productionRecursive[$0] }
                }
                precondition(!candidates.isEmpty, "TreeInitialiser: depth bookkeeping failed")
                let chosen = candidates[random.uniform(candidates.count)]
                let n = productions.count
                if n > 1 {
                    let k = chosen - productions.lowerBound
                    codons.append(Genome.Codon(random.uniform(Genome.codonLimit / n) * n + k))
                }
                for s in tables.symbols(of: chosen).reversed() {
                    symbolStack.append(s)
                    depthStack.append(depth + 1)
                }
            }
        }
        for _ in 0..<tail { codons.append(random.codon()) }
        return codons
    }

    /// Depths for ramped half-and-half: from the start rule's minimum depth up to `maxDepth`.
    public func rampDepths(upTo maxDepth: Int) -> [Int] {
        let low = tables.ruleMinDepth[0]
        return Array(low...max(low, maxDepth))
    }
}
