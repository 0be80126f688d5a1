/// xoshiro256** (Blackman & Vigna 2018), seeded through SplitMix64: a small, fast generator
/// whose whole state is four words, so a run's randomness can be checkpointed and resumed.
///
/// All draws (`uniform`, `unit`) are defined here rather than through the standard library's
/// `random(in:)`, so a seed gives the same sequence on every platform and Swift version.
public struct RandomSource: RandomNumberGenerator, Sendable, Equatable {
    public private(set) var state: [UInt64]

    /// Expands a 64-bit seed into the state with SplitMix64 (Steele, Lea, Flood 2014).
    public init(seed: UInt64) {
        var z = seed
        var s: [UInt64] = []
        for _ in 0..<4 {
            z &+= 0x9E37_79B9_7F4A_7C15
            var x = z
            x = (x ^ (x >> 30)) &* 0xBF58_476D_1CE4_E5B9
            x = (x ^ (x >> 27)) &* 0x94D0_49BB_1331_11EB
            s.append(x ^ (x >> 31))
        }
        state = s
    }

    /// Restores a saved state. Returns nil for a state of the wrong size or all zeros.
    public init?(state: [UInt64]) {
        guard state.count == 4, state.contains(where: { $0 != 0 }) else { return nil }
        self.state = state
    }

    @inlinable
    static func rotl(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 - k)) }

    public mutating func next() -> UInt64 {
        let result = Self.rotl(state[1] &* 5, 7) &* 9
        let t = state[1] << 17
        state[2] ^= state[0]
        state[3] ^= state[1]
        state[1] ^= state[2]
        state[0] ^= state[3]
        state[2] ^= t
        state[3] = Self.rotl(state[3], 45)
        return result
    }

    /// Uniform integer in `0 ..< n` (Lemire 2019, multiply-shift with rejection: unbiased).
    public mutating func uniform(_ n: Int) -> Int {
        precondition(n > 0, "uniform(n) needs n > 0")
        let bound = UInt64(n)
        var m = next().multipliedFullWidth(by: bound)
        if m.low < bound {
            let threshold = (0 &- bound) % bound
            while m.low < threshold { m = next().multipliedFullWidth(by: bound) }
        }
        return Int(m.high)
    }

    /// Uniform double in [0, 1) with 53 random bits.
    public mutating func unit() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    /// True with probability `p`.
    public mutating func chance(_ p: Double) -> Bool { unit() < p }

    /// A random codon in `0 ..< Genome.codonLimit`.
    public mutating func codon() -> Genome.Codon { Genome.Codon(next() >> 33) }
}
