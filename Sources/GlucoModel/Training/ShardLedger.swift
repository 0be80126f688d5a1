import Foundation

/// What the shards of a job array write into their shared output folder, so that a resubmitted
/// task trains the same split and `collect` can tell what is missing.
///
/// - `shards/count`: the number of shards the folder is split into, written by the first task
///   (made complete, then linked into place: two tasks starting at once cannot both record a count);
///   every later task must use the same count.
/// - `shards/<i>-of-<n>.json`: shard `i`'s report (`ShardReport`), written atomically when its task
///   starts (`finished: false`) and again when it ends.
public enum ShardLedger {
    public enum LedgerError: Error, CustomStringConvertible {
        case otherCount(recorded: Int, requested: Int, file: String)
        case unreadable(file: String)

        public var description: String {
            switch self {
            case let .otherCount(recorded, requested, file):
                return "\(file) says this output folder is split into \(recorded) shards, not \(requested): "
                    + "use --shards \(recorded) (resubmitted tasks must keep the split), or a new --out; "
                    + "to re-split on purpose, delete \(file) once no task of the earlier array runs"
            case let .unreadable(file):
                return "\(file) is not a shard count (one whole number); delete it once no task of the array runs"
            }
        }
    }

    static func folder(_ output: URL) -> URL { output.appendingPathComponent("shards") }
    static func countFile(_ output: URL) -> URL { folder(output).appendingPathComponent("count") }
    static func reportFile(_ output: URL, _ shard: Shard) -> URL {
        folder(output).appendingPathComponent("\(shard.index)-of-\(shard.count).json")
    }

    /// The shard count recorded in `output`, or nil when none is.
    public static func recordedCount(in output: URL) throws -> Int? {
        let url = countFile(output)
        guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let n = Int(text), n >= 1 else { throw LedgerError.unreadable(file: url.path) }
        return n
    }

    /// Records `count` as the output folder's shard count, or checks that it is the recorded one.
    /// - Throws: `LedgerError.otherCount` when another count is recorded; file-system errors.
    public static func settle(_ count: Int, in output: URL) throws {
        let url = countFile(output)
        if let recorded = try recordedCount(in: output) {
            guard recorded == count else { throw LedgerError.otherCount(recorded: recorded, requested: count, file: url.path) }
            return
        }
        let fm = FileManager.default
        try fm.createDirectory(at: folder(output), withIntermediateDirectories: true)
        let temporary = folder(output).appendingPathComponent(".count-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)")
        try Data("\(count)\n".utf8).write(to: temporary)
        defer { try? fm.removeItem(at: temporary) }
        // A link fails when the name exists: of tasks starting at once, exactly one records its count.
        do { try fm.linkItem(at: temporary, to: url) } catch {
            guard let recorded = try recordedCount(in: output) else { throw error }
            guard recorded == count else { throw LedgerError.otherCount(recorded: recorded, requested: count, file: url.path) }
        }
    }

    /// Writes `report` atomically as its shard's report.
    public static func write(_ report: ShardReport, in output: URL) throws {
        try FileManager.default.createDirectory(at: folder(output), withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try AtomicTextFile.write(encoder.encode(report), to: reportFile(output, report.shard))
    }

    /// An unsharded run's own report, `OUT/run.json` (the same schema as a shard's: its patients,
    /// horizons, failures, and whether it finished), so that `collect` can name the patients a run
    /// left out after its terminal is gone.
    static func runReportFile(_ output: URL) -> URL { output.appendingPathComponent("run.json") }

    /// Writes `report` atomically as the unsharded run's report.
    public static func writeRun(_ report: ShardReport, in output: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try AtomicTextFile.write(encoder.encode(report), to: runReportFile(output))
    }

    /// The unsharded run's report, if one was written and can be read.
    public static func runReport(in output: URL) -> ShardReport? {
        guard let data = FileManager.default.contents(atPath: runReportFile(output).path) else { return nil }
        return try? JSONDecoder().decode(ShardReport.self, from: data)
    }

    /// The report of every shard of `count` that has one, by shard index.
    public static func reports(in output: URL, count: Int) -> [Int: ShardReport] {
        var out: [Int: ShardReport] = [:]
        for i in 0..<count {
            let url = reportFile(output, Shard(uncheckedIndex: i, count: count))
            guard let data = FileManager.default.contents(atPath: url.path),
                  let report = try? JSONDecoder().decode(ShardReport.self, from: data) else { continue }
            out[i] = report
        }
        return out
    }
}

/// One shard's account of its task: its patients, the horizons asked for, what failed.
public struct ShardReport: Codable, Sendable, Equatable {
    public struct Failure: Codable, Sendable, Equatable {
        public var subject: String
        public var message: String
        public init(subject: String, message: String) { self.subject = subject; self.message = message }
    }

    /// The file's version (docs/formats.md): 1; nil in a report written before it had one.
    public var version: Int? = ShardReport.currentVersion
    public static let currentVersion = 1
    public var index: Int
    public var count: Int
    /// The shard's patients, as scanned from its files.
    public var patients: [PatientID]
    public var horizons: [Int]
    public var failures: [Failure]
    /// False while the task runs (or when it was killed before the end).
    public var finished: Bool

    public var shard: Shard { Shard(uncheckedIndex: index, count: count) }

    public init(shard: Shard, patients: [PatientID], horizons: [Int], failures: [Failure] = [], finished: Bool = false) {
        index = shard.index; count = shard.count
        self.patients = patients; self.horizons = horizons; self.failures = failures; self.finished = finished
    }
}
