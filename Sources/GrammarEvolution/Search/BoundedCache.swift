/// A bounded least-recently-used map. When full, the least recently used half is dropped at
/// once (amortised O(1) per access; exact LRU order is not needed for a cache).
///
/// Used for program -> error and phenotype -> program. Because evaluators are deterministic,
/// the cache changes only speed, never results (`Evolution` counts its hits).
struct BoundedCache<Key: Hashable, Value> {
    private var entries: [Key: (value: Value, stamp: Int)] = [:]
    private var clock = 0
    let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    var count: Int { entries.count }

    mutating func value(for key: Key) -> Value? {
        clock += 1
        guard let e = entries[key] else { return nil }
        entries[key] = (e.value, clock)
        return e.value
    }

    mutating func insert(_ value: Value, for key: Key) {
        guard capacity > 0 else { return }
        clock += 1
        if entries.count >= capacity, entries[key] == nil { evictOldestHalf() }
        entries[key] = (value, clock)
    }

    private mutating func evictOldestHalf() {
        let stamps = entries.values.map(\.stamp).sorted()
        let cut = stamps[stamps.count / 2]
        entries = entries.filter { $0.value.stamp > cut }
    }
}
