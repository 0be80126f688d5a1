import Foundation

/// What a run's output folder lacks, or mixes: model files that cannot be read, models trained
/// with other options than most (two experiments in one folder); patients that failed and
/// (patient, horizon) models that are not there; and for a sharded run, shards that never reported
/// or did not finish.
///
/// Read from the model files and the ledger (`ShardLedger`): for a sharded run the recorded shard
/// count and each shard's report, for an unsharded one its `run.json`.
public struct CohortCompleteness: Sendable {
    /// The recorded shard count; nil for an unsharded run, whose folder is checked for unreadable
    /// and mixed models only.
    public var shardCount: Int?
    /// Shards with no report: their task never started (or not in this folder).
    public var missingShards: [Int] = []
    /// Shards whose report says the task has not finished: still running, or killed.
    public var unfinishedShards: [Int] = []
    /// Failures the shards reported, as `shard i/n: subject: message` (an unsharded run's, from its
    /// `run.json`, as `subject: message`).
    public var failures: [String] = []
    /// An unsharded run whose `run.json` says it has not finished: still running, or killed.
    public var unfinishedRun = false
    /// Models a shard was to train that are not in `models/`, at every horizon any shard was asked
    /// for: a task run with fewer horizons than the others leaves its patients without the rest.
    public var missingModels: [(patient: PatientID, horizon: Int)] = []
    /// Model files in `models/` that cannot be read (cut short, hand-edited), with the reason: their
    /// rows are not in `results.csv`.
    public var unreadableModels: [String] = []
    /// Models trained with options other than those of most of the models (a task resubmitted with
    /// other options, an earlier run into the same folder), with those options in words: the table
    /// would mix two experiments. Empty when every model has the same options.
    public var otherOptions: [(options: String, models: [(patient: PatientID, horizon: Int)])] = []
    /// The options of most of the models, in words, when some have others.
    public var commonOptions: String?

    public var isComplete: Bool {
        missingShards.isEmpty && unfinishedShards.isEmpty && failures.isEmpty && missingModels.isEmpty
            && unreadableModels.isEmpty && otherOptions.isEmpty && !unfinishedRun
    }

    /// Checks `output` (the `--out` of the run, or the one every shard used). `current`: the
    /// settings fingerprint of the run that has just trained into it, whose models are then the
    /// ones the others are told apart from (else those of most models).
    /// - Throws: `ShardLedger.LedgerError.unreadable` when the recorded count is not a number.
    public static func check(_ output: URL, current: String? = nil) throws -> CohortCompleteness {
        var c = CohortCompleteness()
        var bySettings: [String: (options: String, models: [(patient: PatientID, horizon: Int)])] = [:]
        func read(_ url: URL) -> GlucoseModel? {
            do { return try GlucoseModel.read(from: url) } catch {
                c.unreadableModels.append("\(error)")
                return nil
            }
        }
        func add(_ model: GlucoseModel) {
            bySettings[model.settings, default: (Self.options(of: model), [])].models.append((model.patient, model.horizonMinutes))
        }
        if let count = try ShardLedger.recordedCount(in: output) {
            c.shardCount = count
            let reports = ShardLedger.reports(in: output, count: count)
            let settings = CohortRunSettings(output: output)
            let horizons = Set(reports.values.flatMap(\.horizons)).sorted()
            for i in 0..<count {
                guard let report = reports[i] else { c.missingShards.append(i); continue }
                if !report.finished { c.unfinishedShards.append(i) }
                c.failures += report.failures.map { "shard \(report.shard): " + CohortOutcome.failureLine(subject: $0.subject, message: $0.message) }
                for patient in report.patients {
                    for h in horizons {
                        let url = settings.modelURL(patient, h)
                        guard FileManager.default.fileExists(atPath: url.path) else { c.missingModels.append((patient, h)); continue }
                        if let model = read(url) { add(model) }
                    }
                }
            }
        } else {
            for url in CohortResults.modelFiles(output) {
                if let model = read(url) { add(model) }
            }
        }
        // The last unsharded run's own account: what it could not train, and why. In a job array's
        // folder (an unsharded run into it after the array) only the failures of patients still
        // without a model count: an earlier run's, trained since by a task, are history (hunt U).
        if let run = ShardLedger.runReport(in: output) {
            c.unfinishedRun = !run.finished
            let settings = CohortRunSettings(output: output)
            var stillMissing = Set<String>()
            for patient in run.patients {
                for h in run.horizons where !FileManager.default.fileExists(atPath: settings.modelURL(patient, h).path) {
                    stillMissing.insert(patient.rawValue)
                    if !c.missingModels.contains(where: { $0.patient == patient && $0.horizon == h }) { c.missingModels.append((patient, h)) }
                }
            }
            let failures = c.shardCount == nil ? run.failures
                : run.failures.filter { stillMissing.contains($0.subject.split(separator: " ").first.map(String.init) ?? "") }
            c.failures += failures.map { CohortOutcome.failureLine(subject: $0.subject, message: $0.message) }
        }
        // The current run's options, or those most models share (of equal counts, the first
        // fingerprint), are the cohort's.
        let groups = bySettings.sorted { a, b in
            if (a.key == current) != (b.key == current) { return a.key == current }
            return a.value.models.count != b.value.models.count ? a.value.models.count > b.value.models.count : a.key < b.key
        }
        if groups.count > 1 {
            let common = groups[0].value.options
            c.otherOptions = groups.dropFirst().map { group in
                // Options in the same words differ where a model file does not say (hunt X).
                let unrecorded = group.value.options == common ? " (options a model file does not record, such as --terms, --keep-sensor-limits or whether --curves held the weights)" : ""
                return (group.value.options + " (settings \(group.key))" + unrecorded,
                        group.value.models.sorted { ($0.patient, $0.horizon) < ($1.patient, $1.horizon) })
            }
            c.commonOptions = common + " (settings \(groups[0].key))"
        }
        return c
    }

