import Foundation
@testable import GlucoModel

enum Fixture {
    static func url(_ path: String) -> URL {
        Bundle.module.resourceURL!.appendingPathComponent("Fixtures").appendingPathComponent(path)
    }

    static let utc = TimeZone(identifier: "UTC")!
    /// The fixtures are dated 2026-01-05; "now" for the tests is 2027-01-01 UTC.
    static let options = ImportOptions(timeZone: utc, now: date("2027-01-01T00:00:00Z"))

    /// An instant from ISO 8601 text with an offset, parsed by Foundation (independent of the code under test).
    static func date(_ iso: String) -> Date {
        let f = ISO8601DateFormatter()
        return f.date(from: iso)!
    }
}

/// A log written back as a GlucoModel CSV file (`LogCSVImporter`), every kind of record, times in
/// UTC with `Z`: what several suites import to compare with the log in memory.
enum LogCSVText {
    /// Glucose as mg/dL in the shortest text that reads back as the same double.
    static func mgdL(_ g: GlucoseValue) -> (value: String, unit: String) { ("\(g.mgdL)", "mg/dL") }

    static func of(_ log: PatientLog, glucose: (GlucoseValue) -> (value: String, unit: String) = mgdL) -> String {
        let f = ISO8601DateFormatter()
        let p = log.patient.rawValue
        func minutes(_ a: Date, _ b: Date) -> String { "\(b.timeIntervalSince(a) / 60)" }
        var lines = [LogCSVImporter.header]
        for r in log.glucose {
            let (value, unit) = glucose(r.value)
            lines.append("\(p),\(f.string(from: r.time)),glucose,\(value),\(unit),,,,")
        }
        for c in log.carbs { lines.append("\(p),\(f.string(from: c.time)),carbs,\(c.amount.grams),g,,,,") }
        for b in log.boluses {
            let extended = b.end.map { ",\(minutes(b.time, $0)),\(b.type.rawValue)" } ?? ",,"
            lines.append("\(p),\(f.string(from: b.time)),bolus,\(b.dose.units),U\(extended),,")
        }
        for b in log.basalRates { lines.append("\(p),\(f.string(from: b.start)),basal,\(b.rate.unitsPerHour),U/h,\(b.end.map { minutes(b.start, $0) } ?? ""),,,") }
        for t in log.temporaryBasals { lines.append("\(p),\(f.string(from: t.start)),temp_basal,\(t.rate.unitsPerHour),U/h,\(minutes(t.start, t.end)),,,") }
        for i in log.basalInjections { lines.append("\(p),\(f.string(from: i.time)),basal_injection,\(i.dose.units),U,,,,") }
        for e in log.exercise { lines.append("\(p),\(f.string(from: e.time)),exercise,\(e.intensity),,\(e.durationMinutes),,,") }
        for h in log.heartRate { lines.append("\(p),\(f.string(from: h.time)),heart_rate,\(h.beatsPerMinute),bpm,,,,") }
        for w in log.weights { lines.append("\(p),\(f.string(from: w.time)),weight,\(w.kilograms),kg,,,,") }
        return lines.joined(separator: "\n") + "\n"
    }
}
