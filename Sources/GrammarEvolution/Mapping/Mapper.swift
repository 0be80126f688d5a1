/// The terminals a genome derives, as indices into the grammar's terminal table: the key for
/// caches (no text is built until a phenotype is compiled).
///
/// A token `t >= 0` is terminal `t`; `-1` is the next entry of `values` (a `<GECodonValue>`).
public struct Phenotype: Sendable, Hashable {
    public var tokens: [Int32]
    public var values: [Double]
}

/// Why a genome has no phenotype, or why its phenotype is not a program.
public enum InvalidReason: Error, Sendable, Hashable, CustomStringConvertible {
    case emptyGenome
    /// Non-terminals were left after reading the genome `maxWraps + 1` times.
    case tooManyWraps
    /// A non-terminal was to be expanded deeper than `maxDepth`.
    case tooDeep
    /// The phenotype text is not a valid expression (the parser's message).
    case doesNotCompile(String)

    public var description: String {
        switch self {
        case .emptyGenome: return "empty genome"
        case .tooManyWraps: return "ran out of codons after the allowed wraps"
        case .tooDeep: return "derivation deeper than the maximum depth"
        case let .doesNotCompile(m): return "phenotype does not compile: \(m)"
        }
    }
}

/// The outcome of mapping one genome.
public struct MappingResult: Sendable {
    /// nil when the mapping failed (see `invalidReason`).
    public var phenotype: Phenotype?
    /// The compiled program (only from `Mapper.map`), nil when invalid.
    public var program: Program?
    /// Codons read, wraps included (may exceed the genome length when wrapping).
    public var usedCodons: Int
    /// Depth of the derivation tree (rule nodes; the start rule is depth 1).
    public var depth: Int
    public var invalidReason: InvalidReason?
    public var isValid: Bool { invalidReason == nil }
}

/// Maps genomes to phenotypes with the mod rule: at a rule with `n > 1` alternatives the next
/// codon `c` picks alternative `c mod n` (rules with one alternative read no codon); a
/// `<GECodonValue>` reads one codon. Derivation is depth-first, leftmost non-terminal first.
/// When the codons run out, reading wraps to the start of the genome at most `maxWraps` times.
public struct Mapper: Sendable {
    public let grammar: Grammar
    public let maxWraps: Int
    public let maxDepth: Int
    public let variables: VariableNames
    let tables: GrammarTables
    /// Each terminal's tokens, lexed once: a phenotype compiles from these without any text.
    let terminalTokens: [[InfixToken]]

    /// - Throws: `GrammarError.invalid` when `grammar.check()` reports errors, no alternative of the
    ///   start rule makes an expression, or its shortest derivation is deeper than `maxDepth` (a chain
    ///   of 18 rules under the default 17: every genome mapped to nothing, and a search reported its
    ///   model as "no evolved expression beat the base" without having evaluated one; hunt BE, stop 61).
    public init(grammar: Grammar, maxWraps: Int = 2, maxDepth: Int = 17, variables: VariableNames = .indexed) throws {
        precondition(maxWraps >= 0 && maxDepth >= 1, "Mapper: maxWraps >= 0 and maxDepth >= 1")
        self.grammar = try grammar.validated()
        var issues = Self.expressionIssues(grammar)
        if let start = grammar.rules.first, let depth = grammar.tables.ruleMinDepth.first,
           depth != GrammarTables.unbounded, depth > maxDepth {
            issues.append(.init(severity: .error, kind: .tooDeep, rule: start.name, line: start.line,
                                message: "the start rule <\(start.name)>'s shortest derivation is \(depth) rules deep, deeper than the "
                                    + "limit of \(maxDepth): every genome would map to nothing; shorten the chain of rules it goes through"))
        }
        self.maxWraps = maxWraps
        self.maxDepth = maxDepth
        self.variables = variables
        self.tables = grammar.tables
        terminalTokens = tables.terminals.map(InfixLexer.tokens)
        // The shortest derivations judge the grammar; random ones may still make an expression (a
        // rule whose shortest alternative is a dead end, `<tail> ::= G1 | + G1`, beside ones that are
        // not: it was refused with "every expression would fail to compile"; hunt BE, stop 61).
        if issues.map(\.kind) == [.noExpression], makesAnExpression() { issues = [] }
        if !issues.isEmpty {
            throw GrammarError.invalid(source: grammar.source, report: GrammarReport(issues: issues, minimumDepths: []))
        }
    }

    /// Random derivations the expression check tries before refusing a grammar.
    static let derivationsTried = 2_000

    /// Whether one of `derivationsTried` random genomes (a fixed seed: the same answer every time)
    /// maps to an expression of a valid form (any name a variable, as `expressionIssues` judges).
    func makesAnExpression() -> Bool {
        var random = RandomSource(seed: 0x6A09E667F3BCC908)
        let form = Self.formVariables(grammar)
        var tried = Set<Phenotype>()
        for _ in 0..<Self.derivationsTried {
            let genome = (0..<100).map { _ in random.codon() }
            guard let phenotype = derive(genome).phenotype, tried.insert(phenotype).inserted else { continue }
            var parser = InfixParser(tokens: tokens(of: phenotype), text: "", variables: form)
            if (try? parser.parseAll()) != nil { return true }
        }
        return false
    }

