import Foundation
import Testing
@testable import GrammarEvolution

@Suite struct EvolutionTests {
    let grammar = try! Grammar(text: SearchFixtures.regressionGrammar)
    let data = SearchFixtures.regressionData()

    func parameters(_ change: (inout EvolutionParameters) -> Void = { _ in }) -> EvolutionParameters {
        var p = EvolutionParameters()
        p.populationSize = 40
        p.generations = 4
        p.seed = 2024
        change(&p)
        return p
    }

    func temporaryURL(_ name: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("ge-search-\(UUID().uuidString)-\(name)")
    }

    @Test func initialPopulationIsValidAndDistinct() throws {
        let run = try Evolution(grammar: grammar, fitness: data, parameters: parameters { $0.generations = 0; $0.populationSize = 60 })
        let result = try run.run()
        #expect(result.population.allSatisfy { $0.isValid })
        // Sensible initialisation redraws repeated phenotypes; this grammar has thousands of
        // trees of depth <= 6, so all 60 are distinct.
        #expect(result.statistics[0].uniquePhenotypes == 60)
        #expect(result.statistics[0].invalids == 0)
    }

    @Test func ensembleMembersShareThePopulationWithTheirOwnSeeds() throws {
        let p = parameters { $0.populationSize = 601; $0.elitism = 2 }
        #expect(p.member(0, of: 1) == p)
        let members = (0..<3).map { p.member($0, of: 3) }
        #expect(members.map(\.populationSize) == [201, 200, 200])
        #expect(members[0].seed == p.seed)
        #expect(Set(members.map(\.seed)).count == 3)
        #expect(members.map { $0.seed } == (0..<3).map { p.member($0, of: 3).seed })
        // Everything but the population and the seed is the run's.
        for m in members {
            var same = m
            same.populationSize = p.populationSize
            same.seed = p.seed
            #expect(same == p)
        }
        // Elitism stays below a small share: 6 individuals in 3 searches of 2 keep 1 elite each.
        let small = parameters { $0.populationSize = 6; $0.elitism = 2 }.member(2, of: 3)
        #expect(small.populationSize == 2 && small.elitism == 1)
        #expect(throws: Never.self) { try small.validate() }
        // Each member is a run of its own: the same parameters give the same search.
        let one = try Evolution(grammar: grammar, fitness: data, parameters: p.member(1, of: 3)).run()
        let again = try Evolution(grammar: grammar, fitness: data, parameters: p.member(1, of: 3)).run()
        let first = try Evolution(grammar: grammar, fitness: data, parameters: p.member(0, of: 3)).run()
        #expect(one.population.map(\.genome) == again.population.map(\.genome))
        #expect(one.population.map(\.genome) != first.population.map(\.genome))
    }

    @Test(arguments: [EvolutionParameters.Selection.tournament, .nsga2])
    func sameSeedSameResultWithOneOrTwoThreads(selection: EvolutionParameters.Selection) throws {
        func run(threads: Int) throws -> EvolutionResult {
            try Evolution(grammar: grammar, fitness: data, parameters: parameters { $0.threads = threads; $0.selection = selection }).run()
        }
        let one = try run(threads: 1), two = try run(threads: 2)
        #expect(one.best.genome == two.best.genome)
        #expect(one.best.fitness == two.best.fitness)
        #expect(one.population.map(\.genome) == two.population.map(\.genome))
        #expect(one.statistics.map(\.bestFitness) == two.statistics.map(\.bestFitness))
        let other = try Evolution(grammar: grammar, fitness: data, parameters: parameters { $0.seed = 7; $0.selection = selection }).run()
        #expect(other.population.map(\.genome) != one.population.map(\.genome))
    }

    @Test(arguments: [(EvolutionParameters.Selection.tournament, EvolutionParameters.Replacement.generational),
                      (.tournament, .steadyState), (.nsga2, .generational)])
    func resumedRunEndsWhereTheUninterruptedOneDoes(selection: EvolutionParameters.Selection,
                                                    replacement: EvolutionParameters.Replacement) throws {
        let full = parameters { $0.generations = 6; $0.selection = selection; $0.replacement = replacement }
        let straight = try Evolution(grammar: grammar, fitness: data, parameters: full).run()

        let checkpoint = temporaryURL("checkpoint.json"), stats = temporaryURL("stats.jsonl")
        defer { try? FileManager.default.removeItem(at: checkpoint); try? FileManager.default.removeItem(at: stats) }
        var half = full
        half.generations = 3
        let outputs = EvolutionOutputs(statisticsURL: stats, checkpointURL: checkpoint, checkpointInterval: 100)
        _ = try Evolution(grammar: grammar, fitness: data, parameters: half, outputs: outputs).run()
        let resumed = try Evolution(grammar: grammar, fitness: data, parameters: full, outputs: outputs)
            .run(resumingFrom: checkpoint)

        #expect(resumed.best.genome == straight.best.genome)
        #expect(resumed.best.fitness == straight.best.fitness)
        #expect(resumed.population.map(\.genome) == straight.population.map(\.genome))
        #expect(resumed.statistics.map(\.generation) == Array(0...6))
        // Generations 0-3 written by the first run, 4-6 appended by the resumed one.
        let lines = try String(contentsOf: stats, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 7)
        let last = try JSONDecoder().decode(GenerationStatistics.self, from: Data(lines[6].utf8))
        #expect(last.generation == 6 && last.bestFitness == straight.statistics[6].bestFitness)
    }

