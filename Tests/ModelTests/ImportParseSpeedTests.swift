import Foundation
import GlucoModel
import Testing

/// Parse-only throughput: each file named in `GLUCOMODEL_PARSE_SPEED` (separated by `:`) is read
/// into memory by its importer (no store) `GLUCOMODEL_PARSE_REPEAT` times (default 3), and the best
/// run is printed as MB/s and rows/s. Run by `scripts/measure-large-import.sh --parse-only` in a
/// release build; does nothing unless the variable is set, so CI skips it.
@Suite("Import parse speed (measurement)")
struct ImportParseSpeedTests {
    // A measurement: shown as skipped unless GLUCOMODEL_PARSE_SPEED is set (it asserted nothing, and passed, in CI).
    @Test(.enabled(if: ProcessInfo.processInfo.environment["GLUCOMODEL_PARSE_SPEED"] != nil)) func parseLargeFiles() throws {
        let list = try #require(ProcessInfo.processInfo.environment["GLUCOMODEL_PARSE_SPEED"])
        let repeats = Int(ProcessInfo.processInfo.environment["GLUCOMODEL_PARSE_REPEAT"] ?? "") ?? 3
        for path in list.split(separator: ":").map(String.init) {
            let url = URL(fileURLWithPath: path)
            var options = ImportOptions(timeZone: TimeZone(identifier: "Europe/Madrid") ?? .current)
            // A device export read through a column mapping (scripts/generate-large-exports.py's `mapped`).
            if url.lastPathComponent.contains("mapped") {
                options.columns = try CSVColumnMapping(parsing: "time=time,glucose=glucose,bolus=bolus,carbs=carbs")
            }
            let bytes = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
            var best = Double.infinity, bestCPU = Double.infinity
            var rows = 0, kept = 0
            for _ in 0..<max(1, repeats) {
                let start = Date()
                let cpu0 = clock()
                let r = try ImportFormats.importFile(at: url, options: options)
                best = min(best, Date().timeIntervalSince(start))
                bestCPU = min(bestCPU, Double(clock() - cpu0) / Double(CLOCKS_PER_SEC))
                rows = r.summary.rowsRead
                kept = r.summary.recordsKept
            }
            let mb = Double(bytes) / 1_000_000
            print(String(format: "parse %@: %.1f MB, best of %d: %.3f s wall = %.1f MB/s = %.0f rows/s (%.3f s CPU = %.1f MB/s); %d rows, %d kept",
                         url.lastPathComponent, mb, max(1, repeats), best, mb / best, Double(rows) / best,
                         bestCPU, mb / bestCPU, rows, kept))
            #expect(kept > 0)
        }
    }
}
