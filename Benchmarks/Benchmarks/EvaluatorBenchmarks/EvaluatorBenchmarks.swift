import Benchmark
import GrammarEvolution
import EvaluatorBenchmarking

/// Evaluator throughput on the workload: 300 random expressions of 20-50 nodes over
/// 100,000 rows of 8 columns uniform in [-1, 1]. Besides wall clock and allocations, each
/// benchmark reports `MPops/s` = nodes × rows / seconds / 10^6 (every node counted, leaves
/// included), measured around the evaluation only.
let benchmarks: @Sendable () -> Void = {
    let rows = 100_000
    let data = try! EvaluatorBenchmark.randomTable(rows: rows, columns: 8, seed: 1)
    let floatEvaluator = Evaluator(table: data.converted(to: Float.self))
    let doubleEvaluator = Evaluator(table: data)
    let arithmetic: [GrammarEvolution.Operation] = [.add, .sub, .mul, .div]
    let workloads: [(name: String, operations: [GrammarEvolution.Operation])] = [
        ("+-*/", arithmetic),
        ("+-*/ aq sin exp log", arithmetic + arithmetic + [.aq, .sin, .exp, .log]),
    ]
    let throughput = BenchmarkMetric.custom("MPops/s", polarity: .prefersLarger, useScalingFactor: false)
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal, throughput], maxDuration: .seconds(10), maxIterations: 15)

    for workload in workloads {
        let programs = try! EvaluatorBenchmark.randomExpressions(
            count: 300, minNodes: 20, maxNodes: 50, operations: workload.operations, columns: 8, seed: 1)
        let nodes = programs.reduce(0) { $0 + $1.nodeCount }
        for (precision, threads) in [(Precision.float, 1), (.float, 2), (.double, 1)] {
            let name = "evaluate \(workload.name) \(precision.rawValue) \(threads) thread(s)"
            Benchmark(name, configuration: configuration) { benchmark in
                for _ in benchmark.scaledIterations {
                    let clock = ContinuousClock()
                    let elapsed = clock.measure {
                        switch precision {
                        case .float:
                            blackHole(floatEvaluator.map(programs, rows: [0..<rows], threads: threads) { _, v in v[0] })
                        case .double:
                            blackHole(doubleEvaluator.map(programs, rows: [0..<rows], threads: threads) { _, v in v[0] })
                        }
                    }
                    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
                    benchmark.measurement(throughput, Int(Double(nodes) * Double(rows) / seconds / 1e6))
                }
            }
        }
    }
}
