import Foundation

extension PatientLog {
    /// The log from `start` on: what a job that reads nothing before `start` needs of a long history
    /// (a night's predictions, one dose), at the cost of the window and not of the years before it.
    ///
    /// It keeps every record dated at or after `start`, and of the earlier ones what still acts at
    /// `start`, so that every step of a series from `start` on is computed from the same inputs as
    /// from the whole log:
    /// - the basal rate in force at `start` (the last one before it), moved to begin at `start`
    ///   (ending there when it had ended before: it then delivers nothing, but the log still shows
    ///   that the pump's rates were recorded, as `NetInsulin` asks);
    /// - temporary basals, extended boluses and exercise sessions that began before `start` and end
    ///   after it, whole;
    /// - in `inputsBefore`, the kinds of inputs of the records dated before `start`, so that
    ///   `has(_:)` answers for the whole log;
    /// - in `historyStart`, the whole log's first instant when it is before `start`.
    /// A job must start its window far enough back for what it reads: a row at `t` reads glucose,
    /// insulin and carbohydrates up to `ModelSet.memory` before `t`.
    /// - Complexity: O(log n) for the glucose, carbohydrate, weight and heart-rate lists (binary
    ///   search: each list is in time order), O(n) for the insulin and exercise lists.
    public func since(_ start: Date) -> PatientLog {
        var out = self
        out.historyStart = historyStart ?? firstInstant.flatMap { $0 < start ? $0 : nil }
        out.glucose = Self.suffix(glucose, from: start)
        out.carbs = Self.suffix(carbs, from: start)
        out.weights = Self.suffix(weights, from: start)
        out.heartRate = Self.suffix(heartRate, from: start)
        out.basalInjections = Self.suffix(basalInjections, from: start)
        out.boluses = boluses.filter { $0.time >= start || ($0.end ?? $0.time) > start }
        // A pump runs one temporary basal at a time, so only the last one begun before `start` (the
        // first of those at that instant, as the merge rule keeps) can still run then: a later one
        // ends it (`SeriesGrid.insulin`).
        let laterTemporary = Self.suffix(temporaryBasals, from: start)
        var last = temporaryBasals.count - laterTemporary.count - 1
        while last > 0, temporaryBasals[last - 1].start == temporaryBasals[last].start { last -= 1 }
        let running = last >= 0 && temporaryBasals[last].end > start ? [temporaryBasals[last]] : []
        out.temporaryBasals = running + laterTemporary
        out.exercise = exercise.filter { $0.time >= start || $0.time.addingTimeInterval($0.durationMinutes * 60) > start }
        let later = Self.suffix(basalRates, from: start)
        if let running = basalRates[..<(basalRates.count - later.count)].last {
            out.basalRates = [Self.moved(running, to: start)] + later
        } else {
            out.basalRates = later
        }
        let before = { (time: Date?) in time.map { $0 < start } ?? false }
        if before(basalInjections.first?.time) || before(temporaryBasals.first?.start) || before(basalRates.first?.start) {
            out.inputsBefore.insert(.basal)
        }
        if before(boluses.first?.time) { out.inputsBefore.insert(.bolus) }
        if !out.inputsBefore.isDisjoint(with: [.basal, .bolus]) { out.inputsBefore.insert(.insulin) }
        if before(carbs.first?.time) { out.inputsBefore.insert(.carbohydrate) }
        return out
    }

    /// `running`, the basal rate in force at `start`, as it acts from `start` on.
    static func moved(_ running: BasalRate, to start: Date) -> BasalRate {
        BasalRate(start: start, end: running.end.map { max($0, start) }, rate: running.rate)
    }

    /// The log without its records dated at or after `end` (each list in time order, by binary
    /// search; skipped insulin, a short list, stays whole): a cheap first cut before
    /// `recorded(through:)` for a moment early in a long history. `DoseAdvisor.history` copied the
    /// rest of the history once per meal an audit read: ten years took 71 times one year's time (hunt AJ, stop 58).
    public func before(_ end: Date) -> PatientLog {
        func prefix<R: TimedRecord>(_ list: [R]) -> [R] { Array(list[..<Self.firstIndex(list, atOrAfter: end)]) }
        var out = self
        out.glucose = prefix(glucose); out.boluses = prefix(boluses); out.basalRates = prefix(basalRates)
        out.temporaryBasals = prefix(temporaryBasals); out.basalInjections = prefix(basalInjections); out.carbs = prefix(carbs)
        out.exercise = prefix(exercise); out.weights = prefix(weights); out.heartRate = prefix(heartRate)
        return out
    }

    /// The records of `list` (in time order) at or after `start`.
    static func suffix<R: TimedRecord>(_ list: [R], from start: Date) -> [R] {
        Array(list[firstIndex(list, atOrAfter: start)...])
    }

    /// The index of the first record of `list` (in time order) at or after `start` (binary search).
    public static func firstIndex<R: TimedRecord>(_ list: [R], atOrAfter start: Date) -> Int {
        var lo = 0, hi = list.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if list[mid].time < start { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }
}
