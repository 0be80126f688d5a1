import Foundation

/// One row of `results.csv`: a model's accuracy for one patient, horizon and split.
public struct ResultRow: Codable, Hashable, Sendable {
    public var patient: PatientID
    public var horizonMinutes: Int
    public var metrics: SplitMetrics

    public static let csvHeader = "patient,horizon_min,model,split,n,rmse,mae,mard,clarke_a,clarke_ab,parkes_a,parkes_ab,"
        + "coverage_80,coverage_95,width_80,width_95,alarm_sensitivity,alarm_specificity,alarm_lead_min,false_alarms_per_day,"
        + "lower80_alarm_sensitivity,lower80_alarm_specificity,lower80_alarm_lead_min,lower80_false_alarms_per_day,"
        + "rows_below70,coverage_80_below70,coverage_95_below70,rows_70to180,coverage_80_70to180,coverage_95_70to180,"
        + "rows_from180,coverage_80_from180,coverage_95_from180"

    public var csvLine: String {
        let m = metrics
        return [patient.rawValue, String(horizonMinutes), m.model, m.split, String(m.n),
                f(m.rmse), f(m.mae), f(m.mard), f(m.clarkeA), f(m.clarkeAB), f(m.parkesA), f(m.parkesAB),
                f(m.coverage80 ?? .nan), f(m.coverage95 ?? .nan), f(m.width80 ?? .nan), f(m.width95 ?? .nan),
                f(m.alarmSensitivity ?? .nan), f(m.alarmSpecificity ?? .nan), f(m.alarmLeadMinutes ?? .nan), f(m.falseAlarmsPerDay ?? .nan),
                f(m.lower80AlarmSensitivity ?? .nan), f(m.lower80AlarmSpecificity ?? .nan),
                f(m.lower80AlarmLeadMinutes ?? .nan), f(m.lower80FalseAlarmsPerDay ?? .nan),
                i(m.rowsBelow70), f(m.coverage80Below70 ?? .nan), f(m.coverage95Below70 ?? .nan),
                i(m.rows70To180), f(m.coverage80In70To180 ?? .nan), f(m.coverage95In70To180 ?? .nan),
                i(m.rowsFrom180), f(m.coverage80From180 ?? .nan), f(m.coverage95From180 ?? .nan)]
            .joined(separator: ",")
    }

    private func f(_ x: Double) -> String { x.isFinite ? String(format: "%.3f", x) : "" }
    private func i(_ x: Int?) -> String { x.map(String.init) ?? "" }
}

public enum ResultsTable {
    /// The CSV text of `rows`, sorted by patient, horizon, split, model.
    public static func csv(_ rows: [ResultRow]) -> String {
        let sorted = rows.sorted { a, b in
            (a.patient.rawValue, a.horizonMinutes, splitOrder(a.metrics.split), modelOrder(a.metrics.model))
                < (b.patient.rawValue, b.horizonMinutes, splitOrder(b.metrics.split), modelOrder(b.metrics.model))
        }
        return ([ResultRow.csvHeader] + sorted.map(\.csvLine)).joined(separator: "\n") + "\n"
    }

    static func splitOrder(_ s: String) -> Int { ["train": 0, "validation": 1, "test": 2][s] ?? 3 }
    static func modelOrder(_ m: String) -> Int { ModelKind(rawValue: m)?.order ?? ModelKind.allCases.count }

