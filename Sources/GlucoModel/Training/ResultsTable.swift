import Foundation

/// One row of `results.csv`: a model's accuracy for one patient, horizon and split.
public struct ResultRow: Codable, Hashable, Sendable {
    public var patient: PatientID
    public var horizonMinutes: Int
    public var metrics: SplitMetrics

    /// One column of `results.csv` after `patient,horizon_min`: its name, how a row's metrics
    /// print in it, and how it reads back. The header, every line and the reader come from this
    /// one list, so a column added here is written and read alike.
    struct Column {
        let name: String
        let text: (SplitMetrics) -> String
        let read: (inout SplitMetrics, String) -> Void
    }

    static var columns: [Column] {
        func number(_ x: Double) -> String { x.isFinite ? String(format: "%.3f", x) : "" }
        func value(_ name: String, _ key: WritableKeyPath<SplitMetrics, Double>) -> Column {
            Column(name: name, text: { number($0[keyPath: key]) }, read: { $0[keyPath: key] = Double($1) ?? .nan })
        }
        func optional(_ name: String, _ key: WritableKeyPath<SplitMetrics, Double?>) -> Column {
            Column(name: name, text: { number($0[keyPath: key] ?? .nan) },
                   read: { m, t in m[keyPath: key] = Double(t).flatMap { $0.isFinite ? $0 : nil } })
        }
        func count(_ name: String, _ key: WritableKeyPath<SplitMetrics, Int?>) -> Column {
            Column(name: name, text: { $0[keyPath: key].map(String.init) ?? "" }, read: { $0[keyPath: key] = Int($1) })
        }
        return [
            Column(name: "model", text: \.model, read: { $0.model = $1 }),
            Column(name: "split", text: \.split, read: { $0.split = $1 }),
            Column(name: "n", text: { String($0.n) }, read: { $0.n = Int($1) ?? -1 }),
            value("rmse", \.rmse), value("mae", \.mae), value("mard", \.mard), value("clarke_a", \.clarkeA),
            value("clarke_ab", \.clarkeAB), value("parkes_a", \.parkesA), value("parkes_ab", \.parkesAB),
            optional("coverage_80", \.coverage80), optional("coverage_95", \.coverage95),
            optional("width_80", \.width80), optional("width_95", \.width95),
            optional("alarm_sensitivity", \.alarmSensitivity), optional("alarm_specificity", \.alarmSpecificity),
            optional("alarm_lead_min", \.alarmLeadMinutes), optional("false_alarms_per_day", \.falseAlarmsPerDay),
            optional("lower80_alarm_sensitivity", \.lower80AlarmSensitivity),
            optional("lower80_alarm_specificity", \.lower80AlarmSpecificity),
            optional("lower80_alarm_lead_min", \.lower80AlarmLeadMinutes),
            optional("lower80_false_alarms_per_day", \.lower80FalseAlarmsPerDay),
            count("rows_below70", \.rowsBelow70), optional("coverage_80_below70", \.coverage80Below70),
            optional("coverage_95_below70", \.coverage95Below70),
            count("rows_70to180", \.rows70To180), optional("coverage_80_70to180", \.coverage80In70To180),
            optional("coverage_95_70to180", \.coverage95In70To180),
            count("rows_from180", \.rowsFrom180), optional("coverage_80_from180", \.coverage80From180),
            optional("coverage_95_from180", \.coverage95From180),
            optional("interval_score_80", \.intervalScore80), optional("interval_score_95", \.intervalScore95),
        ]
    }

    public static var csvHeader: String { (["patient", "horizon_min"] + columns.map(\.name)).joined(separator: ",") }

    public var csvLine: String { Self.line(self, Self.columns) }

    static func line(_ row: ResultRow, _ columns: [Column]) -> String {
        ([row.patient.rawValue, String(row.horizonMinutes)] + columns.map { $0.text(row.metrics) }).joined(separator: ",")
    }
}

public enum ResultsTable {
    /// The CSV text of `rows`, sorted by patient, horizon, split, model.
    public static func csv(_ rows: [ResultRow]) -> String {
        let sorted = rows.sorted { a, b in
            (a.patient.rawValue, a.horizonMinutes, splitOrder(a.metrics.split), modelOrder(a.metrics.model))
                < (b.patient.rawValue, b.horizonMinutes, splitOrder(b.metrics.split), modelOrder(b.metrics.model))
        }
        let columns = ResultRow.columns
        return ([ResultRow.csvHeader] + sorted.map { ResultRow.line($0, columns) }).joined(separator: "\n") + "\n"
    }

