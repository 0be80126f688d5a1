import Foundation

/// The output of one night: `<out>/<night>/` with per-patient files under `predictions/`,
/// `alerts/`, `dose-audit/` and `settings-check/`, and the combined `predictions.csv`, `alerts.csv` and `summary.json`
/// regenerated from the per-patient files.
struct NightFolder {
    let root: URL
    var predictions: URL { root.appendingPathComponent("predictions") }
    var alerts: URL { root.appendingPathComponent("alerts") }
    var doseAudit: URL { root.appendingPathComponent("dose-audit") }
    var settingsCheck: URL { root.appendingPathComponent("settings-check") }

    static let temporarySuffix = ".partial"

    /// Creates the night's folder with `predictions/` and `alerts/`; `dose-audit/` and
    /// `settings-check/` are made by their first file (`created(_:)`): a night without the option has none.
    func create() throws {
        for dir in [predictions, alerts] {
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        }
    }

    /// The file that marks a night begun on a store and not finished: written once its run has
    /// checked the folder, named after the store (two stores may share `--out`, and one's run of a
    /// night must not take the other's mark), holding the store's path, and removed once its combined
    /// files are written. A later run on the same store completes a night that still has it.
    static func unfinishedMarker(store: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a, stable across runs and builds
        for byte in storeKey(store).utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return ".unfinished-" + String(hash, radix: 16)
    }

    func markUnfinished(store: String) throws {
        try Self.writeAtomically(Data((Self.storeKey(store) + "\n").utf8), to: root.appendingPathComponent(Self.unfinishedMarker(store: store)))
    }

    func markFinished(store: String) {
        try? FileManager.default.removeItem(at: root.appendingPathComponent(Self.unfinishedMarker(store: store)))
    }

    static func storeKey(_ store: String) -> String { URL(fileURLWithPath: store).standardizedFileURL.resolvingSymlinksInPath().path }

