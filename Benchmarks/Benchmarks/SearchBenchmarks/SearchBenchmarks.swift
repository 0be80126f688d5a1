import Benchmark
import Foundation
import GrammarEvolution
import EvaluatorBenchmarking

/// The other hot loops of a GE run: mapping genomes to programs, and one whole generation
/// (variation, mapping, evaluation, selection) of a symbolic-regression run on 2,000 rows.
let grammarText = """
    <e> ::= <e> <op> <e> | <f>(<e>) | aq(<e>, <e>) | <v> | <v> | <c>
    <op> ::= + | - | * | /
    <f> ::= exp | log | sin
    <v> ::= x[0..7]
    <c> ::= <GECodonValue-0.0+10.0>
    """

let benchmarks: @Sendable () -> Void = {
    let grammar = try! Grammar(text: grammarText)
    let mapper = try! Mapper(grammar: grammar, maxWraps: 5, maxDepth: 17)
    var random = RandomSource(seed: 1)
    let genomes: [[Genome.Codon]] = (0..<1_000).map { _ in
        (0..<300).map { _ in Genome.Codon(truncatingIfNeeded: random.next() % (1 << 31)) }
    }
    let configuration = Benchmark.Configuration(metrics: [.wallClock, .mallocCountTotal, .throughput],
                                                maxDuration: .seconds(10), maxIterations: 50)

    Benchmark("derive 1000 random genomes (tokens only)", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations {
            for genome in genomes { blackHole(mapper.derive(genome)) }
        }
    }
    Benchmark("map 1000 random genomes (tokens and compiled program)", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations {
            for genome in genomes { blackHole(mapper.map(genome)) }
        }
    }

    // Target: x0*x1 + sin(x2) on 2,000 random rows.
    let table = try! EvaluatorBenchmark.randomTable(rows: 2_000, columns: 8, seed: 2)
    let target = (0..<table.rowCount).map { r in table[r, 0] * table[r, 1] + sin(table[r, 2]) }
    let fitness = try! ErrorFitness(table: table, target: target, rows: [0..<table.rowCount])
    var parameters = EvolutionParameters()
    parameters.populationSize = 200
    parameters.generations = 1
    Benchmark("one generation, population 200, 2000 rows", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations {
            let run = try! Evolution(grammar: grammar, variables: .indexed, fitness: fitness, parameters: parameters)
            blackHole(try! run.run(progress: nil))
        }
    }
}
