import Foundation

/// One task of a scheduler's job array, as the scheduler describes it in the environment:
/// Slurm's `SLURM_ARRAY_TASK_ID` (with `SLURM_ARRAY_TASK_MIN`, `_MAX`, `_COUNT` for the whole
/// array as submitted), or a Kubernetes Indexed Job's `JOB_COMPLETION_INDEX`.
///
/// Its shard is `id mod n` (`Shard(task:count:)`). The one way that could train a shard twice at
/// once, an array whose ids span more than `n` numbers (`--array=0-16` for 16 shards), is refused.
public struct ArrayTask: Sendable, Equatable {
    public var id: Int
    /// The lowest and highest id of the array this task was submitted with (Slurm only).
    public var minID: Int?
    public var maxID: Int?
    /// The number of tasks of the array as submitted (Slurm only).
    public var taskCount: Int?
    /// Where the id came from, for messages.
    public var source: String

    public enum TaskError: Error, CustomStringConvertible, Equatable {
        case notANumber(variable: String, value: String)
        case spansMoreThanShards(minID: Int, maxID: Int, shards: Int)
        case unknownSize(String)

        public var description: String {
            switch self {
            case let .notANumber(variable, value):
                return "\(variable)='\(value.prefix(20))' is not a task id (a whole number, 0 or more)"
            case let .spansMoreThanShards(lo, hi, n):
                return "this array's task ids \(lo)-\(hi) span \(hi - lo + 1) numbers but the cohort is split into \(n) shards, "
                    + "so two tasks would train the same shard: submit ids within \(n) consecutive numbers (0-\(n - 1) or 1-\(n)), "
                    + "or give the shard count you mean"
            case let .unknownSize(why):
                return "no shard count given and none recorded in the output folder, and \(why): give the shard count (--shards N)"
            }
        }
    }

    public init(id: Int, minID: Int? = nil, maxID: Int? = nil, taskCount: Int? = nil, source: String) {
        self.id = id; self.minID = minID; self.maxID = maxID; self.taskCount = taskCount; self.source = source
    }

    /// The task described by `environment`, or nil when it names none.
    /// - Throws: `TaskError.notANumber` when a variable is set but not a task id.
    public init?(environment: [String: String]) throws {
        func number(_ name: String) throws -> Int? {
            guard let text = environment[name] else { return nil }
            guard let n = Int(text.trimmingCharacters(in: .whitespaces)), n >= 0 else {
                throw TaskError.notANumber(variable: name, value: text)
            }
            return n
        }
        if let id = try number("SLURM_ARRAY_TASK_ID") {
            self.init(id: id, minID: try number("SLURM_ARRAY_TASK_MIN"), maxID: try number("SLURM_ARRAY_TASK_MAX"),
                      taskCount: try number("SLURM_ARRAY_TASK_COUNT"), source: "SLURM_ARRAY_TASK_ID")
        } else if let id = try number("JOB_COMPLETION_INDEX") {
            self.init(id: id, source: "JOB_COMPLETION_INDEX")
        } else {
            return nil
        }
    }

    /// This task's shard when the cohort is split into `count` shards.
    /// - Throws: `TaskError.spansMoreThanShards` when the array's ids span more than `count` numbers;
    ///   `Shard.ParseError` for a count below 1.
    public func shard(count: Int) throws -> Shard {
        let shard = try Shard(task: id, count: count)
        if let lo = minID, let hi = maxID, hi - lo + 1 > count {
            throw TaskError.spansMoreThanShards(minID: lo, maxID: hi, shards: count)
        }
        return shard
    }

    /// The shard count of an array submitted without one: its number of tasks, which must be
    /// consecutive ids (`--array=0-15`, `--array=1-3`), so that every shard has a task.
    /// - Throws: `TaskError.unknownSize` when the scheduler does not say, or the ids have gaps.
    public func countFromArray() throws -> Int {
        guard let n = taskCount, let lo = minID, let hi = maxID else {
            throw TaskError.unknownSize("\(source) comes without the array's size")
        }
        guard hi - lo + 1 == n else {
            throw TaskError.unknownSize("this array's \(n) task ids between \(lo) and \(hi) are not consecutive")
        }
        return n
    }
}
