import Foundation

/// How a training run was asked to split the cohort, and the shard that request comes to once the
/// output folder's recorded split (`ShardLedger`) is taken into account.
public enum ShardRequest: Sendable, Equatable {
    /// Every patient (no sharding, nothing recorded).
    case whole
    /// `--shard i/n`.
    case fixed(Shard)
    /// A job-array task: `count` shards (nil: the recorded count, else the array's size), the
    /// shard being `task.id mod count`.
    case array(task: ArrayTask, count: Int?)

    /// The shard to train, after checking the request against the output folder's recorded count
    /// and recording it when none is: nil for `.whole`.
    /// - Throws: `ShardLedger.LedgerError` (another count is recorded), `ArrayTask.TaskError`
    ///   (no count to be had, or an array that would train a shard twice), file-system errors.
    public func resolve(output: URL) throws -> Shard? {
        let shard: Shard
        switch self {
        case .whole:
            return nil
        case let .fixed(s):
            shard = s
        case let .array(task, count):
            let n: Int
            if let count {
                n = count
            } else if let recorded = try ShardLedger.recordedCount(in: output) {
                n = recorded
            } else {
                n = try task.countFromArray()
            }
            shard = try task.shard(count: n)
        }
        try ShardLedger.settle(shard.count, in: output)
        return shard
    }
}
