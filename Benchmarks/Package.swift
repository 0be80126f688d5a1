// swift-tools-version:6.1
import PackageDescription

// Benchmarks of GlucoModel, kept out of the main package and its test build.
// Run: cd Benchmarks && swift package --disable-sandbox benchmark
let package = Package(
    name: "GlucoModelBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        // Named so that the products resolve whatever the checkout directory is called.
        .package(name: "GlucoModel", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "EvaluatorBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "GrammarEvolution", package: "GlucoModel"),
                .product(name: "EvaluatorBenchmarking", package: "GlucoModel"),
            ],
            path: "Benchmarks/EvaluatorBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]),
        .executableTarget(
            name: "SearchBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "GrammarEvolution", package: "GlucoModel"),
                .product(name: "EvaluatorBenchmarking", package: "GlucoModel"),
            ],
            path: "Benchmarks/SearchBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]),
    ],
    swiftLanguageModes: [.v6]
)