    /// docs/formats.md: fitness is `null` when no individual is valid. Before, the keys were left out.
    @Test func aStatisticsLineWritesEveryKeyNullWhenItHasNoValue() throws {
        let stats = GenerationStatistics(generation: 3, bestFitness: nil, medianFitness: nil, bestValidationFitness: nil,
                                         bestSize: nil, meanSize: nil, invalids: 10, cacheHits: 0, evaluations: 0,
                                         uniquePhenotypes: 0, elapsedSeconds: 0.5, mappingSeconds: 0, variationSeconds: 0,
                                         evaluationSeconds: 0)
        let line = String(decoding: try StatisticsWriter.line(stats, url: temporaryURL("s.jsonl")), as: UTF8.self)
        #expect(line == "{\"bestFitness\":null,\"bestSize\":null,\"bestValidationFitness\":null,\"cacheHits\":0,"
                + "\"elapsedSeconds\":0.5,\"evaluationSeconds\":0,\"evaluations\":0,\"generation\":3,\"invalids\":10,"
                + "\"mappingSeconds\":0,\"meanSize\":null,\"medianFitness\":null,\"uniquePhenotypes\":0,"
                + "\"variationSeconds\":0,\"version\":1}\n")
        #expect(try JSONDecoder().decode(GenerationStatistics.self, from: Data(line.utf8)) == stats)
    }

    @Test func resumingAfterAKillKeepsOneStatisticsLinePerGeneration() throws {
        // A run killed after its checkpoint at generation 3 has written the lines of generations
        // 4-6 (the last torn): the resumed run writes those generations again, replacing them.
        let full = parameters { $0.generations = 6 }
        let straightStats = temporaryURL("straight.jsonl")
        let checkpoint = temporaryURL("checkpoint.json"), stats = temporaryURL("stats.jsonl")
        let saved = temporaryURL("saved.json")
        defer { for url in [straightStats, checkpoint, stats, saved] { try? FileManager.default.removeItem(at: url) } }
        _ = try Evolution(grammar: grammar, fitness: data, parameters: full,
                          outputs: EvolutionOutputs(statisticsURL: straightStats)).run()

        var half = full
        half.generations = 3
        let outputs = EvolutionOutputs(statisticsURL: stats, checkpointURL: checkpoint, checkpointInterval: 100)
        _ = try Evolution(grammar: grammar, fitness: data, parameters: half, outputs: outputs).run()
        try FileManager.default.copyItem(at: checkpoint, to: saved)
        _ = try Evolution(grammar: grammar, fitness: data, parameters: full, outputs: outputs).run(resumingFrom: checkpoint)
        let handle = try FileHandle(forWritingTo: stats)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("{\"bestFitness\":1.5,\"gener".utf8))
        try handle.close()
        _ = try Evolution(grammar: grammar, fitness: data, parameters: full, outputs: outputs).run(resumingFrom: saved)

        func lines(_ url: URL) throws -> [GenerationStatistics] {
            try String(contentsOf: url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
                .dropLast().map { line in
                    var s = try JSONDecoder().decode(GenerationStatistics.self, from: Data(line.utf8))
                    // Time and work: the resumed run's caches start empty, so it evaluates more.
                    s.elapsedSeconds = 0; s.mappingSeconds = 0; s.variationSeconds = 0; s.evaluationSeconds = 0
                    s.cacheHits = 0; s.evaluations = 0
                    return s
                }
        }
        let resumed = try lines(stats)
        #expect(resumed.map(\.generation) == Array(0...6))
        #expect(resumed == (try lines(straightStats)))
    }

    @Test func resumingWithAnotherGrammarParametersOrContextIsAnError() throws {
        let checkpoint = temporaryURL("checkpoint.json")
        defer { try? FileManager.default.removeItem(at: checkpoint) }
        let p = parameters { $0.generations = 1 }
        _ = try Evolution(grammar: grammar, fitness: data, parameters: p,
                          outputs: EvolutionOutputs(checkpointURL: checkpoint)).run()
        let otherGrammar = try Grammar(text: SearchFixtures.regressionGrammar + "\n | 1")
        #expect { try Evolution(grammar: otherGrammar, fitness: data, parameters: p).run(resumingFrom: checkpoint) }
            throws: { ($0 as? EvolutionError).map { if case .checkpointMismatch(_, "grammar", _, _) = $0 { true } else { false } } ?? false }
        #expect { try Evolution(grammar: grammar, fitness: data, parameters: parameters { $0.mutationProbability = 0.1 }).run(resumingFrom: checkpoint) }
            throws: { ($0 as? EvolutionError).map { if case .checkpointMismatch(_, "parameters", _, _) = $0 { true } else { false } } ?? false }
        #expect(throws: EvolutionError.self) {
            try Evolution(grammar: grammar, fitness: data, parameters: p).run(resumingFrom: temporaryURL("missing.json"))
        }
        // The caller's context (its data, its options), and a run that would have stopped before
        // the checkpoint's generation.
        #expect {
            try Evolution(grammar: grammar, fitness: data, parameters: p,
                          outputs: EvolutionOutputs(checkpointContext: "other data")).run(resumingFrom: checkpoint)
        } throws: { ($0 as? EvolutionError).map { if case .checkpointMismatch(_, "context", "", "other data") = $0 { true } else { false } } ?? false }
        #expect { try Evolution(grammar: grammar, fitness: data, parameters: parameters { $0.generations = 0 }).run(resumingFrom: checkpoint) }
            throws: { ($0 as? EvolutionError).map { if case .checkpointMismatch(_, "generation", "1", _) = $0 { true } else { false } } ?? false }
        #expect(try Evolution(grammar: grammar, fitness: data, parameters: p).run(resumingFrom: checkpoint).statistics.count == 2)
    }

    @Test func findsProductPlusSine() throws {
        // x0*x1 + sin(x2) is in the grammar (depth 4). In a sweep over seeds 1-6 with these
        // settings (mutation 0.05 per used codon, tournaments of 7, 200 x 30 individuals) the
        // search reached an exact equivalent (RMSE 0 up to rounding) in 5 of 6 runs.
        var progressLines = 0
        let result = try Evolution(grammar: grammar, fitness: data, parameters: parameters {
            $0.populationSize = 200; $0.generations = 30; $0.seed = 1
            $0.mutationProbability = 0.05; $0.tournamentSize = 7
        }).run { _ in progressLines += 1 }
        #expect(result.best.fitness < 1e-9, "best: \(result.best.text ?? "-") \(result.best.fitness)")
        #expect(progressLines == 31)
        #expect(!result.paretoFront.isEmpty && result.paretoFront.first!.fitness == result.best.fitness)
        // Later generations evaluate fewer new programs thanks to the cache.
        #expect(result.statistics.dropFirst().contains { $0.cacheHits > 0 })
    }

    @Test func seedsEnterAsGenomesOrFixedPrograms() throws {
        let p = parameters { $0.generations = 2 }
        let derived = try Evolution(grammar: grammar, fitness: data, parameters: p,
                                    seeds: [.phenotype("x0*x1 + sin(x2)")]).run()
        #expect(derived.seedOutcomes.count == 1)
        if case .derived = derived.seedOutcomes[0] {} else { Issue.record("expected a derivation, got \(derived.seedOutcomes)") }
        #expect(derived.statistics[0].bestFitness == 0)   // the exact target from generation 0
        // log is not in the grammar: the seed is kept as a fixed program; log(1) = 0 exactly.
        let fixed = try Evolution(grammar: grammar, fitness: data, parameters: p,
                                  seeds: [.phenotype("x0*x1 + sin(x2) + log(1)")]).run()
        #expect(fixed.seedOutcomes == [.fixedProgram])
        #expect(fixed.best.isFixedSeed && fixed.best.fitness == 0)
        #expect(throws: EvolutionError.self) {
            try Evolution(grammar: grammar, fitness: data, parameters: p, seeds: [.phenotype("x0 +")]).run()
        }
        // A genome seed: [0,2,0, 0,2,1] is x0 + x1 (e:0 -> e op e; e:2 -> v; v:0; op:0 -> +; e:2; v:1).
        let g = try Evolution(grammar: grammar, fitness: data, parameters: parameters { $0.generations = 0 },
                              seeds: [.genome([0, 2, 0, 0, 2, 1])]).run()
        #expect(g.population[0].program == (try Program(infix: "x0 + x1")))
    }

    @Test func badParametersAreReported() {
        #expect(throws: EvolutionError.badParameter(field: "populationSize", expected: "at least 2")) {
            try Evolution(grammar: grammar, fitness: data, parameters: parameters { $0.populationSize = 1 })
        }
        // An infinite tail fraction passed and then trapped making the tail's length as an Int.
        for fraction in [Double.infinity, 1e300, .nan, -1] {
            #expect(throws: EvolutionError.badParameter(field: "tailFraction", expected: "between 0 and 100")) {
                try Evolution(grammar: grammar, fitness: data, parameters: parameters { $0.tailFraction = fraction })
            }
        }
    }

    /// Hunt BV: maxDepth = maxInitialDepth = 25 took 42 s and 6.2 GB (full trees double with each
    /// level), and a tournament of 10⁹ seemed to hang; each is refused, naming its value and limit.
    @Test func parametersAboveTheirLimitsAreRefused() {
        let cases: [(String, Int, Int, (inout EvolutionParameters) -> Void)] = [
            ("maxInitialDepth", 25, EvolutionParameters.maximumInitialDepth, { $0.maxDepth = 25; $0.maxInitialDepth = 25 }),
            ("maxDepth", 1000, EvolutionParameters.maximumDepth, { $0.maxDepth = 1000 }),
            ("tournamentSize", 1_000_000_000, EvolutionParameters.maximumTournamentSize, { $0.tournamentSize = 1_000_000_000 }),
            ("genomeLength", Int.max, EvolutionParameters.maximumGenomeLength, { $0.genomeLength = Int.max; $0.initialisation = .random }),
        ]
        for (field, value, limit, change) in cases {
            #expect(throws: EvolutionError.parameterAboveLimit(field: field, value: value, limit: limit)) {
                try Evolution(grammar: grammar, fitness: data, parameters: parameters(change))
            }
        }
        #expect(EvolutionError.parameterAboveLimit(field: "maxInitialDepth", value: 25, limit: 20).description
                    .hasPrefix("parameter maxInitialDepth is 25, above its limit of 20"))
        // The limits themselves are accepted.
        #expect(throws: Never.self) {
            try parameters {
                $0.maxDepth = EvolutionParameters.maximumDepth; $0.maxInitialDepth = EvolutionParameters.maximumInitialDepth
                $0.tournamentSize = EvolutionParameters.maximumTournamentSize; $0.genomeLength = EvolutionParameters.maximumGenomeLength
            }.validate()
        }
    }

    /// Hunt BV: a grammar naming `z` on data with only `x` ran and returned an invalid best (or the
    /// constant of its one alternative that compiled), without a word.
    @Test func aGrammarNamingWhatTheDataLacksIsRefused() throws {
        let names = VariableNames(["x"])
        let only = try Grammar(text: "<e> ::= z + w", source: "only.bnf")
        #expect(throws: EvolutionError.unknownNames(source: "only.bnf", names: only.unknownNames(names), variables: names)) {
            try Evolution(grammar: only, variables: names, fitness: data, parameters: parameters())
        }
        let mixed = try Grammar(text: "<e> ::= <e> + <e> | <v> | 1\n<v> ::= x | z | foo(x)")
        do {
            _ = try Evolution(grammar: mixed, variables: names, fitness: data, parameters: parameters())
            Issue.record("accepted")
        } catch {
            #expect("\(error)" == "grammar (text) names what is neither a variable of the data nor a function: 'foo(...)' (line 2), "
                        + "'z' (line 2); the variables are x: every phenotype using such a name would fail to compile")
        }
        // The default, indexed names: `x` alone is none of x0, x1, ...
        #expect(throws: EvolutionError.self) {
            try Evolution(grammar: Grammar(text: "<e> ::= x | 1"), fitness: data, parameters: parameters())
        }
        // Names the data has, functions and lag are not unknown.
        #expect(throws: Never.self) {
            try Evolution(grammar: Grammar(text: "<e> ::= x + sin(x) | lag(x, 1) | aq(x, 2)"), variables: names,
                          fitness: data, parameters: parameters())
        }
    }

    @Test func theLargestWrapLimitMapsLikeNoLimit() throws {
        // maxWraps = Int.max passed validate() and overflowed computing the codon limit. Codon 0
        // always picks `<e> + x0`, so the tree grows until it is deeper than maxDepth.
        let mapper = try Mapper(grammar: Grammar(text: "<e> ::= <e> + x0 | x0"), maxWraps: Int.max, maxDepth: 5)
        #expect(mapper.map([0]).invalidReason == .tooDeep)
        #expect(mapper.map([0, 0, 1]).program == (try Program(infix: "x0 + x0 + x0")))
        let run = try Evolution(grammar: grammar, fitness: data, parameters: parameters { $0.maxWraps = Int.max; $0.generations = 2 }).run()
        #expect(run.best.isValid)
    }
}
