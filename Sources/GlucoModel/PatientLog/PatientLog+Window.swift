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
        out.inputsBefore = inputs(before: start)
        return out
    }

    /// `inputsBefore` and the kinds of inputs of this log's records dated before `start` (`since`).
    func inputs(before start: Date) -> Set<RecordInputs> {
        var inputs = inputsBefore
        let before = { (time: Date?) in time.map { $0 < start } ?? false }
        if before(basalInjections.first?.time) || before(temporaryBasals.first?.start) || before(basalRates.first?.start) {
            inputs.insert(.basal)
        }
        if before(boluses.first?.time) { inputs.insert(.bolus) }
        if !inputs.isDisjoint(with: [.basal, .bolus]) { inputs.insert(.insulin) }
        if before(carbs.first?.time) { inputs.insert(.carbohydrate) }
        return inputs
    }

    /// `since(start)` without the records dated at or after `end`, at the cost of the window: each
    /// list is cut by binary search to what can act from `start` to `end` (from `start` less
    /// `reach`, the longest an extended bolus, temporary basal or exercise session lasts, and the
    /// basal rate in force then) before `since` reads it. An audit asks for the 14 days before each
    /// meal of a long history: copying the rest of it before, or after, each meal made a 4-year
    /// audit cost 7.8 times a year's for 4 times the meals (hunt AJ, stop 58).
    public func window(from start: Date, before end: Date) -> PatientLog {
        let early = start.addingTimeInterval(-Self.reach)
        func cut<R: TimedRecord>(_ list: [R], from lower: Date, keepingOneBefore: Bool = false) -> [R] {
            var i = Self.firstIndex(list, atOrAfter: lower)
            if keepingOneBefore, i > 0 { i -= 1 }
            return Array(list[i..<max(i, Self.firstIndex(list, atOrAfter: end))])
        }
        var part = self
        part.glucose = cut(glucose, from: start); part.carbs = cut(carbs, from: start); part.weights = cut(weights, from: start)
        part.heartRate = cut(heartRate, from: start); part.basalInjections = cut(basalInjections, from: start)
        part.boluses = cut(boluses, from: early); part.exercise = cut(exercise, from: early)
        part.temporaryBasals = cut(temporaryBasals, from: early, keepingOneBefore: true)
        part.basalRates = cut(basalRates, from: start, keepingOneBefore: true)
        var out = part.since(start)
        out.historyStart = historyStart ?? firstInstant.flatMap { $0 < start ? $0 : nil }
        out.inputsBefore = inputs(before: start)
        return out
    }

    /// The longest a record begun before a window can act in it: an extended bolus or a temporary
    /// basal (the import's limit on durations, 7 days), an exercise session (a day); and an hour more.
    public static let reach: TimeInterval = 7 * 86_400 + 3600

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
        firstIndex(list, atOrAfter: start, time: \.time)
    }

    /// The index of the first item of `list` (in the order of `time`) at or after `start` (binary
    /// search): records, or a report's (time, value) pairs.
    public static func firstIndex<T>(_ list: [T], atOrAfter start: Date, time: (T) -> Date) -> Int {
        firstIndex(list) { time($0) >= start }
    }

    /// The index of the first item of `list` for which `isPast` holds, `list` ordered so that it
    /// holds from some item on (binary search): `isPast` of a time, `$0 >= start` or `$0 > start`.
    public static func firstIndex<T>(_ list: [T], where isPast: (T) -> Bool) -> Int {
        var lo = 0, hi = list.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if !isPast(list[mid]) { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }
}
