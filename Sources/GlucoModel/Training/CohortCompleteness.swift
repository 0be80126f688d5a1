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
    /// Models a shard was to train that are not in `models/` (or cannot be read), at every horizon
    /// any shard was asked for: a task run with fewer horizons than the others leaves its patients
    /// without the rest.
    public var missingModels: [(patient: PatientID, horizon: Int)] = []
    /// Models of the shards' patients trained with options other than those of most of the models
    /// (a task resubmitted with other options), with those options in words: the table would
    /// mix two experiments. Empty when every model has the same options.
    public var otherOptions: [(options: String, models: [(patient: PatientID, horizon: Int)])] = []
    /// The options of most of the models, in words, when some have others.
    public var commonOptions: String?

    public var isComplete: Bool {
        missingShards.isEmpty && unfinishedShards.isEmpty && failures.isEmpty && missingModels.isEmpty && otherOptions.isEmpty
    }

    /// Checks `output` (the `--out` every shard used).
    /// - Throws: `ShardLedger.LedgerError.unreadable` when the recorded count is not a number.
    public static func check(_ output: URL) throws -> CohortCompleteness {
        var c = CohortCompleteness()
        guard let count = try ShardLedger.recordedCount(in: output) else { return c }
        c.shardCount = count
        let reports = ShardLedger.reports(in: output, count: count)
        let settings = CohortRunSettings(output: output)
        let horizons = Set(reports.values.flatMap(\.horizons)).sorted()
        var bySettings: [String: (options: String, models: [(patient: PatientID, horizon: Int)])] = [:]
        for i in 0..<count {
            guard let report = reports[i] else { c.missingShards.append(i); continue }
            if !report.finished { c.unfinishedShards.append(i) }
            c.failures += report.failures.map { "shard \(report.shard): " + CohortOutcome.failureLine(subject: $0.subject, message: $0.message) }
            for patient in report.patients {
                for h in horizons {
                    guard let model = try? GlucoseModel.read(from: settings.modelURL(patient, h)) else {
                        c.missingModels.append((patient, h))
                        continue
                    }
                    bySettings[model.settings, default: (Self.options(of: model), [])].models.append((patient, h))
                }
            }
        }
        // The options most models share (of equal counts, the first fingerprint) are the cohort's.
        let groups = bySettings.sorted { $0.value.models.count != $1.value.models.count ? $0.value.models.count > $1.value.models.count : $0.key < $1.key }
        if groups.count > 1 {
            c.commonOptions = groups[0].value.options
            c.otherOptions = groups.dropFirst().map(\.value)
        }
        return c
    }

    /// The options of `model` a researcher sets, in words (`population 600, 100 generations,
    /// seed 1, ...`); two models whose settings differ only elsewhere read alike, and are told apart
    /// by their settings fingerprint.
    static func options(of model: GlucoseModel) -> String {
        "population \(model.evolution.populationSize), \(Plural.of(model.evolution.generations, "generation")), seed \(model.seed), "
            + "\(Plural.of(model.searches ?? 1, "search", plural: "searches")), fitness \(model.fitness.rawValue), base \(model.base.rawValue), "
            + "grammar \(model.grammar.name) (settings \(model.settings))"
    }

    /// The line `collect` ends an incomplete run with: `incomplete: 1 model missing, 2 failures,
    /// 1 of 4 shards not finished`; nil when complete.
    public var closingLine: String? {
        guard !isComplete else { return nil }
        let mixed = otherOptions.map(\.models.count).reduce(0, +)
        return "incomplete: \(Plural.of(missingModels.count, "model")) missing, \(Plural.of(failures.count, "failure")), "
            + (mixed > 0 ? "\(Plural.of(mixed, "model")) trained with other options, " : "")
            + "\(missingShards.count + unfinishedShards.count) of \(Plural.of(shardCount ?? 1, "shard")) not finished"
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
        for other in otherOptions {
            let byPatient = Dictionary(grouping: other.models, by: \.patient).sorted { $0.key < $1.key }
            let list = byPatient.map { "\($0.key) at \($0.value.map { "\($0.horizon)" }.joined(separator: ", ")) min" }
            out.append("trained with other options (a task run with options the others did not have?): "
                       + "\(Plural.of(other.models.count, "model")) with \(other.options), the rest with \(commonOptions ?? "other options"): "
                       + list.joined(separator: "; "))
        }
        if !missingModels.isEmpty {
            let byPatient = Dictionary(grouping: missingModels, by: \.patient)
            for (patient, models) in byPatient.sorted(by: { $0.key < $1.key }) {
                out.append("missing: \(patient) at \(models.map { "\($0.horizon)" }.joined(separator: ", ")) min")
            }
        }
        return out
    }
}
