import Foundation
import GlucoModel
import Testing

/// Helpers shared by the export-importer tests.
enum ExportFixtures {
    static func url(_ name: String) -> URL {
        guard let base = Bundle.module.resourceURL else { preconditionFailure("test bundle has no resources") }
        return base.appendingPathComponent("Fixtures/exports/\(name)")
    }

    /// Fixed "now" after every fixture date, so no fixture row is future-dated.
    static let now = utc("2027-01-01T00:00:00Z")

    static func options(_ zone: String, order: DateOrder? = nil) -> ImportOptions {
        guard let tz = TimeZone(identifier: zone) else { preconditionFailure("unknown zone \(zone)") }
        return ImportOptions(patient: nil, timeZone: tz, now: now, dateOrder: order)
    }

    /// An instant written in UTC, parsed by Foundation (independently of the importers' parser).
    static func utc(_ text: String) -> Date {
        let f = ISO8601DateFormatter()
        guard let d = f.date(from: text) else { preconditionFailure("bad test date \(text)") }
        return d
    }

    static func mmol(_ v: Double) -> Double { v * 18.01559 }
}

/// Checks that a result is clean: each list sorted by time, all values finite and within
/// `ImportLimits`, summary totals consistent. Returns the problems found (empty = clean).
func cleanlinessProblems(_ r: ImportResult) -> [String] {
    var p: [String] = []
    let log = r.log
    func sorted(_ name: String, _ times: [Date]) {
        if zip(times, times.dropFirst()).contains(where: { $0 > $1 }) { p.append("\(name) not sorted") }
        if times.contains(where: { !$0.timeIntervalSince1970.isFinite || $0 > ExportFixtures.now || $0 < ImportLimits.earliest }) {
            p.append("\(name) time out of range")
        }
    }
    sorted("glucose", log.glucose.map(\.time))
    sorted("boluses", log.boluses.map(\.time))
    sorted("basalRates", log.basalRates.map(\.start))
    sorted("temporaryBasals", log.temporaryBasals.map(\.start))
    sorted("basalInjections", log.basalInjections.map(\.time))
    sorted("carbs", log.carbs.map(\.time))
    sorted("exercise", log.exercise.map(\.time))
    if log.glucose.contains(where: { !ImportLimits.glucoseMgdL.contains($0.value.mgdL) }) { p.append("glucose value out of range") }
    if log.boluses.contains(where: { !ImportLimits.doseUnits.contains($0.dose.units) }) {
        p.append("bolus out of range")
    }
    if log.boluses.contains(where: { b in b.end.map { $0 < b.time } ?? false }) { p.append("bolus ends before it starts") }
    if log.basalInjections.contains(where: { !ImportLimits.doseUnits.contains($0.dose.units) }) { p.append("injection out of range") }
    if log.basalRates.contains(where: { b in !ImportLimits.basalUnitsPerHour.contains(b.rate.unitsPerHour) || (b.end.map { $0 < b.start } ?? false) }) {
        p.append("basal rate out of range")
    }
    if log.temporaryBasals.contains(where: { !ImportLimits.basalUnitsPerHour.contains($0.rate.unitsPerHour) || $0.end < $0.start }) {
        p.append("temp basal out of range")
    }
    if log.carbs.contains(where: { !ImportLimits.carbGrams.contains($0.amount.grams) }) { p.append("carbs out of range") }
    if log.exercise.contains(where: { !ImportLimits.exerciseIntensity.contains($0.intensity) || !ImportLimits.durationMinutes.contains($0.durationMinutes) }) {
        p.append("exercise out of range")
    }
    let total = log.glucose.count + log.boluses.count + log.basalRates.count + log.temporaryBasals.count
        + log.basalInjections.count + log.carbs.count + log.exercise.count + log.weights.count + log.heartRate.count
    if total != r.summary.recordsKept { p.append("recordsKept \(r.summary.recordsKept) != \(total)") }
    if r.summary.issues.contains(where: { $0.location.file.isEmpty }) { p.append("issue without a file") }
    return p
}
