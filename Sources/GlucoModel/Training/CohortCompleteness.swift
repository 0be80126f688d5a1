import Foundation

/// What a sharded run's output folder lacks: shards that never reported or did not finish,
/// patients that failed, and (patient, horizon) models that are not there.
///
/// Read from the ledger (`ShardLedger`): the recorded shard count, each shard's report, and the
/// model files. A folder with no recorded count (an unsharded run) is complete by this check.
public struct CohortCompleteness: Sendable {
    public var shardCount: Int?
    /// Shards with no report: their task never started (or not in this folder).
    public var missingShards: [Int] = []
    /// Shards whose report says the task has not finished: still running, or killed.
    public var unfinishedShards: [Int] = []
    /// Failures the shards reported, as `shard i/n: subject: message`.
    public var failures: [String] = []
    /// Models a shard was to train that are not in `models/` (or cannot be read).
    public var missingModels: [(patient: PatientID, horizon: Int)] = []

    public var isComplete: Bool {
        missingShards.isEmpty && unfinishedShards.isEmpty && failures.isEmpty && missingModels.isEmpty
    }

    /// Checks `output` (the `--out` every shard used).
    /// - Throws: `ShardLedger.LedgerError.unreadable` when the recorded count is not a number.
    public static func check(_ output: URL) throws -> CohortCompleteness {
        var c = CohortCompleteness()
        guard let count = try ShardLedger.recordedCount(in: output) else { return c }
        c.shardCount = count
        let reports = ShardLedger.reports(in: output, count: count)
        let settings = CohortRunSettings(output: output)
        for i in 0..<count {
            guard let report = reports[i] else { c.missingShards.append(i); continue }
            if !report.finished { c.unfinishedShards.append(i) }
            c.failures += report.failures.map { "shard \(report.shard): " + CohortOutcome.failureLine(subject: $0.subject, message: $0.message) }
            for patient in report.patients {
                for h in report.horizons where (try? GlucoseModel.read(from: settings.modelURL(patient, h))) == nil {
                    c.missingModels.append((patient, h))
                }
            }
        }
        return c
    }

    /// A readable account, one finding per line; empty when complete.
    public var lines: [String] {
        guard let n = shardCount else { return [] }
        var out: [String] = []
        if !missingShards.isEmpty {
            out.append("shards that never reported (their task did not start): \(missingShards.map { "\($0)/\(n)" }.joined(separator: ", "))")
        }
        if !unfinishedShards.isEmpty {
            out.append("shards that did not finish (still running, or killed): \(unfinishedShards.map { "\($0)/\(n)" }.joined(separator: ", "))")
        }
        out += failures.map { "failed: \($0)" }
        if !missingModels.isEmpty {
            let byPatient = Dictionary(grouping: missingModels, by: \.patient)
            for (patient, models) in byPatient.sorted(by: { $0.key < $1.key }) {
                out.append("missing: \(patient) at \(models.map { "\($0.horizon)" }.joined(separator: ", ")) min")
            }
        }
        return out
    }
}
