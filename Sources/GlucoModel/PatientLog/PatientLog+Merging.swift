import Foundation

extension PatientLog {
    /// This log with `other`'s records added, under the one rule for combining a patient's data
    /// (the store's, `PatientStore.log(for:)`, applies the same function to its rows):
    ///
    /// - every list is in time order, and at one instant the records of this log come before
    ///   `other`'s (the file read first comes first);
    /// - of the records of one kind at one instant with one `TimedRecord.identity` only the first is
    ///   kept: the same event written by two files (an exact duplicate, or a conflicting one where the
    ///   files disagree on its value) is one record, the first file's; a marker (a temporary basal
    ///   of 0 minutes, `TimedRecord.isMarker`) gives way to a record that is none, from either file;
    /// - a glucose reading, bolus, basal injection or meal of `other` that repeats one of this log's
    ///   a few seconds off (the same value less than `sourceWindow` apart, not at the same
    ///   instant: an export to the minute beside one to the second) is the same upload, left out,
    ///   one to one (`droppingUploadedTwice`);
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
            let lists = logs.map { $0[keyPath: list] }
            return firstAtEachInstant(Array((uploadWindowKinds.contains(R.kind) ? droppingUploadedTwice(lists) : lists).joined()))
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
        m.glucoseAhead = GlucoseAhead.merged(logs.map(\.glucoseAhead))?.unsettled(by: m.glucose)
        for other in logs.dropFirst() {
            for (k, v) in other.otherRecords { m.otherRecords[k, default: 0] += v }
            if other.insulinKind != .unknown { m.insulinKind = other.insulinKind }
        }
        return m
    }

    /// Between two sources (imports, or files read together), a reading or dose of the same value
    /// less than this apart (s) is one record: one export writes times to the minute (LibreView,
    /// a pump's CSV), another to the second (Nightscout, Clarity), so the same record's two times
    /// differ by up to 59.999 s (`droppingUploadedTwice`, `PatientStore.dropUploadedTwice`).
    public static let sourceWindow: TimeInterval = 60
    /// Between two sources, readings this close (mg/dL) are one value: a LibreView export in mmol/L
    /// writes 99 mg/dL as 5.5 (99.09 read back), half its 0.1 mmol/L step (0.9 mg/dL) and half a
    /// mg/dL of rounding apart (review, stop 52: every reading of such a pair was still stored twice).
    public static let sourceGlucoseTolerance = 1.4

    /// Whether two records are one uploaded twice: same source, censoring and value for glucose;
    /// same type and dose for boluses; same amount for injections and meals; otherwise equal records.
    /// `glucoseTolerance`: how far apart two readings' values may be (mg/dL); between sources, one
    /// in mmol/L (`sourceGlucoseTolerance`).
    public static func sameUpload<R: TimedRecord>(_ a: R, _ b: R, glucoseTolerance: Double = 1e-6) -> Bool {
        switch (a, b) {
        case let (x as GlucoseReading, y as GlucoseReading):
            return x.source == y.source && x.censoring == y.censoring && abs(x.value.mgdL - y.value.mgdL) < glucoseTolerance
        case let (x as Bolus, y as Bolus): return x.type == y.type && abs(x.dose.units - y.dose.units) < 1e-9
        case let (x as BasalInjection, y as BasalInjection): return abs(x.dose.units - y.dose.units) < 1e-9
        case let (x as CarbIntake, y as CarbIntake): return abs(x.amount.grams - y.amount.grams) < 1e-9
        default: return a == b
        }
    }

    /// The kinds a record of which, repeated by another source a few seconds off, is the same upload
    /// (a file's own upload window has the same: `DuplicateFilter`).
    public static let uploadWindowKinds: Set<RecordKind> = [.glucose, .bolus, .basalInjection, .carbs]

    /// `lists` (one per log, in the order read; each in time order) without the records of a later
    /// list that repeat an earlier list's a few seconds off: the same upload
    /// (`sameUpload`) less than `sourceWindow` apart, not at the same
    /// instant (`firstAtEachInstant` settles those). One to one: an earlier record stands for one
    /// record of each later list, the nearest in time, as the store keeps one stored record for
    /// each import (`PatientStore.dropUploadedTwice`).
    /// - Complexity: O(n log n) over lists whose times do not overlap; an overlapping list costs a
    ///   merge of the earlier ones.
    static func droppingUploadedTwice<R: TimedRecord>(_ lists: [[R]]) -> [[R]] {
        let window = Self.sourceWindow
        var earlier: [R] = []  // the kept records of the lists before, in time order
        var out: [[R]] = []
        for list in lists {
            let kept: [R]
            if let first = list.first?.time, let last = list.last?.time, let e0 = earlier.first?.time, let e1 = earlier.last?.time,
               first.timeIntervalSince(e1) < window, e0.timeIntervalSince(last) < window {
                var used = Set<Int>()
                kept = list.filter { r in
                    var lo = 0, hi = earlier.count
                    while lo < hi {
                        let mid = (lo + hi) / 2
                        if r.time.timeIntervalSince(earlier[mid].time) >= window { lo = mid + 1 } else { hi = mid }
                    }
                    var best: Int?
                    var i = lo
                    while i < earlier.count, earlier[i].time.timeIntervalSince(r.time) < window {
                        let e = earlier[i]
                        if e.time != r.time, !used.contains(i), Self.sameUpload(e, r, glucoseTolerance: Self.sourceGlucoseTolerance),
                           best.map({ abs(e.time.timeIntervalSince(r.time)) < abs(earlier[$0].time.timeIntervalSince(r.time)) }) ?? true {
                            best = i
                        }
                        i += 1
                    }
                    guard let best else { return true }
                    used.insert(best)
                    return false
                }
            } else {
                kept = list
            }
            out.append(kept)
            if let end = earlier.last?.time, let start = kept.first?.time, start <= end {
                // A record another list holds at the same instant with the same value is one stored
                // record, as the store's key keeps one: it stands for one record of a later list.
                let merged = (earlier + kept).enumerated().sorted { a, b in
                    a.element.time != b.element.time ? a.element.time < b.element.time : a.offset < b.offset
                }.map(\.element)
                earlier = []
                earlier.reserveCapacity(merged.count)
                for r in merged {
                    let repeated = earlier.reversed().prefix { $0.time == r.time }.contains { $0.identity == r.identity && Self.sameUpload($0, r) }
                    if !repeated { earlier.append(r) }
                }
            } else {
                earlier += kept
            }
        }
        return out
    }

    /// `records` in time order (stable: records at one instant keep their order), keeping of the
    /// records at one instant with one `identity` only the first, or the first that is not a marker
    /// (`TimedRecord.isMarker`) where the first is one, in the first one's place.
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
        var identities: [String: Int] = [:]  // each identity's record kept at this instant
        for r in ordered {
            if r.time != instant { instant = r.time; identities.removeAll(keepingCapacity: true) }
            if let k = identities[r.identity] {
                if kept[k].isMarker, !r.isMarker { kept[k] = r }
            } else {
                identities[r.identity] = kept.count
                kept.append(r)
            }
        }
        return kept
    }
}
