import Foundation
import GlucoModel
import Testing

/// Throughput of one large export, run by `scripts/measure-large-import.sh` in a release build
/// (which also measures peak RSS with `/usr/bin/time -v`). Does nothing unless the environment
/// variable `GLUCOMODEL_LARGE_IMPORT` names a file, so CI skips it.
@Suite("Large export import (measurement)")
struct ExportLargeImportTests {
    // A measurement: shown as skipped unless GLUCOMODEL_LARGE_IMPORT is set (it asserted nothing, and passed, in CI).
    @Test(.enabled(if: ProcessInfo.processInfo.environment["GLUCOMODEL_LARGE_IMPORT"] != nil)) func importLargeFile() throws {
        let path = try #require(ProcessInfo.processInfo.environment["GLUCOMODEL_LARGE_IMPORT"])
        let url = URL(fileURLWithPath: path)
        let bytes = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        let options = ImportOptions(timeZone: TimeZone(identifier: "Europe/Madrid") ?? .current)
        let start = Date()
        let cpu0 = clock()
        let r = try ImportFormats.importFile(at: url, options: options)
        let seconds = Date().timeIntervalSince(start)
        // Process CPU time too: the wall clock depends on what else the machine is running.
        let cpuSeconds = Double(clock() - cpu0) / Double(CLOCKS_PER_SEC)
        let mb = Double(bytes) / 1_000_000
        print(String(format: "large import %@: %.1f MB in %.2f s wall = %.1f MB/s (%.2f s CPU = %.1f MB/s); %d rows, %d records kept, %d skipped",
                     url.lastPathComponent, mb, seconds, mb / seconds, cpuSeconds, mb / cpuSeconds,
                     r.summary.rowsRead, r.summary.recordsKept, r.summary.rowsSkipped))
        #expect(r.summary.recordsKept > 0)
        #expect(cleanlinessProblems(r).isEmpty)
    }
}
