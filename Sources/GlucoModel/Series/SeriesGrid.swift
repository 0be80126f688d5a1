import Foundation

/// Binning helpers for `PatientSeries`: grid point `i` is at `start + i*step` (seconds since 1970),
/// and its step is the interval `(t_i - step, t_i]`.
struct SeriesGrid {
    let start: Double
    let step: Double
    let count: Int

    func t(_ i: Int) -> Double { start + Double(i) * step }

    /// The point whose step holds instant `s` (ceil), or nil outside the grid.
    func bin(_ s: Double) -> Int? {
        let i = Int(((s - start) / step).rounded(.up))
        return i >= 0 && i < count ? i : nil
    }

    /// Sums of point events per step.
    func events(_ items: [(Date, Double)]) -> [Double] {
        var out = [Double](repeating: 0, count: count)
        for (time, amount) in items {
            if let i = bin(time.timeIntervalSince1970) { out[i] += amount }
        }
        return out
    }

    /// Adds `rate` (per second) delivered over `[a, b)` to the steps it overlaps.
    func spread(_ out: inout [Double], from a: Double, to b: Double, perSecond rate: Double) {
        guard b > a, rate != 0, count > 0 else { return }
        let lo = max(0, Int(((a - start) / step).rounded(.down)))
        let hi = min(count - 1, Int(((b - start) / step).rounded(.up)))
        guard lo <= hi else { return }
        for i in lo...hi {
            let overlap = min(b, t(i)) - max(a, t(i) - step)
            if overlap > 0 { out[i] += rate * overlap }
        }
    }

    /// Mean of samples per step (NaN where none).
    func mean(_ items: [(Date, Double)]) -> [Double] {
        var sum = [Double](repeating: 0, count: count)
        var n = [Int](repeating: 0, count: count)
        for (time, v) in items {
            if let i = bin(time.timeIntervalSince1970) { sum[i] += v; n[i] += 1 }
        }
        return zip(sum, n).map { $1 == 0 ? .nan : $0 / Double($1) }
    }

    func exercise(_ sessions: [ExerciseSession]) -> [Double] {
        var out = [Double](repeating: 0, count: count)
        guard count > 0 else { return out }
        for s in sessions {
            let a = s.time.timeIntervalSince1970, b = a + s.durationMinutes * 60
            let lo = max(0, Int(((a - start) / step).rounded(.down)))
            let hi = min(count - 1, Int(((b - start) / step).rounded(.up)))
            guard lo <= hi else { continue }
            for i in lo...hi where min(b, t(i)) > max(a, t(i) - step) {
                out[i] = max(out[i], s.intensity)
            }
        }
        return out
    }

    /// Glucose per point: each CGM reading counts at the point ending its step (mean of several),
    /// so a point never holds a reading taken after it; finger sticks where no CGM reading lands;
    /// then gaps up to `maxGap` filled linearly (a filled point depends on the reading that closes
    /// the gap: see `PatientSeries.gapClosing`).
    func glucose(_ readings: [GlucoseReading], maxGap: TimeInterval) -> ([Double], [GlucoseFlag]) {
        var values = [Double](repeating: .nan, count: count)
        var flags = [GlucoseFlag](repeating: .missing, count: count)
        for source in [GlucoseSource.cgm, .fingerStick] {
            var sum = [Double](repeating: 0, count: count)
            var n = [Int](repeating: 0, count: count)
            for r in readings where r.source == source {
                if let i = bin(r.time.timeIntervalSince1970), flags[i] == .missing { sum[i] += r.value.mgdL; n[i] += 1 }
            }
            for i in 0..<count where n[i] > 0 {
                values[i] = sum[i] / Double(n[i]); flags[i] = .measured
            }
        }
        var previous: Int?
        for i in 0..<count where flags[i] == .measured {
            if let p = previous, i - p > 1, Double(i - p) * step <= maxGap + 1e-9 {
                for k in (p + 1)..<i {
                    let w = Double(k - p) / Double(i - p)
                    values[k] = values[p] + w * (values[i] - values[p])
                    flags[k] = .filled
                }
            }
            previous = i
        }
        return (values, flags)
    }

    /// Insulin delivered per step: basal schedule with temporary overrides, boluses, injections.
    func insulin(_ log: PatientLog, dualShare: Double) -> [Double] {
        var out = [Double](repeating: 0, count: count)
        guard count > 0 else { return out }
        let gridEnd = t(count - 1)
        // A pump runs one temporary basal at a time: a new one ends the one running (as a pump's
        // own history, e.g. Nightscout's, records it); of two begun at one instant, the first.
        let sorted = PatientLog.firstAtEachInstant(log.temporaryBasals)
        let temps = zip(sorted, sorted.dropFirst().map { $0.start.timeIntervalSince1970 } + [.infinity]).map { tb, next in
            (tb.start.timeIntervalSince1970, min(tb.end.timeIntervalSince1970, next), tb.rate.unitsPerHour / 3600)
        }
        let holes = temps.map { ($0.0, $0.1) }
        // Basal: each rate runs until its own end or the next rate's start, except where a temp basal overrides.
        for (k, b) in log.basalRates.enumerated() {
            let a = b.start.timeIntervalSince1970
            var e = k + 1 < log.basalRates.count ? log.basalRates[k + 1].start.timeIntervalSince1970 : gridEnd
            if let end = b.end { e = min(e, end.timeIntervalSince1970) }
            for (x, y) in Self.subtract(a, e, holes) {
                spread(&out, from: x, to: y, perSecond: b.rate.unitsPerHour / 3600)
            }
        }
        for (a, b, rate) in temps {
            spread(&out, from: a, to: b, perSecond: rate)
        }
        for bolus in log.boluses {
            let a = bolus.time.timeIntervalSince1970
            let b = bolus.end?.timeIntervalSince1970 ?? a
            let immediate = b > a ? bolus.immediateUnits(share: dualShare) : bolus.dose.units
            if immediate > 0, let i = bin(a) { out[i] += immediate }
            let extended = bolus.dose.units - immediate
            if extended > 0 { spread(&out, from: a, to: b, perSecond: extended / (b - a)) }
        }
        for injection in log.basalInjections {
            if let i = bin(injection.time.timeIntervalSince1970) { out[i] += injection.dose.units }
        }
        return out
    }

    /// `[a, b)` minus the union of `holes`, as sorted disjoint intervals.
    static func subtract(_ a: Double, _ b: Double, _ holes: [(Double, Double)]) -> [(Double, Double)] {
        var pieces = [(a, b)]
        for (x, y) in holes where y > x {
            pieces = pieces.flatMap { (p, q) -> [(Double, Double)] in
                guard y > p, x < q else { return [(p, q)] }
                return [(p, min(x, q)), (max(y, p), q)].filter { $0.1 > $0.0 }
            }
        }
        return pieces
    }
}