    /// Derives the phenotype of a genome without compiling it.
    /// - Complexity: O(codons read + phenotype length); no String work.
    public func derive(_ genome: [Genome.Codon]) -> MappingResult {
        guard !genome.isEmpty else {
            return MappingResult(phenotype: nil, usedCodons: 0, depth: 0, invalidReason: .emptyGenome)
        }
        // Saturates: a huge `maxWraps` means no limit, not an overflow (depth still bounds the tree).
        let limit = maxWraps >= Int.max / genome.count - 1 ? Int.max : genome.count * (maxWraps + 1)
        var symbolStack: [Int32] = [GrammarTables.kindRule]
        var depthStack: [Int32] = [1]
        symbolStack.reserveCapacity(64)
        depthStack.reserveCapacity(64)
        var tokens: [Int32] = []
        tokens.reserveCapacity(32)
        var values: [Double] = []
        var used = 0, position = 0, deepest = 0
        return tables.symbols.withUnsafeBufferPointer { symbols in
            while let code = symbolStack.popLast() {
                let depth = Int(depthStack.removeLast())
                let index = Int(code >> 2)
                switch code & 3 {
                case GrammarTables.kindTerminal:
                    tokens.append(Int32(index))
                case GrammarTables.kindCodon:
                    guard used < limit else {
                        return MappingResult(phenotype: nil, usedCodons: used, depth: deepest, invalidReason: .tooManyWraps)
                    }
                    let codon = genome[position]
                    used += 1; position += 1
                    if position == genome.count { position = 0 }
                    values.append(tables.codonRanges[index].value(for: codon))
                    tokens.append(-1)
                default:
                    guard depth <= maxDepth else {
                        return MappingResult(phenotype: nil, usedCodons: used, depth: depth, invalidReason: .tooDeep)
                    }
                    deepest = max(deepest, depth)
                    let first = Int(tables.ruleFirst[index])
                    let count = Int(tables.ruleFirst[index + 1]) - first
                    var production = first
                    if count > 1 {
                        guard used < limit else {
                            return MappingResult(phenotype: nil, usedCodons: used, depth: deepest, invalidReason: .tooManyWraps)
                        }
                        production += Int(genome[position] % UInt32(count))
                        used += 1; position += 1
                        if position == genome.count { position = 0 }
                    }
                    var s = Int(tables.productionFirst[production + 1]) - 1
                    let start = Int(tables.productionFirst[production])
                    while s >= start {
                        symbolStack.append(symbols[s])
                        depthStack.append(Int32(depth + 1))
                        s -= 1
                    }
                }
            }
            return MappingResult(phenotype: Phenotype(tokens: tokens, values: values), usedCodons: used, depth: deepest, invalidReason: nil)
        }
    }

    /// Derives and compiles a genome. A phenotype that does not compile is invalid, never a crash.
    public func map(_ genome: [Genome.Codon]) -> MappingResult {
        var result = derive(genome)
        guard let phenotype = result.phenotype else { return result }
        switch compile(phenotype) {
        case let .success(program): result.program = program
        case let .failure(reason): result.invalidReason = reason
        }
        return result
    }

    /// The phenotype's tokens: its terminals' and its constants'.
    func tokens(of phenotype: Phenotype) -> [InfixToken] {
        var tokens: [InfixToken] = []
        tokens.reserveCapacity(phenotype.tokens.count + 8)
        var v = 0
        for t in phenotype.tokens {
            if t >= 0 {
                tokens.append(contentsOf: terminalTokens[Int(t)])
            } else {
                tokens.append(contentsOf: InfixLexer.tokens(of: phenotype.values[v]))
                v += 1
            }
        }
        return tokens
    }

    /// The phenotype as text: terminals and constants joined by single spaces.
    public func text(of phenotype: Phenotype) -> String {
        var parts: [String] = []
        parts.reserveCapacity(phenotype.tokens.count)
        var v = 0
        for t in phenotype.tokens {
            if t >= 0 {
                parts.append(tables.terminals[Int(t)])
            } else {
                parts.append(Program.format(phenotype.values[v]))
                v += 1
            }
        }
        return parts.joined(separator: " ")
    }

    /// Compiles a phenotype: its terminals' tokens (and its constants') parsed as
    /// `Program(infix: text(of: phenotype), variables:)` would parse the text, without making it.
    /// Only a phenotype that does not compile has its text made, for the error message.
    public func compile(_ phenotype: Phenotype) -> Result<Program, InvalidReason> {
        var parser = InfixParser(tokens: tokens(of: phenotype), text: "", variables: variables)
        if let instructions = try? parser.parseAll() {
            return .success(Program(instructions: instructions))
        }
        do {
            return .success(try Program(infix: text(of: phenotype), variables: variables))
        } catch {
            return .failure(.doesNotCompile("\(error)"))
        }
    }
}
