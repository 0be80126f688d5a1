import Foundation

/// A stretch of CGM readings that shows the sensor, not the patient: readings held at the
/// sensor's floor or ceiling, or a flat line (the same value for hours, which living glucose
/// never does). Such readings must not teach a model or grade a prediction; a report flags them.
public struct SensorLimitRun: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        /// Every reading at or below the sensor's floor (or exported as `Low`).
        case floor
        /// Every reading at or above the sensor's ceiling (or exported as `High`).
        case ceiling
        /// Every reading within the tolerance of the run's first value, between floor and ceiling.
        case flat
    }

    public var kind: Kind
    /// Times of the run's first and last reading.
    public var start: Date
    public var end: Date
    public var readings: Int
    /// The run's first value, mg/dL.
    public var value: Double

    public var duration: TimeInterval { end.timeIntervalSince(start) }

    /// Whether `t` lies within the run (first to last reading, inclusive).
    public func covers(_ t: Date) -> Bool { t >= start && t <= end }
}

/// Finds `SensorLimitRun`s in CGM readings.
///
/// A floor run is a maximal sequence of consecutive readings each `<= floor` mg/dL (or censored
/// below range), no two more than `maximumGap` apart, spanning at least `minimumLimitDuration`
/// from its first to its last reading; a ceiling run likewise with `>= ceiling`. A flat run is a
/// maximal sequence of readings strictly between floor and ceiling, each within `flatTolerance`
/// of the first, no two more than `maximumGap` apart, spanning at least `minimumFlatDuration`.
/// Runs are flagged, never removed from the CGM metrics: a long true low must stay visible.
public struct SensorLimitDetector: Sendable {
    /// mg/dL. Dexcom and Libre report 40 at their floor ("Low"); some exports and simulators 39.
    public var floor = 40.0
    public var ceiling = 400.0
    public var minimumLimitDuration: TimeInterval = 30 * 60
    public var minimumFlatDuration: TimeInterval = 120 * 60
    /// mg/dL.
    public var flatTolerance = 0.0
    public var maximumGap: TimeInterval = 15 * 60

    public init() {}

    /// The runs of the CGM readings (finger sticks are ignored), in time order.
    public func runs(in readings: [GlucoseReading]) -> [SensorLimitRun] {
        let cgm = readings.filter { $0.source == .cgm && $0.value.mgdL.isFinite }.sorted { $0.time < $1.time }
        return runs(times: cgm.map(\.time), values: cgm.map { r in
            switch r.censoring {
            case .belowRange?: return min(r.value.mgdL, floor)
            case .aboveRange?: return max(r.value.mgdL, ceiling)
            case nil: return r.value.mgdL
            }
        })
    }

    /// The runs of readings at `times` (increasing) with `values` (mg/dL), in time order.
    public func runs(times: [Date], values: [Double]) -> [SensorLimitRun] {
        precondition(times.count == values.count, "one value per time")
        var out: [SensorLimitRun] = []
        var i = 0
        while i < times.count {
            let v = values[i]
            let kind: SensorLimitRun.Kind = v <= floor ? .floor : v >= ceiling ? .ceiling : .flat
            var j = i
            while j + 1 < times.count, times[j + 1].timeIntervalSince(times[j]) <= maximumGap,
                  belongs(values[j + 1], kind, first: v) { j += 1 }
            let span = times[j].timeIntervalSince(times[i])
            if span >= (kind == .flat ? minimumFlatDuration : minimumLimitDuration) {
                out.append(SensorLimitRun(kind: kind, start: times[i], end: times[j], readings: j - i + 1, value: v))
            }
            i = j + 1
        }
        return out
    }

    func belongs(_ v: Double, _ kind: SensorLimitRun.Kind, first: Double) -> Bool {
        switch kind {
        case .floor: return v <= floor
        case .ceiling: return v >= ceiling
        case .flat: return v > floor && v < ceiling && abs(v - first) <= flatTolerance
        }
    }
}

extension Array where Element == SensorLimitRun {
    /// Whether any run covers `t`.
    public func cover(_ t: Date) -> Bool { contains { $0.covers(t) } }

    /// Readings inside runs.
    public var readingCount: Int { reduce(0) { $0 + $1.readings } }
}