    /// The options of `model` a researcher sets, as far as its file records them, in words
    /// (`population 600, 100 generations, seed 1, ...`); two models whose settings differ only
    /// elsewhere read alike, and are told apart by their settings fingerprint.
    static func options(of model: GlucoseModel) -> String {
        "population \(model.evolution.populationSize), \(Plural.of(model.evolution.generations, "generation")), seed \(model.seed), "
            + "\(Plural.of(model.searches ?? 1, "search", plural: "searches")), fitness \(model.fitness.rawValue), base \(model.base.rawValue), "
            + "grammar \(model.grammar.name), "
            + (model.features.carbCurves.isEmpty && model.features.insulinCurves.isEmpty ? "the series' own curves" : "curves at several speeds")
            + (model.arx.ridge == ARXModel.defaultRidge ? "" : ", ARX ridge \(ARXRidge.fixed(model.arx.ridge).text)")
    }

    /// The line `collect` ends an incomplete run with: `incomplete: 1 model missing, 2 failures,
    /// 1 of 4 shards not finished`; nil when complete.
    public var closingLine: String? {
        guard !isComplete else { return nil }
        let mixed = otherOptions.map(\.models.count).reduce(0, +)
        let unreadable = unreadableModels.isEmpty ? "" : ", \(Plural.of(unreadableModels.count, "model file")) unreadable"
        let other = mixed > 0 ? ", \(Plural.of(mixed, "model")) trained with other options" : ""
        guard let shardCount else {
            return "incomplete" + (missingModels.isEmpty && failures.isEmpty ? ""
                : ": \(Plural.of(missingModels.count, "model")) missing, \(Plural.of(failures.count, "failure"))")
                + unreadable + other + (unfinishedRun ? ", the run did not finish" : "")
        }
        return "incomplete: \(Plural.of(missingModels.count, "model")) missing, \(Plural.of(failures.count, "failure"))"
            + unreadable + other
            + ", \(missingShards.count + unfinishedShards.count) of \(Plural.of(shardCount, "shard")) not finished"
            + (unfinishedRun ? ", the last unsharded run did not finish" : "")
    }

    /// A readable account, one finding per line; empty when complete.
    public var lines: [String] {
        var out = modelLines + shardLines
        if unfinishedRun { out.append("the last unsharded run into this folder did not finish (still running, or killed): run.json") }
        return out + failures.map { "failed: \($0)" } + missingLines
    }

    /// A job array's shards that never reported or did not finish (none for an unsharded folder).
    public var shardLines: [String] {
        guard let n = shardCount else { return [] }
        var out: [String] = []
        if !missingShards.isEmpty {
            out.append("shards that never reported (their task did not start): \(missingShards.map { "\($0)/\(n)" }.joined(separator: ", "))")
        }
        if !unfinishedShards.isEmpty {
            out.append("shards that did not finish (still running, or killed): \(unfinishedShards.map { "\($0)/\(n)" }.joined(separator: ", "))")
        }
        return out
    }

    /// The model files' findings alone: those that cannot be read, and those trained with other
    /// options (what a run says of the folder it wrote to, beside its own failures).
    public var modelLines: [String] {
        var out = unreadableModels.map { "not in results.csv: \($0)" }
        let guess = shardCount == nil ? "an earlier run into this folder?" : "a task run with options the others did not have?"
        for other in otherOptions {
            let byPatient = Dictionary(grouping: other.models, by: \.patient).sorted { $0.key < $1.key }
            let list = byPatient.map { "\($0.key) at \($0.value.map { "\($0.horizon)" }.joined(separator: ", ")) min" }
            out.append("trained with other options (\(guess)): "
                       + "\(Plural.of(other.models.count, "model")) with \(other.options), the rest with \(commonOptions ?? "other options"): "
                       + list.joined(separator: "; "))
        }
        return out
    }

    /// `missing: patient at 30, 60 min`, one line a patient.
    var missingLines: [String] {
        Dictionary(grouping: missingModels, by: \.patient).sorted { $0.key < $1.key }.map { patient, models in
            "missing: \(patient) at \(models.map { "\($0.horizon)" }.joined(separator: ", ")) min"
        }
    }
}