    static func splitOrder(_ s: String) -> Int { ["train": 0, "validation": 1, "test": 2][s] ?? 3 }
    static func modelOrder(_ m: String) -> Int { ModelKind(rawValue: m)?.order ?? ModelKind.allCases.count }

    /// A readable summary: per horizon, the median test RMSE of each model across patients (in
    /// `units`), the GE model's improvement over each baseline, and Clarke A+B.
    public static func summary(_ rows: [ResultRow], split: String = "test", units: GlucoseUnit = .mgdL) -> String {
        func num(_ x: Double) -> String { ResultsTable.num(x, units) }
        let horizons = Set(rows.map(\.horizonMinutes)).sorted()
        let models = ModelKind.allCases.map(\.rawValue)
        var cells = [["horizon"] + models + ["GE vs ARX", "GE vs pers.", "GE A+B %", "patients"]]
        for h in horizons {
            let at = rows.filter { $0.horizonMinutes == h && $0.metrics.split == split }
            func median(_ model: String, _ key: (SplitMetrics) -> Double) -> Double {
                let v = at.filter { $0.metrics.model == model }.map { key($0.metrics) }.filter(\.isFinite).sorted()
                guard !v.isEmpty else { return .nan }
                return v.count % 2 == 1 ? v[v.count / 2] : (v[v.count / 2 - 1] + v[v.count / 2]) / 2
            }
            let rmse = models.map { median($0, \.rmse) }
            let vsARX = 100 * (1 - rmse[ModelKind.ge.order] / rmse[ModelKind.arx.order])
            let vsPers = 100 * (1 - rmse[ModelKind.ge.order] / rmse[ModelKind.persistence.order])
            let patients = Set(at.map(\.patient)).count
            cells.append(["\(h) min"] + rmse.map(num) + [pct(vsARX), pct(vsPers), Self.num(median(ModelKind.ge.rawValue, \.clarkeAB)),
                                                      String(patients)])
        }
        let widths = [8] + models.map { _ in 12 } + [11, 12, 9, 9]
        return (["Median \(split) RMSE across patients (\(units.rawValue)), GE improvement, Clarke A+B of GE"]
                + table(cells, widths: widths)).joined(separator: "\n")
    }

    /// One line per patient and horizon on `split`: each model's RMSE (in `units`), then the GE
    /// model's Clarke A+B (%), sorted by patient then horizon; for `--per-patient`.
    public static func perPatient(_ rows: [ResultRow], split: String = "test", units: GlucoseUnit = .mgdL) -> String {
        let models = ModelKind.allCases.map(\.rawValue)
        let at = rows.filter { $0.metrics.split == split }
        var cells = [["patient", "horizon"] + models + ["GE A+B %", "n"]]
        let keys = Set(at.map { "\($0.patient.rawValue)|\($0.horizonMinutes)" })
        let sorted = keys.map { k -> (String, Int) in let p = k.split(separator: "|"); return (String(p[0]), Int(p[1])!) }.sorted { $0 < $1 }
        for (patient, h) in sorted {
            let mine = at.filter { $0.patient.rawValue == patient && $0.horizonMinutes == h }
            func metric(_ model: String) -> SplitMetrics? { mine.first { $0.metrics.model == model }?.metrics }
            cells.append([patient, "\(h) min"] + models.map { num(metric($0)?.rmse ?? .nan, units) }
                         + [num(metric(ModelKind.ge.rawValue)?.clarkeAB ?? .nan), String(metric(ModelKind.ge.rawValue)?.n ?? 0)])
        }
        // The last column, n, is not padded.
        let widths = [18, 8] + models.map { _ in 12 } + [9]
        return (["Per patient, \(split) RMSE (\(units.rawValue)) and Clarke A+B of GE"] + table(cells, widths: widths)).joined(separator: "\n")
    }

    /// A line naming the models with no row on `split` scored (fewer than
    /// `PatientTrainer.minimumRows.test` rows: test days too short, or their readings missing or
    /// left out at the sensor's limits), which the medians leave out; nil when there are none.
    public static func unscoredLine(_ rows: [ResultRow], split: String = "test") -> String? {
        let models = Set(rows.map { "\($0.patient.rawValue)|\($0.horizonMinutes)" })
        let scored = Set(rows.filter { $0.metrics.split == split && $0.metrics.n > 0 }.map { "\($0.patient.rawValue)|\($0.horizonMinutes)" })
        let byPatient = Dictionary(grouping: models.subtracting(scored).map { $0.split(separator: "|") }, by: { String($0[0]) })
        guard !byPatient.isEmpty else { return nil }
        let list = byPatient.keys.sorted().map { p in
            p + " (" + byPatient[p]!.compactMap { Int($0[1]) }.sorted().map { "\($0)" }.joined(separator: ", ") + " min)"
        }
        return "Not in the medians, no \(split) row scored (fewer than \(PatientTrainer.minimumRows.test) rows with a reading at the "
            + "horizon: \(split) days too short, or their readings missing or at the sensor's limits): " + list.joined(separator: ", ")
    }

