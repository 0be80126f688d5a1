import Foundation

extension PatientLog {
    /// This log with `other`'s records added, each list sorted by time and exact duplicates
    /// (the same record from two files) kept once.
    public func merging(_ other: PatientLog) -> PatientLog {
        func merge<R: Hashable>(_ a: [R], _ b: [R], _ time: (R) -> Date) -> [R] {
            var seen = Set<R>()
            return (a + b).filter { seen.insert($0).inserted }.sorted { time($0) < time($1) }
        }
        var m = self
        m.glucose = merge(glucose, other.glucose, \.time)
        m.boluses = merge(boluses, other.boluses, \.time)
        m.basalRates = merge(basalRates, other.basalRates, \.start)
        m.temporaryBasals = merge(temporaryBasals, other.temporaryBasals, \.start)
        m.basalInjections = merge(basalInjections, other.basalInjections, \.time)
        m.carbs = merge(carbs, other.carbs, \.time)
        m.exercise = merge(exercise, other.exercise, \.time)
        m.weights = merge(weights, other.weights, \.time)
        m.heartRate = merge(heartRate, other.heartRate, \.time)
        for (k, v) in other.otherRecords { m.otherRecords[k, default: 0] += v }
        if m.insulinKind == .unknown { m.insulinKind = other.insulinKind }
        return m
    }
}
