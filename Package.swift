// swift-tools-version:6.1
import PackageDescription
import Foundation

// The evaluator's SIMD kernels (GrammarEvolution) are compiled for the CPU of the build machine
// in release builds, like C's -march=native: AVX2 on x86-64 where the host has it, and fused
// multiply-adds (GE_FMA) where the host has FMA. Such a binary may not run on an older CPU;
// set GLUCOMODEL_PORTABLE=1 when building for other machines (baseline CPU, no GE_FMA).
// See docs/evaluator.md. Debug builds are never affected.
let portableBuild = ProcessInfo.processInfo.environment["GLUCOMODEL_PORTABLE"] == "1"
let hostCPUFlags: Set<Substring> = {
    #if arch(arm64)
    return ["fma"]  // every 64-bit ARM CPU has fused multiply-add
    #else
    guard let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
          let line = info.split(separator: "\n").first(where: { $0.hasPrefix("flags") }) else { return [] }
    return Set(line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == ":" }))
    #endif
}()
// AVX-512 hosts (GE_AVX512): 1 KB batches instead of 4 KB (_BatchBuffers), measured faster on
// the Intel Xeon (Sapphire Rapids class) this was tuned on; other hosts keep 4 KB, measured best on
// an AMD EPYC with AVX2. Vectors stay 256-bit there (LLVM's tuning for these CPUs): 512-bit loops
// (-Xcc -mprefer-vector-width=512) were faster still but changed the sign of some NaN results
// (docs/evaluator.md, "On another CPU").
let avx512Settings: [SwiftSetting] = [.define("GE_AVX512", .when(configuration: .release))]
let evaluatorSettings: [SwiftSetting] = portableBuild ? [] : [
    .unsafeFlags(["-target-cpu", "native"], .when(configuration: .release)),
] + (hostCPUFlags.contains("fma") ? [.define("GE_FMA", .when(configuration: .release))] : [])
  + (hostCPUFlags.contains("avx512f") ? avx512Settings : [])

let package = Package(
    name: "GlucoModel",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "GlucoModel", targets: ["GlucoModel"]),
        .library(name: "GrammarEvolution", targets: ["GrammarEvolution"]),
        .library(name: "EvaluatorBenchmarking", targets: ["EvaluatorBenchmarking"]),
        .executable(name: "glucomodel-train", targets: ["glucomodel-train"]),
        .executable(name: "glucomodel-predict", targets: ["glucomodel-predict"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
    ],
    targets: [
        // C libraries, linked through pkg-config (Debian: libopenblas-dev, liblapacke-dev).
        .systemLibrary(
            name: "COpenBLAS", pkgConfig: "openblas",
            providers: [.apt(["libopenblas-dev"])]),
        .systemLibrary(
            name: "CLAPACKE", pkgConfig: "lapacke",
            providers: [.apt(["liblapacke-dev"])]),
        // Safe Swift wrappers over BLAS/LAPACK: the only place their pointers are handled.
        .target(name: "LinearAlgebra", dependencies: ["COpenBLAS", "CLAPACKE"]),
        // A general grammatical-evolution engine. Knows nothing of glucose.
        .target(name: "GrammarEvolution", dependencies: ["LinearAlgebra"], swiftSettings: evaluatorSettings),
        // Tools to measure the evaluator: random tables and expressions, expression files,
        // headerless numeric CSV, timed runs (`glucomodel-train bench-eval`, Benchmarks/).
        .target(name: "EvaluatorBenchmarking", dependencies: ["GrammarEvolution"]),
        // The glucose domain: data in, series, models, evaluation, dosing, reports, store.
        .target(
            name: "GlucoModel",
            dependencies: [
                "GrammarEvolution", "LinearAlgebra",
                .product(name: "GRDB", package: "GRDB.swift"),
                // The store binds values straight into SQLite (Store/StoreBinding.swift).
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                // SHA-256 of imported files (BoringSSL's, with the CPU's SHA instructions where present).
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            resources: [.copy("Resources/grammars")]),
        // What both executables share: option groups (data input, time zone), the horizons
        // parser, the console. Knows command lines, not glucose rules.
        .target(
            name: "GlucoModelCommandLine",
            dependencies: ["GlucoModel", .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        .executableTarget(
            name: "glucomodel-train",
            dependencies: [
                "GlucoModel", "GlucoModelCommandLine", "GrammarEvolution", "EvaluatorBenchmarking",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .executableTarget(
            name: "glucomodel-predict",
            dependencies: [
                "GlucoModel", "GlucoModelCommandLine",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .testTarget(
            name: "GrammarEvolutionTests",
            dependencies: ["GrammarEvolution", "EvaluatorBenchmarking", "LinearAlgebra"]),
        // The command lines: help texts pinned, options checked, --store against the files.
        .testTarget(
            name: "CommandLineTests",
            dependencies: ["glucomodel-train", "glucomodel-predict", "GlucoModelCommandLine", "GlucoModel",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")],
            exclude: ["Help"]),
        .testTarget(
            name: "ModelTests",
            dependencies: ["GlucoModel", "GrammarEvolution", "LinearAlgebra", .product(name: "GRDB", package: "GRDB.swift")],
            resources: [.copy("Fixtures")]),
    ],
    swiftLanguageModes: [.v6]
)
