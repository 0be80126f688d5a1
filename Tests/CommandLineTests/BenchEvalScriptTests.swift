import Foundation
import Testing

/// `scripts/bench-eval.sh`, run with the built `glucomodel-train` (no release build) on a small
/// workload: it prints Swift's speed against the C reference itself (hunt BV: the figures came in
/// separate blocks, in GPops/s over nodes each counted its own way, and the docs asked for ratios).
@Suite struct BenchEvalScriptTests {
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/cc"), "needs a C compiler"))
    func theScriptPrintsSwiftAgainstCByTime() throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("bench-eval-script-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [StoreOptionTests.packageRoot.appendingPathComponent("scripts/bench-eval.sh").path, "native", "500", "1"]
        var environment = ProcessInfo.processInfo.environment
        environment["GLUCOMODEL_TRAIN"] = StoreOptionTests.binaries.appendingPathComponent("glucomodel-train").path
        environment["TMPDIR"] = work.path
        process.environment = environment
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
        for set in ["arith", "mixed"] {
            #expect(text.contains("== \(set): Swift / C speed (C's minimum time per pass / Swift's; same expressions and rows"), "\(text)")
        }
        // One line per workload: three ratios (two decimals), each C's time over Swift's. This debug
        // build may be a hundred times slower than the C reference, which rounds to 0.00.
        let lines = text.split(separator: "\n").filter { $0.hasPrefix("native build: Float32 ") }
        #expect(lines.count == 2, "\(text)")
        for line in lines {
            let ratios = line.matches(of: /[0-9]+\.[0-9]{2}\b/).compactMap { Double(line[$0.range]) }
            #expect(ratios.count == 3 && ratios.allSatisfy { $0 >= 0 }, "\(line)")
        }
    }
}
