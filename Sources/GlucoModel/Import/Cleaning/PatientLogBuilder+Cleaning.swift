import Foundation

/// How the builder recognises one event written twice.
public enum DuplicatePolicy: Sendable {
    /// Hand-kept logs and research data (OhioT1DM, GlucoModel CSV): records at the same instant with
    /// the same `identity` describe one event. Equal ones are counted as `exact duplicate`; differing
    /// ones as `conflicting duplicate` with a warning naming both lines (the first in the file is kept).
    /// Rows out of time order are counted per identity (OhioT1DM lists finger sticks after all CGM
    /// readings, which is not disorder) as `<kind> rows out of time order (sorted)`.
    case sameInstant
    /// Device and cloud exports (Dexcom, LibreView, Nightscout, Tidepool): the same reading or dose
    /// uploaded twice (same value within `ImportLimits.duplicateWindow`; same record at the same
    /// instant for basal, temp basal, exercise, weight and heart rate) is kept once and counted as
    /// `duplicate`. A file wholly newest-first is reversed (its rows of the kind counted as
    /// `newest-first rows reversed`); other rows out of order are counted as `row out of time order (sorted)`.
    case uploadWindow
}

extension PatientLogBuilder {
    /// Stable sort by time, then duplicate removal under `policy`: `TimeOrderTracker` decides the
    /// order from the records in file order, `DuplicateFilter` then runs over them in that order.
    /// (The store's streaming import applies the same two pieces to records it spills to SQLite.)
    /// - Complexity: O(n log n); O(n) when the input is already sorted.
    public static func clean<R: TimedRecord>(_ items: [Located<R>], _ summary: inout ImportSummary,
                                             policy: DuplicatePolicy = .sameInstant) -> [Located<R>] {
        var tracker = TimeOrderTracker(policy: policy)
        for item in items { tracker.note(item) }
        let ordered: [Located<R>]
        switch tracker.finish(R.kind, &summary) {
        case .asRead: ordered = items
        case .reversed: ordered = items.reversed()
        case .sorted:
            // Enumerated sort keeps file order among equal times, so "first in the file" stays first.
            ordered = items.enumerated().sorted { a, b in
                a.element.record.time != b.element.record.time ? a.element.record.time < b.element.record.time : a.offset < b.offset
            }.map(\.element)
        }
        var filter = DuplicateFilter<R>(policy: policy)
        var kept: [Located<R>] = []
        kept.reserveCapacity(ordered.count)
        for item in ordered where filter.keep(item, &summary) { kept.append(item) }
        return kept
    }

    /// Builds the log with `options.patient`, else the id its file name is (`patientID(fromFileName:scrub:)`:
    /// any `scrub` text, names read from a preamble, taken out), with a warning saying so; the names
    /// are removed from the file name in the summary and issues too.
    /// - Throws: `InputError` when the file does not name the patient and its name is no usable id
    ///   as it stands (`John Smith.csv`, an e-mail address, `..`): the message asks for the patient option.
    public mutating func build(scrub: [String] = []) throws -> ImportResult {
        let names = scrub.filter { $0.count >= 2 }
        let patient = try options.patient ?? patientFromFileName(scrub: names)
        var result = try build(patient: patient)
        if !names.isEmpty {
            // Clarity names its files after the patient: keep the names out of the summary too,
            // including the warnings `build` adds (duplicates, clock jumps, repeated hours).
            // Word by word: LibreView's title line gives "First Last", its file name "FirstLast".
            // Names of four letters or more wherever they are; shorter ones as whole words only
            // (Lu is in "glucose"; the review).
            let words = Set(names.flatMap { $0.split(whereSeparator: Self.isWordSeparator) }.filter { $0.count >= 2 }.map { $0.lowercased() })
            func clean(_ s: String) -> String {
                let inside = words.filter { $0.count >= 4 }.sorted { $0.count > $1.count }
                    .reduce(s) { $0.replacingOccurrences(of: $1, with: "", options: .caseInsensitive) }
                let short = Set(words.filter { $0.count < 4 })
                guard !short.isEmpty else { return inside }
                // The file's folders are kept as they are; its name loses the short words.
                let url = URL(fileURLWithPath: inside)
                let name = url.lastPathComponent
                let cleaned = Self.withoutWords(short, in: name)
                return inside.hasSuffix(name) ? String(inside.dropLast(name.count)) + cleaned : inside
            }
            result.summary.file = clean(result.summary.file)
            for i in result.summary.issues.indices {
                result.summary.issues[i].location.file = clean(result.summary.issues[i].location.file)
            }
            // The insulin records skipped are kept with the store's import run and named by `dose`
            // (hunt W: their file still held the names).
            if let skipped = result.summary.skippedInsulin {
                result.summary.skippedInsulin = skipped.map { var s = $0; s.location.file = clean(s.location.file); return s }
            }
            result.log.skippedInsulin = result.log.skippedInsulin.map { var s = $0; s.location.file = clean(s.location.file); return s }
        }
        return result
    }

    private mutating func patientFromFileName(scrub: [String]) throws -> PatientID {
        let id: PatientID
        do { id = try Self.patientID(fromFileName: file, scrub: scrub) } catch let error as InputError {
            throw InputError(location(nil, nil), error.issue.message)
        }
        summary.issues.append(ImportIssue(.warning, location(nil, nil),
            "the file does not name a pseudonymous patient; using id '\(id)' from the file name (rename the file, or import it with import-data --patient, to choose one)"))
        return id
    }
}