    /// The labels of the nights under `output` begun on `store` and not finished, in order.
    static func unfinished(in output: URL, store: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: output.path)) ?? []
        let key = storeKey(store), marker = unfinishedMarker(store: store)
        return names.filter { name in
            guard NightlySettings.isNightLabel(name),
                  let data = FileManager.default.contents(atPath: output.appendingPathComponent(name).appendingPathComponent(marker).path)
            else { return false }
            return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == key
        }.sorted()
    }

    /// The unit the night's files are written in (their headers), nil when it has none yet (the
    /// review of stop 59: a folder without a patient's file read as mg/dL, and an mmol/L night killed
    /// before its first file was completed in mg/dL).
    func units() -> GlucoseUnit? {
        let written = [predictions, alerts, doseAudit].contains { dir in
            ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).contains { $0.hasSuffix(".csv") && !$0.hasPrefix(".") }
        }
        guard written else { return nil }
        for unit in [GlucoseUnit.mgdL, .mmolL] where headerMismatch(units: unit) == nil {
            return unit
        }
        return nil
    }

    /// `dir`, created if missing.
    @discardableResult
    func created(_ dir: URL) throws -> URL {
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    func file(_ dir: URL, _ patient: PatientID) -> URL { dir.appendingPathComponent(patient.rawValue + ".csv") }

    /// Removes temporary files a killed run left behind (they were never renamed into place): those
    /// of a process that has ended, untouched for `LeftoverFiles.quietSeconds` (another machine's run
    /// may share the folder). A running one's are left: two nights writing into one folder
    /// (two stores, one `--out`) removed each other's files mid-write, and each warned "cannot write
    /// the file: No such file or directory" (hunt J, stop 52). Files of older builds (no process id) go.
    func removeLeftovers() {
        for dir in [root, predictions, alerts, doseAudit, settingsCheck] {
            LeftoverFiles.remove(in: dir, suffix: Self.temporarySuffix, unnumbered: true) { _ in true }
        }
    }

    /// Writes `data` into a temporary file beside `url` and renames it over `url` (rename(2) is
    /// atomic): a reader, or a run after a crash, sees the old file or the new one, never half.
    static func writeAtomically(_ data: Data, to url: URL) throws {
        let temporary = temporaryURL(url)
        try data.write(to: temporary)
        guard rename(temporary.path, url.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw NightlyError.cannotWrite(url.path, reason)
        }
    }

    /// A patient's file for the night: the rows it holds from before `kept` (issued at or
    /// before it: rows the scorer does not produce again), then `lines`, which replace every later
    /// row (those of earlier runs of the night, scored again, and of an interrupted run). Nil
    /// `kept`: `lines` alone. The second column is the row's time in every per-patient file
    /// (`issued_at`, `first_issued_at`, a dose audit's `bolus_time`).
    func updatePatientFile(_ url: URL, header: String, keepingThrough kept: Date?, lines: [String]) throws {
        let file = try patientFile(url, header: header, keepingThrough: kept).file
        lines.forEach(file.writeLine)
        try file.commit()
    }

    /// `updatePatientFile` with the new lines still to write: they are streamed into the file
    /// (`writeLine`), which replaces the old one at `commit()` (nothing changes without it: the
    /// caller `discard()`s on error). A night of years of backfilled rows is never held in memory.
    /// `replaced`: how many of the old rows after `kept` were issued at or before `counting` (0
    /// without it), read in the same pass.
    func patientFile(_ url: URL, header: String, keepingThrough kept: Date?,
                     counting: Date? = nil) throws -> (file: AtomicTextFile, replaced: Int) {
        let file = try AtomicTextFile(url: url, temporary: Self.temporaryURL(url))
        file.writeLine(header)
        var replaced = 0
        if kept != nil || counting != nil, FileManager.default.fileExists(atPath: url.path) {
            for (number, line) in LineReader(url: url) where number > 1 {
                let fields = line.split(separator: ",", maxSplits: 2, omittingEmptySubsequences: false)
                guard fields.count > 1, let issued = TimestampParser.iso8601(fields[1])?.instant else { continue }
                if let kept, issued <= kept {
                    file.writeLine(line)
                } else if let counting, issued <= counting {
                    replaced += 1
                }
            }
        }
        return (file, replaced)
    }

    /// The file `url` is written to before it is renamed into place (`removeLeftovers` removes
    /// those a killed run left).
    static func temporaryURL(_ url: URL) -> URL {
        url.deletingLastPathComponent().appendingPathComponent("." + url.lastPathComponent + ".\(getpid())" + temporarySuffix)
    }

    /// The night's per-patient files written with another header than these (another glucose
    /// unit, or an older version): their kept rows would sit under the wrong header. Nil when
    /// every file has the expected header (or there is none yet).
    /// The first of the night's files whose header is not the one `units` writes (predictions, alerts,
    /// dose audit), or nil.
    func headerMismatch(units: GlucoseUnit) -> NightlyError? {
        headerMismatch(predictions: PredictionRow.csvHeader(units: units), alerts: AlertEpisode.csvHeader(units: units),
                       doseAudit: DoseAuditRow.csvHeader(units: units))
    }

    func headerMismatch(predictions: String, alerts: String, doseAudit: String? = nil) -> NightlyError? {
        var expectations = [(self.predictions, predictions), (self.alerts, alerts)]
        if let doseAudit { expectations.append((self.doseAudit, doseAudit)) }
        for (dir, expected) in expectations {
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? [])
                .filter { $0.hasSuffix(".csv") && !$0.hasPrefix(".") }.sorted()
            for name in names {
                let url = dir.appendingPathComponent(name)
                guard let handle = try? FileHandle(forReadingFrom: url) else { continue }
                defer { try? handle.close() }
                let head = (try? handle.read(upToCount: 4096)) ?? Data()
                let first = String(decoding: head.prefix { $0 != 10 }, as: UTF8.self)
                if !first.isEmpty, first != expected { return .otherHeader(path: url.path, found: first, expected: expected) }
            }
        }
        return nil
    }

    /// What a per-patient file holds, for the summary.
    struct FileCount {
        var patient: String
        var rows: Int
        var firstIssued: String?
        var lastIssued: String?
    }

    /// Concatenates the per-patient files of `dir` (sorted by name, headers dropped) under one
    /// header into `url`, atomically.
    /// Streamed a line at a time: the night's files are never held in memory together.
    @discardableResult
    func combine(_ dir: URL, header: String, into url: URL) throws -> [FileCount] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? [])
            .filter { $0.hasSuffix(".csv") && !$0.hasPrefix(".") }.sorted()
        let out = try AtomicTextFile(url: url, temporary: Self.temporaryURL(url))
        out.writeLine(header)
        var counts: [FileCount] = []
        do {
            for name in names {
                var count = FileCount(patient: String(name.dropLast(4)), rows: 0)
                var sawHeader = false, last: String?
                let reader = LineReader(url: dir.appendingPathComponent(name))
                try reader.checkReadable()
                for (_, line) in reader {
                    guard sawHeader else { sawHeader = true; continue }
                    out.writeLine(line)
                    count.rows += 1
                    if count.firstIssued == nil { count.firstIssued = Self.issuedField(Data(line.utf8)) }
                    last = line
                }
                guard sawHeader else { continue }
                count.lastIssued = last.flatMap { Self.issuedField(Data($0.utf8)) }
                counts.append(count)
            }
            try out.commit()
        } catch {
            out.discard()
            throw error
        }
        return counts
    }

    /// The warnings the night's `summary.json` holds from earlier runs (none when there is no
    /// summary yet, or it cannot be read).
    func recordedWarnings() -> [String] {
        guard let data = try? Data(contentsOf: root.appendingPathComponent("summary.json")),
              let summary = try? JSONParser.parse([UInt8](data)),
              case let .array(items)? = summary["warnings"] else { return [] }
        return items.compactMap(\.string)
    }

    static func issuedField<D: DataProtocol>(_ line: D) -> String? {
        let fields = String(decoding: line, as: UTF8.self).split(separator: ",", omittingEmptySubsequences: false)
        return fields.count > 1 ? String(fields[1]) : nil
    }

    /// Regenerates the combined files and `summary.json` from the per-patient files. The summary
    /// holds only what the files and the night's warnings say (no run times), so re-running a
    /// finished night rewrites it byte for byte. The night's warnings are those of its earlier runs
    /// (read back from the summary: a quarantined file is reported by the run that moved it, and
    /// only then), then this run's `warnings` not among them.
    func regenerateCombined(night: String, warnings: [String], units: GlucoseUnit = .mgdL) throws {
        var nightWarnings = recordedWarnings()
        for warning in warnings where !nightWarnings.contains(warning) { nightWarnings.append(warning) }
        let predictionCounts = try combine(predictions, header: PredictionRow.csvHeader(units: units),
                                           into: root.appendingPathComponent("predictions.csv"))
        let alertCounts = try combine(alerts, header: AlertEpisode.csvHeader(units: units), into: root.appendingPathComponent("alerts.csv"))
        let alertsByPatient = Dictionary(uniqueKeysWithValues: alertCounts.map { ($0.patient, $0.rows) })
        func q(_ s: String) -> String { "\"" + CGMMetricsReport.jsonEscape(s) + "\"" }
        let patients = predictionCounts.map { c in
            "    {\"patient\": \(q(c.patient)), \"predictions\": \(c.rows), \"alerts\": \(alertsByPatient[c.patient] ?? 0), "
                + "\"first_issued_at\": \(c.firstIssued.map(q) ?? "null"), \"last_issued_at\": \(c.lastIssued.map(q) ?? "null")}"
        }
        let text = """
            {
              "version": 1,
              "night": \(q(night)),
              "patients": \(predictionCounts.count),
              "predictions": \(predictionCounts.reduce(0) { $0 + $1.rows }),
              "alerts": \(alertCounts.reduce(0) { $0 + $1.rows }),
              "per_patient": [
            \(patients.joined(separator: ",\n"))
              ],
              "warnings": [\(nightWarnings.map(q).joined(separator: ", "))]
            }

            """
        try Self.writeAtomically(Data(text.utf8), to: root.appendingPathComponent("summary.json"))
    }
}
