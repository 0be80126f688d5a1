import Testing
@testable import GrammarEvolution

@Suite struct VariationTests {
    @Test func mutationTouchesOnlyUsedCodons() {
        var random = RandomSource(seed: 3)
        let original = [Genome.Codon](repeating: 5, count: 50)
        var genome = original
        let changed = Variation.intFlip(&genome, used: 10, probability: 1, random: &random)
        #expect(changed == 10)
        #expect(genome[10...] == original[10...])
        #expect(genome[..<10].allSatisfy { $0 != 5 })   // a random 31-bit codon equals 5 with p = 2^-31
        var untouched = original
        #expect(Variation.intFlip(&untouched, used: 50, probability: 0, random: &random) == 0)
    }

    @Test func crossoverCutsInsideTheUsedCodons() {
        var random = RandomSource(seed: 11)
        let a = [Genome.Codon](repeating: 1, count: 50), b = [Genome.Codon](repeating: 2, count: 40)
        var cuts = Set<Int>()
        for _ in 0..<300 {
            let (c1, c2) = Variation.onePointCrossover(a, usedA: 10, b, usedB: 8, random: &random)
            let p1 = c1.prefix { $0 == 1 }.count, p2 = c2.prefix { $0 == 2 }.count
            #expect((1..<10).contains(p1) && (1..<8).contains(p2))
            #expect(c1 == Array(repeating: 1, count: p1) + Array(repeating: 2, count: 40 - p2))
            #expect(c2 == Array(repeating: 2, count: p2) + Array(repeating: 1, count: 50 - p1))
            cuts.insert(p1)
        }
        #expect(cuts == Set(1..<10))     // every cut point of the used region occurs
    }

    @Test func randomSourceIsReproducibleAndUniformEnough() {
        var a = RandomSource(seed: 99), b = RandomSource(seed: 99)
        #expect((0..<10).map { _ in a.next() } == (0..<10).map { _ in b.next() })
        // SplitMix64 first output for seed 0 (Vigna's reference): 0xE220A8397B1DCDAF.
        #expect(RandomSource(seed: 0).state[0] == 0xE220_A839_7B1D_CDAF)
        var counts = [0, 0, 0]
        for _ in 0..<30_000 { counts[a.uniform(3)] += 1 }
        #expect(counts.allSatisfy { abs($0 - 10_000) < 500 })   // ~5 sigma for binomial(30000, 1/3)
    }
}

@Suite struct NSGA2Tests {
    // A(1,5) B(2,3) C(3,1) D(2,4) E(3,3) F(4,4), minimising both.
    // D and E are dominated by B only; F by B, D, E. Fronts: {A,B,C}, {D,E}, {F}.
    let points: [[Double]] = [[1, 5], [2, 3], [3, 1], [2, 4], [3, 3], [4, 4]]

    @Test func frontsByHand() {
        #expect(NSGA2.fronts(points) == [[0, 1, 2], [3, 4], [5]])
        #expect(NSGA2.ranks(points) == [0, 0, 0, 1, 1, 2])
    }

    @Test func crowdingByHand() {
        // B is inner on both objectives: (3-1)/(3-1) + (5-1)/(5-1) = 2; A and C are boundaries.
        #expect(NSGA2.crowdingDistances(points, front: [0, 1, 2]) == [.infinity, 2, .infinity])
    }

    @Test func selectionFillsByFrontThenCrowding() {
        // 4 of 6: front {A,B,C}, then one of D,E (both boundary, infinite): the lower index, D.
        #expect(NSGA2.select(points, count: 4) == [0, 1, 2, 3])
        // Front {A,B,C} cut to 2: A and C (infinite) beat B (2).
        #expect(NSGA2.select(points, count: 2) == [0, 2])
    }

    /// Hunt BV: a negative count trapped in `Collection.prefix`; more than there are points gives them all.
    @Test func selectionOfNoneOrMoreThanThereAre() {
        #expect(NSGA2.select(points, count: -1) == [])
        #expect(NSGA2.select(points, count: 0) == [])
        #expect(NSGA2.select(points, count: 10).sorted() == Array(0..<6))
        #expect(NSGA2.select([], count: 3) == [])
    }
}