    /// Lines flagging patients whose CGM sat at its limits or flat-lined: runs, hours and
    /// readings, and whether they were kept out of training and scoring.
    public static func sensorLimitLines(_ flagged: [(patient: PatientID, runs: [SensorLimitRun])], kept: Bool) -> [String] {
        guard !flagged.isEmpty else { return [] }
        var lines = ["Sensor limits (readings at the CGM's floor/ceiling or flat lines; \(kept ? "KEPT in" : "left out of") training and scoring):"]
        for (patient, runs) in flagged.sorted(by: { $0.patient < $1.patient }) {
            let hours = runs.reduce(0) { $0 + $1.duration } / 3600
            let kinds = SensorLimitRun.Kind.allCases.compactMap { k -> String? in
                let n = runs.count(where: { $0.kind == k })
                return n == 0 ? nil : "\(n) \(k.rawValue)"
            }
            lines.append("  ! \(patient): \(Plural.of(runs.count, "run")) (\(kinds.joined(separator: ", "))), \(String(format: "%.1f", hours)) h, "
                         + Plural.of(runs.readingCount, "reading"))
        }
        return lines
    }

    /// The lines of a table of `cells` (a row of cells a line, the header first): column `i` is
    /// `widths[i]` wide, or its longest cell and a space when that is wider, so a long cell (a
    /// horizon of `1440 min`, a long patient ID) widens its column on every line instead of shifting
    /// the columns after it on its own line. Cells past `widths` are not padded.
    static func table(_ cells: [[String]], widths: [Int]) -> [String] {
        let widths = widths.indices.map { i in cells.reduce(widths[i]) { i < $1.count ? max($0, $1[i].count + 1) : $0 } }
        return cells.map { row in
            row.indices.map { i in
                i < widths.count ? row[i] + String(repeating: " ", count: widths[i] - row[i].count) : row[i]
            }.joined()
        }
    }
    private static func num(_ x: Double) -> String { x.isFinite ? String(format: "%.2f", x) : "-" }
    /// A glucose amount given in mg/dL, written in `units` (two decimals in mg/dL, three in mmol/L).
    private static func num(_ mgdL: Double, _ units: GlucoseUnit) -> String {
        mgdL.isFinite ? String(format: "%.\(units.decimals(mgdL: 2))f", units.convert(mgdL)) : "-"
    }
    private static func pct(_ x: Double) -> String { x.isFinite ? String(format: "%+.1f%%", x) : "-" }

    /// Reads rows back from `results.csv` text (for the research summary and for collecting
    /// shards): columns by the header's names, so a file with more columns (coverage, alarms) or
    /// with the first twelve only (older runs) is read alike; a row without the named columns, or
    /// with a bad patient, horizon or count, is skipped.
    public static func parse(_ text: String) -> [ResultRow] {
        let lines = text.split(whereSeparator: \.isNewline)
        guard let header = lines.first else { return [] }
        var index: [String: Int] = [:]
        for (i, name) in header.split(separator: ",", omittingEmptySubsequences: false).enumerated() where index[String(name)] == nil {
            index[String(name)] = i
        }
        // The first twelve columns (every version has them) must be there; later ones are read when present.
        let columns = ResultRow.columns
        let present = columns.compactMap { c in index[c.name].map { (c, $0) } }
        guard let patient = index["patient"], let horizon = index["horizon_min"],
              columns.prefix(10).allSatisfy({ index[$0.name] != nil }) else { return [] }
        return lines.dropFirst().compactMap { line in
            let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard patient < f.count, horizon < f.count, let id = try? PatientID(f[patient]), let h = Int(f[horizon]) else { return nil }
            var m = SplitMetrics(model: "", split: "", n: -1, rmse: .nan, mae: .nan, mard: .nan,
                                 clarkeA: .nan, clarkeAB: .nan, parkesA: .nan, parkesAB: .nan)
            for (column, i) in present { column.read(&m, i < f.count ? f[i] : "") }
            guard m.n >= 0 else { return nil }
            return ResultRow(patient: id, horizonMinutes: h, metrics: m)
        }
    }
}