    /// A readable summary: per horizon, the median test RMSE of each model across patients,
    /// the GE model's improvement over each baseline, and Clarke A+B.
    public static func summary(_ rows: [ResultRow], split: String = "test") -> String {
        let horizons = Set(rows.map(\.horizonMinutes)).sorted()
        let models = ModelKind.allCases.map(\.rawValue)
        var lines: [String] = []
        lines.append("Median \(split) RMSE across patients (mg/dL), GE improvement, Clarke A+B of GE")
        lines.append(pad("horizon", 8) + models.map { pad($0, 12) }.joined()
                     + pad("GE vs ARX", 11) + pad("GE vs pers.", 12) + pad("GE A+B %", 9) + pad("patients", 9))
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
            lines.append(pad("\(h) min", 8) + rmse.map { pad(num($0), 12) }.joined()
                         + pad(pct(vsARX), 11) + pad(pct(vsPers), 12) + pad(num(median(ModelKind.ge.rawValue, \.clarkeAB)), 9)
                         + pad(String(patients), 9))
        }
        return lines.joined(separator: "\n")
    }

    /// One line per patient and horizon on `split`: each model's RMSE (mg/dL), then the GE
    /// model's Clarke A+B (%), sorted by patient then horizon; for `--per-patient`.
    public static func perPatient(_ rows: [ResultRow], split: String = "test") -> String {
        let models = ModelKind.allCases.map(\.rawValue)
        let at = rows.filter { $0.metrics.split == split }
        var lines = ["Per patient, \(split) RMSE (mg/dL) and Clarke A+B of GE"]
        lines.append(pad("patient", 18) + pad("horizon", 8) + models.map { pad($0, 12) }.joined() + pad("GE A+B %", 9) + "n")
        let keys = Set(at.map { "\($0.patient.rawValue)|\($0.horizonMinutes)" })
        let sorted = keys.map { k -> (String, Int) in let p = k.split(separator: "|"); return (String(p[0]), Int(p[1])!) }.sorted { $0 < $1 }
        for (patient, h) in sorted {
            let mine = at.filter { $0.patient.rawValue == patient && $0.horizonMinutes == h }
            func metric(_ model: String) -> SplitMetrics? { mine.first { $0.metrics.model == model }?.metrics }
            lines.append(pad(patient, 18) + pad("\(h) min", 8) + models.map { pad(num(metric($0)?.rmse ?? .nan), 12) }.joined()
                         + pad(num(metric(ModelKind.ge.rawValue)?.clarkeAB ?? .nan), 9) + String(metric(ModelKind.ge.rawValue)?.n ?? 0))
        }
        return lines.joined(separator: "\n")
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
            lines.append("  ! \(patient): \(runs.count) runs (\(kinds.joined(separator: ", "))), \(String(format: "%.1f", hours)) h, \(runs.readingCount) readings")
        }
        return lines
    }

    private static func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s + " " : s + String(repeating: " ", count: n - s.count) }
    private static func num(_ x: Double) -> String { x.isFinite ? String(format: "%.2f", x) : "-" }
    private static func pct(_ x: Double) -> String { x.isFinite ? String(format: "%+.1f%%", x) : "-" }

    /// Reads rows back from `results.csv` text (for the research summary and for collecting
    /// shards): columns by the header's names, so a file with more columns (coverage, alarms) or
    /// with the first twelve only (older runs) is read alike; a row without the named columns, or
    /// with a bad patient, horizon or count, is skipped.
    public static func parse(_ text: String) -> [ResultRow] {
        let lines = text.split(whereSeparator: \.isNewline)
        guard let header = lines.first else { return [] }
        var column: [String: Int] = [:]
        for (i, name) in header.split(separator: ",", omittingEmptySubsequences: false).enumerated() {
            if column[String(name)] == nil { column[String(name)] = i }
        }
        let required = ["patient", "horizon_min", "model", "split", "n", "rmse", "mae", "mard",
                        "clarke_a", "clarke_ab", "parkes_a", "parkes_ab"]
        guard required.allSatisfy({ column[$0] != nil }) else { return [] }
        return lines.dropFirst().compactMap { line in
            let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            func text(_ name: String) -> String? { column[name].flatMap { $0 < f.count ? f[$0] : nil } }
            func d(_ name: String) -> Double { text(name).flatMap { Double($0) } ?? .nan }
            func optional(_ name: String) -> Double? { let x = d(name); return x.isFinite ? x : nil }
            guard let id = text("patient").flatMap({ try? PatientID($0) }), let h = text("horizon_min").flatMap({ Int($0) }),
                  let model = text("model"), let split = text("split"), let n = text("n").flatMap({ Int($0) }) else { return nil }
            var m = SplitMetrics(model: model, split: split, n: n, rmse: d("rmse"), mae: d("mae"), mard: d("mard"),
                                 clarkeA: d("clarke_a"), clarkeAB: d("clarke_ab"), parkesA: d("parkes_a"), parkesAB: d("parkes_ab"))
            m.coverage80 = optional("coverage_80"); m.coverage95 = optional("coverage_95")
            m.width80 = optional("width_80"); m.width95 = optional("width_95")
            m.alarmSensitivity = optional("alarm_sensitivity"); m.alarmSpecificity = optional("alarm_specificity")
            m.alarmLeadMinutes = optional("alarm_lead_min"); m.falseAlarmsPerDay = optional("false_alarms_per_day")
            m.lower80AlarmSensitivity = optional("lower80_alarm_sensitivity")
            m.lower80AlarmSpecificity = optional("lower80_alarm_specificity")
            m.lower80AlarmLeadMinutes = optional("lower80_alarm_lead_min")
            m.lower80FalseAlarmsPerDay = optional("lower80_false_alarms_per_day")
            func count(_ name: String) -> Int? { text(name).flatMap { Int($0) } }
            m.rowsBelow70 = count("rows_below70")
            m.coverage80Below70 = optional("coverage_80_below70"); m.coverage95Below70 = optional("coverage_95_below70")
            m.rows70To180 = count("rows_70to180")
            m.coverage80In70To180 = optional("coverage_80_70to180"); m.coverage95In70To180 = optional("coverage_95_70to180")
            m.rowsFrom180 = count("rows_from180")
            m.coverage80From180 = optional("coverage_80_from180"); m.coverage95From180 = optional("coverage_95_from180")
            return ResultRow(patient: id, horizonMinutes: h, metrics: m)
        }
    }
}
