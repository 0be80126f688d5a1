import Foundation

/// The CGM metrics of one patient, rendered for the `metrics` command.
public struct CGMMetricsReport: Sendable {
    public enum Format: String, Sendable, CaseIterable { case table, csv, json }

    public var patient: PatientID
    public var metrics: CGMMetrics
    /// The unit glucose figures and range labels are printed in (`CGMMetrics.rows(units:)`).
    public var units: GlucoseUnit = .mgdL
    /// The clock of the table's period (`--time-zone`), with its offset; CSV and JSON keep UTC, as
    /// every file the toolkit writes (hunt AH, stop 57: a Kathmandu clinician read a period
    /// starting the day before the data).
    public var timeZone: TimeZone = .gmt

    public init(patient: PatientID, metrics: CGMMetrics) { self.patient = patient; self.metrics = metrics }

    public func render(format: Format) -> String { Self.render([self], format: format) }

    /// Several patients in one text. Table: one aligned block per patient. CSV: long form,
    /// header `patient,metric,value,unit,target,met` (met: `yes`/`no`/empty). JSON: an array of
    /// `{version, patient, period_start, period_end, metrics: {key: {value, unit, target, met}}}` (version 1),
    /// NaN written as `null`.
    public static func render(_ reports: [CGMMetricsReport], format: Format) -> String {
        switch format {
        case .table: return reports.map(\.table).joined(separator: "\n")
        case .csv:
            var lines = ["patient,metric,value,unit,target,met"]
            for r in reports {
                for row in r.metrics.rows(units: r.units) {
                    lines.append([r.patient.rawValue, row.key, row.value.isNaN ? "" : formatNumber(row.value, decimals: row.decimals),
                                  row.unit, row.target?.description ?? "", metText(row.met)].map(csvQuote).joined(separator: ","))
                }
            }
            return lines.joined(separator: "\n") + "\n"
        case .json:
            return "[\n" + reports.map(\.json).joined(separator: ",\n") + "\n]\n"
        }
    }

    static func isoString(_ d: Date) -> String { d.formatted(.iso8601) }

    var table: String {
        let rows = metrics.rows(units: units)
        let header = ("Metric", "Value", "Target", "Met")
        let cells = rows.map { row in
            (row.label, row.value.isNaN ? "n/a" : formatNumber(row.value, decimals: row.decimals) + (row.unit.isEmpty ? "" : " " + row.unit),
             row.target?.description ?? "", Self.metText(row.met))
        }
        let w0 = max(header.0.count, cells.map(\.0.count).max() ?? 0)
        let w1 = max(header.1.count, cells.map(\.1.count).max() ?? 0)
        let w2 = max(header.2.count, cells.map(\.2.count).max() ?? 0)
        func pad(_ s: String, _ w: Int) -> String { s + String(repeating: " ", count: max(0, w - s.count)) }
        func padLeft(_ s: String, _ w: Int) -> String { String(repeating: " ", count: max(0, w - s.count)) + s }
        var lines = ["Patient \(patient.rawValue): \(metrics.period.start.iso8601(in: timeZone)) to \(metrics.period.end.iso8601(in: timeZone))"]
        lines.append("\(pad(header.0, w0))  \(padLeft(header.1, w1))  \(pad(header.2, w2))  \(header.3)")
        for c in cells {
            lines.append("\(pad(c.0, w0))  \(padLeft(c.1, w1))  \(pad(c.2, w2))  \(c.3)".trimmingSpaces())
        }
        return lines.joined(separator: "\n") + "\n"
    }

    var json: String {
        let entries = metrics.rows(units: units).map { row -> String in
            let value = row.value.isFinite ? formatNumber(row.value, decimals: max(row.decimals, 2)) : "null"
            let target = row.target.map { "\"\(Self.jsonEscape($0.description))\"" } ?? "null"
            let met = row.met.map { $0 ? "true" : "false" } ?? "null"
            return "    \"\(row.key)\": {\"value\": \(value), \"unit\": \"\(Self.jsonEscape(row.unit))\", \"target\": \(target), \"met\": \(met)}"
        }
        return "  {\"version\": 1, \"patient\": \"\(Self.jsonEscape(patient.rawValue))\", "
            + "\"period_start\": \"\(Self.isoString(metrics.period.start))\", "
            + "\"period_end\": \"\(Self.isoString(metrics.period.end))\",\n   \"metrics\": {\n"
            + entries.joined(separator: ",\n") + "\n  }}"
    }

    static func metText(_ met: Bool?) -> String { met.map { $0 ? "yes" : "no" } ?? "" }

    static func csvQuote(_ s: String) -> String {
        s.contains(where: { $0 == "," || $0 == "\"" }) ? "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : s
    }

    static func jsonEscape(_ s: String) -> String {
        var out = ""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default: out += u.value < 0x20 ? String(format: "\\u%04x", u.value) : String(u)
            }
        }
        return out
    }
}
