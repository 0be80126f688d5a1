import Foundation

/// The records of a file that a file of the same patient read before it holds at the same instant
/// with another value (the same event by `TimedRecord.identity`: for glucose, the same source).
/// `PatientLog.merging` keeps the earlier file's, as the store keeps the stored one; this puts it in
/// the later file's summary as `import-data` words it, so that a command reading two exports that
/// disagree says so instead of training on whichever name sorts first.
enum FileConflicts {
    /// Notes, in `summaries[file.summary]` of each file after the first, its conflicts with the files
    /// before it (`files` of one patient, in the order they were read).
    /// - Returns: the boluses and temporary basals so left out (`StoredConflicts.insulin`), to be
    ///   added to the merged log's skipped insulin.
    @discardableResult
    static func report(_ files: [(result: ImportResult, summary: Int, path: String)], into summaries: inout [ImportSummary]) -> [SkippedInsulin] {
        guard files.count > 1 else { return [] }
        var skipped: [SkippedInsulin] = []
        for j in files.indices.dropFirst() {
            let file = files[j]
            guard let first = file.result.log.firstTime, let last = file.result.log.lastTime else { continue }
            // Files of other days (a thousand daily exports) are not compared record by record.
            let before = files[..<j].filter { f in f.result.log.firstTime.map { $0 <= last } ?? false && f.result.log.lastTime.map { $0 >= first } ?? false }
            guard !before.isEmpty else { continue }
            var conflicts = StoredConflicts()
            var otherFile: String?
            func check<R: TimedRecord>(_ list: KeyPath<PatientLog, [R]>) {
                // A marker (a temporary basal of 0 minutes) is no event's value: it is not compared.
                var earlier: [String: (record: R, path: String)] = [:]
                for f in before {
                    for r in f.result.log[keyPath: list] where r.time >= first && r.time <= last && !r.isMarker {
                        let key = "\(r.time.timeIntervalSince1970) \(r.identity)"
                        if earlier[key] == nil { earlier[key] = (r, f.result.summary.shown(f.path)) }
                    }
                }
                guard !earlier.isEmpty else { return }
                for (i, r) in file.result.log[keyPath: list].enumerated() where !r.isMarker {
                    guard let e = earlier["\(r.time.timeIntervalSince1970) \(r.identity)"] else { continue }
                    // A bolus of the same amount given another way (1 U at once and 1 U over an hour)
                    // conflicts too, as within one file (`DuplicateFilter.skipConflicting`; review BT,
                    // stop 63: read from two files the first was kept without a word). Not a temporary
                    // basal of one rate with another end: an export taken while a temp ran holds its
                    // programmed end, and the next export the same temp cut short by the one after it;
                    // which end holds is unknown to both files, and refusing refused every overlapping
                    // export of a loop (review BU, stop 63). The first file's is kept, as before.
                    let anotherWay = R.kind == .bolus && e.record != r && !PatientLog.sameUpload(e.record, r)
                    guard abs(e.record.canonicalValue - r.canonicalValue) > StoredConflicts.tolerance || anotherWay else { continue }
                    conflicts.note(R.kind, time: r.time.timeIntervalSince1970, line: file.result.line(of: R.kind, i),
                                   here: r.canonicalValue, stored: e.record.canonicalValue, from: e.path,
                                   end: r.deliveryEnd(with: e.record)?.timeIntervalSince1970)
                    if otherFile == nil { otherFile = e.path }
                }
            }
            check(\.glucose); check(\.boluses); check(\.basalRates); check(\.temporaryBasals); check(\.basalInjections)
            check(\.carbs); check(\.exercise); check(\.weights); check(\.heartRate)
            guard let other = otherFile else { continue }
            // Named as their imports name them: without the names an export's preamble gave (review).
            let shown = file.result.summary.shown(file.path)
            conflicts.report(into: &summaries[file.summary], file: shown,
                             earlier: "a file read before (\(other)) holds", there: "there", kept: "that file's",
                             whose: "of a file read before", keptFrom: "a file read before (\(other))")
            skipped += conflicts.skippedInsulin(file: shown, keptFrom: "a file read before (\(other))")
        }
        return skipped
    }
}
