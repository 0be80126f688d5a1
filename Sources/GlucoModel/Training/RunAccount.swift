import Foundation

/// What a training run keeps of itself in its output folder while it runs, so that a scheduler,
/// `collect` and the next run can tell what it is training, what it could not, and why: a job array
/// task's report in `OUT/shards/` (`ShardLedger.write`), an unsharded run's in `OUT/run.json`
/// (`ShardLedger.writeRun`); the same schema, `ShardReport` (docs/formats.md).
///
/// The account is written when the run has its patients (`begin`, not finished: a task killed from
/// then on shows as unfinished) and again at the end (`finish`).
public struct RunAccount: Sendable {
    public typealias Failure = ShardReport.Failure

    /// The job array task's shard; nil for an unsharded run.
    public let shard: Shard?
    public let output: URL
    public let horizons: [Int]
    /// The patients the run is to train (a shard's as scanned from its files, before they are read).
    public private(set) var patients: [PatientID] = []
    /// What could not be read or trained so far: skipped files, failing patients.
    public private(set) var failures: [Failure] = []

    public init(shard: Shard?, output: URL, horizons: [Int]) {
        self.shard = shard; self.output = output; self.horizons = horizons
    }

    public mutating func record(_ failures: [Failure]) { self.failures += failures }

    /// The run has its patients: written as not finished.
    public mutating func begin(patients: [PatientID]) throws {
        self.patients = patients
        try write(ShardReport(shard: shard ?? .whole, patients: patients, horizons: horizons, failures: failures))
    }

    /// The run ended, every patient trained or failed: written as finished, with its failures.
    public func finish() throws {
        try write(ShardReport(shard: shard ?? .whole, patients: patients, horizons: horizons, failures: failures, finished: true))
    }

    /// A job array task stopped by `error` once it knows its shard (no data, an unreadable store)
    /// says so in its report, finished with the error as a failing patient's would be: `collect`
    /// then lists the failure, not a shard whose task never started. Best effort, since the run is
    /// already failing; nothing for an unsharded run.
    public func stopped(by error: Error) {
        guard let shard else { return }
        try? ShardLedger.write(ShardReport(shard: shard, patients: patients, horizons: horizons,
                                           failures: [.init(subject: "task stopped", message: "\(error)")], finished: true),
                               in: output)
    }

    private func write(_ report: ShardReport) throws {
        if shard != nil { try ShardLedger.write(report, in: output) } else { try ShardLedger.writeRun(report, in: output) }
    }
}
