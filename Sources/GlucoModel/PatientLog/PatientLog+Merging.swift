import Foundation

extension PatientLog {
    /// This log with `other`'s records added, under the one rule for combining a patient's data
    /// (the store's, `PatientStore.log(for:)`, applies the same function to its rows):
    ///
    /// - every list is in time order, and at one instant the records of this log come before
    ///   `other`'s (the file read first comes first);
    /// - of the records of one kind at one instant with one `TimedRecord.identity` only the first is
    ///   kept: the same event written by two files (an exact duplicate, or a conflicting one where the
    ///   files disagree on its value) is one record, the first file's;
    /// - other sections' counts add up; the insulin kind is `other`'s when it names one (the latest
    ///   import that knows it, as in the store).
    public func merging(_ other: PatientLog) -> PatientLog {
        Self.merging([self, other])
    }

    /// `logs` (of one patient, in the order their files were read) combined as `merging(_:)` one
    /// after another would, in one pass: each kind's lists joined and ordered once, so a patient
    /// whose log is spread over a thousand daily files costs O(n log n), not one pass per file.
    public static func merging(_ logs: [PatientLog]) -> PatientLog {
        guard var m = logs.first else { preconditionFailure("merging needs at least one log") }
        func all<R: TimedRecord>(_ list: KeyPath<PatientLog, [R]>) -> [R] {
            firstAtEachInstant(Array(logs.map { $0[keyPath: list] }.joined()))
        }
        m.glucose = all(\.glucose)
        m.boluses = all(\.boluses)
        m.basalRates = all(\.basalRates)
        m.temporaryBasals = all(\.temporaryBasals)
        m.basalInjections = all(\.basalInjections)
        m.carbs = all(\.carbs)
        m.exercise = all(\.exercise)
        m.weights = all(\.weights)
        m.heartRate = all(\.heartRate)
        m.skippedInsulin = SkippedInsulin.ordered(logs.flatMap(\.skippedInsulin))
        for other in logs.dropFirst() {
            for (k, v) in other.otherRecords { m.otherRecords[k, default: 0] += v }
            if other.insulinKind != .unknown { m.insulinKind = other.insulinKind }
        }
        return m
    }

    /// `records` in time order (stable: records at one instant keep their order), keeping of the
    /// records at one instant with one `identity` only the first.
    /// - Complexity: O(n) when `records` is already in time order, O(n log n) otherwise.
    public static func firstAtEachInstant<R: TimedRecord>(_ records: [R]) -> [R] {
        var ordered = records
        if !zip(records, records.dropFirst()).allSatisfy({ $0.time <= $1.time }) {
            ordered = records.enumerated().sorted { a, b in
                a.element.time != b.element.time ? a.element.time < b.element.time : a.offset < b.offset
            }.map(\.element)
        }
        var kept: [R] = []
        kept.reserveCapacity(ordered.count)
        var instant = Date.distantPast
        var identities: Set<String> = []
        for r in ordered {
            if r.time != instant { instant = r.time; identities.removeAll(keepingCapacity: true) }
            if identities.insert(r.identity).inserted { kept.append(r) }
        }
        return kept
    }
}
