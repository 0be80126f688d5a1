/// How many pairs fell in each zone of one grid, and how many were not scored.
public struct ZoneCounts: Hashable, Sendable, Codable {
    public let grid: ErrorGrid
    /// Pairs per zone, indexed A...E.
    public private(set) var counts: [Int] = [0, 0, 0, 0, 0]
    /// Pairs outside the grid's domain (missing, non-finite, reference <= 0 or prediction < 0).
    public private(set) var unscored = 0

    public init(grid: ErrorGrid) { self.grid = grid }

    /// Scores every pair independently and counts the zones.
    public init(grid: ErrorGrid, pairs: some Sequence<GlucosePair>) {
        self.init(grid: grid)
        for pair in pairs { add(grid.zone(pair)) }
    }

    /// Counts one scored zone, or one unscored pair for nil.
    public mutating func add(_ zone: ErrorGridZone?) {
        if let zone { counts[zone.severity] += 1 } else { unscored += 1 }
    }

    public subscript(zone: ErrorGridZone) -> Int { counts[zone.severity] }

    public var scored: Int { counts.reduce(0, +) }

    /// Percentage of the scored pairs in `zone`; NaN when no pair was scored.
    public func percent(_ zone: ErrorGridZone) -> Double {
        scored == 0 ? .nan : 100 * Double(self[zone]) / Double(scored)
    }

    /// Percentage of the scored pairs in zones A or B; NaN when no pair was scored.
    public var percentAB: Double {
        scored == 0 ? .nan : 100 * Double(self[.a] + self[.b]) / Double(scored)
    }

    /// One line: `Clarke: A 812 (81.2%)  B ...  A+B 95.0%  unscored 3`.
    public var summaryLine: String {
        var parts = ["\(grid):"]
        for zone in ErrorGridZone.allCases {
            parts.append("\(zone) \(self[zone]) (\(formatPercent(percent(zone))))")
        }
        parts.append("A+B \(formatPercent(percentAB))")
        parts.append("scored \(scored)")
        parts.append("unscored \(unscored)")
        return parts.joined(separator: "  ")
    }
}
