/// One part of a cohort split across machines: `index` of `count`, 0-based, as a Slurm job
/// array (`$SLURM_ARRAY_TASK_ID`) or a Kubernetes indexed job (`$JOB_COMPLETION_INDEX`) numbers them.
///
/// Patients are sorted by id and dealt round-robin, so every patient is in exactly one shard
/// whatever the order the files were found in, and shard sizes differ by at most one.
public struct Shard: Hashable, Sendable, CustomStringConvertible {
    public let index: Int
    public let count: Int

    public static let whole = Shard(uncheckedIndex: 0, count: 1)

    public enum ParseError: Error, CustomStringConvertible {
        case malformed(String)
        public var description: String {
            switch self {
            case let .malformed(s): return "shard '\(s)' must be i/n with 0 <= i < n, e.g. 0/4"
            }
        }
    }

    /// Parses `i/n`.
    public init(_ text: String) throws {
        let parts = text.split(separator: "/")
        guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]), n >= 1, i >= 0, i < n else {
            throw ParseError.malformed(text)
        }
        self.init(uncheckedIndex: i, count: n)
    }

    init(uncheckedIndex index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// The members of this shard among `patients`.
    public func select(_ patients: [PatientID]) -> [PatientID] {
        Array(Set(patients)).sorted().enumerated().filter { $0.offset % count == index }.map(\.element)
    }

    public var description: String { "\(index)/\(count)" }
}
