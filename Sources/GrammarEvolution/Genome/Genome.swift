/// A genome: integer codons. Codons are `UInt32` drawn uniformly from `0 ..< Genome.codonLimit`.
public enum Genome {
    public typealias Codon = UInt32
    /// Codons are drawn below 2^31, so even wide `<GECodonValue>` ranges are reachable.
    public static let codonLimit = 1 << 31
}
