import Testing
@testable import GrammarEvolution

/// `Mapper.compile` parses the terminals' tokens without making text; it must give exactly the
/// program (or the failure) that parsing the phenotype's text gives.
@Suite struct PhenotypeCompileTests {
    /// Every operator, lags, negative and zero constants from codon ranges, a constant that prints as
    /// an integer, terminals holding several tokens, and alternatives that do not compile
    /// (`sin` alone, `x0 x1`, a dangling `-`), so both outcomes are compared.
    static let grammar = """
    <e> ::= <e> <op> <e> | <f>(<e>) | <g>(<e>, <e>) | <v> | <c> | - <e> | (<e>) | lag(x[0..3], [0..2])
          | <c> <v> | sin | <e> -
    <op> ::= + | - | * | /
    <f> ::= sin | cos | exp | log | sqrt | square
    <g> ::= aq | pdiv | min | max
    <v> ::= x[0..3] | x0 * -2.5 | 1e3
    <c> ::= <GECodonValue--2.0+2.0> | <GECodonValue--3+3> | 0.25
    """

    @Test func tokensCompileAsTheTextWould() throws {
        let mapper = try Mapper(grammar: Grammar(text: Self.grammar), maxWraps: 2, maxDepth: 8)
        var random = RandomSource(seed: 11)
        var compiled = 0, failed = 0
        for _ in 0..<3000 {
            let genome = (0..<Int.random(in: 4...40, using: &random)).map { _ in Genome.Codon.random(in: 0..<1 << 31, using: &random) }
            guard let phenotype = mapper.derive(genome).phenotype else { continue }
            let text = mapper.text(of: phenotype)
            let fromText = Result { try Program(infix: text, variables: mapper.variables) }
            switch (mapper.compile(phenotype), fromText) {
            case let (.success(a), .success(b)):
                #expect(a == b, "\(text)")
                compiled += 1
            case let (.failure(reason), .failure(error)):
                #expect(reason == .doesNotCompile("\(error)"), "\(text)")
                failed += 1
            default:
                Issue.record("one path compiled and the other did not: \(text)")
            }
        }
        // Both outcomes must have been exercised for the comparison to mean anything.
        #expect(compiled > 200 && failed > 200)
    }

    @Test func constantsKeepTheirExactValueAndSign() throws {
        // A negative codon value becomes a minus sign and its magnitude, folded back to one constant:
        // <c>'s alternative 0 (codon 0), then the range [-2, 2] in 10,000 steps: codon 0 -> -2 + 4 * 0 / 10000 = -2.
        let m = try Mapper(grammar: Grammar(text: "<e> ::= <c> * x0\n<c> ::= <GECodonValue--2.0+2.0> | <GECodonValue--2.0+2.0>"))
        let low = m.map([0, 0])
        #expect(low.program == Program(instructions: [.constant(-2), .variable(0), .operation(.mul)]))
        // codon 5000 -> -2 + 4 * 5000 / 10000 = 0; the program is what its text reads back as.
        let middle = try #require(m.map([0, 5000]).program)
        let reread = try Program(infix: m.text(of: m.derive([0, 5000]).phenotype!))
        #expect(middle == reread)
        #expect(middle.instructions.first.map { if case let .constant(c) = $0 { c == 0 } else { false } } == true)
    }
}
