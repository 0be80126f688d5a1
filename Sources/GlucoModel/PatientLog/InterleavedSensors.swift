import Foundation

/// CGM readings of two sensors interleaved in one person's log (a Dexcom and a Libre imported
/// together, or one file fed by two uploaders): pairs of consecutive readings closer together than
/// one CGM reads and further apart than living glucose moves. A dose refuses on them
/// (`interleaved_sensors`, `DoseGuards.interleavedSensors`) and the report notes them: glucose now,
/// the trend, the time below 54 and its episodes are a mix of both sensors (hunt BL, stop 62).
public enum InterleavedSensors {
    /// A pair is closer than this (s), and than 0.8 of the readings' median step: one CGM reads at
    /// its own step (every 5 minutes, a Libre every minute or 15, a simulator every 3), two
    /// interleaved come between.
    public static let maximumGap: TimeInterval = 4 * 60
    /// A pair differs by this much (mg/dL) or more, at `minimumRate` mg/dL a minute or more: living
    /// glucose moves 4-5 mg/dL a minute at most.
    public static let minimumChange = 15.0, minimumRate = 6.0
    /// Pairs not sharing a reading that make two sensors, not one reading out of line and back.
    public static let minimumEpisodes = 2

    /// The qualifying pairs of consecutive readings of `cgm` (CGM readings, in time order), and how
    /// many episodes they make (pairs that share a reading count once).
    public static func find(_ cgm: [GlucoseReading]) -> (pairs: [(GlucoseReading, GlucoseReading)], episodes: Int) {
        let gaps = zip(cgm, cgm.dropFirst()).map { $1.time.timeIntervalSince($0.time) }.sorted()
        guard gaps.count >= 2 else { return ([], 0) }
        let close = min(maximumGap, 0.8 * gaps[gaps.count / 2])
        var pairs: [(GlucoseReading, GlucoseReading)] = [], episodes = 0
        for (a, b) in zip(cgm, cgm.dropFirst()) {
            let seconds = b.time.timeIntervalSince(a.time), change = abs(b.value.mgdL - a.value.mgdL)
            guard seconds > 0, seconds < close, change >= minimumChange, change / (seconds / 60) >= minimumRate else { continue }
            if pairs.last.map({ $0.1 != a }) ?? true { episodes += 1 }
            pairs.append((a, b))
        }
        return (pairs, episodes)
    }
}
