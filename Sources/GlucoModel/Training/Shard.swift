/// One part of a cohort split across machines: `index` of `count`, 0-based.
///
/// Patients are sorted by id and dealt round-robin, so every patient is in exactly one shard
/// whatever the order the files were found in, and shard sizes differ by at most one. The split
/// depends only on the set of ids and `count`: resubmitting any shard with the same data and
/// count trains the same patients.
public struct Shard: Hashable, Sendable, CustomStringConvertible {
    public let index: Int
    public let count: Int

    public static let whole = Shard(uncheckedIndex: 0, count: 1)

    public enum ParseError: Error, CustomStringConvertible {
        case malformed(String)
        case badCount(Int)
        case badTask(Int)
        public var description: String {
            switch self {
            case let .malformed(s): return "shard '\(s)' must be i/n with 0 <= i < n, e.g. 0/4"
            case let .badCount(n): return "the shard count must be at least 1, not \(n)"
            case let .badTask(t): return "an array task id must be 0 or more, not \(t)"
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

    /// The shard of array task `task` when the cohort is split into `count` shards:
    /// `index = task mod count`.
    ///
    /// Any `count` consecutive task ids therefore cover every shard exactly once: a 0-based array
    /// (`0..<count`) and a 1-based one (`1...count`, whose last task trains shard 0) give the same
    /// split, and resubmitting a task with its own id trains the same shard again.
    public init(task: Int, count: Int) throws {
        guard count >= 1 else { throw ParseError.badCount(count) }
        guard task >= 0 else { throw ParseError.badTask(task) }
        self.init(uncheckedIndex: task % count, count: count)
    }

    init(uncheckedIndex index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// Whether the member at `position` of the sorted, distinct keys belongs to this shard.
    public func contains(position: Int) -> Bool { position % count == index }

    /// The members of this shard among `keys` (patient ids, or any sortable key), sorted.
    public func select<Key: Comparable & Hashable>(_ keys: [Key]) -> [Key] {
        Array(Set(keys)).sorted().enumerated().filter { contains(position: $0.offset) }.map(\.element)
    }

    public var description: String { "\(index)/\(count)" }
}
