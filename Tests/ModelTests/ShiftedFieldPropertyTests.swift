import Foundation
import Testing
@testable import GlucoModel

/// Dexcom Clarity and LibreView exports shaped as the devices write them (Clarity: EGV rows as wide
/// as the 14-column header, other rows a field short; LibreView: every row 19 fields, grouped by
/// record type), with a decimal comma typed into one value of one row (`4,35` U, `5,6` mmol/L,
/// `12,5` g), unquoted: a hand-edited file. Whatever row and field it falls in, the import never
/// reads a value the file does not hold, and a dose within the insulin's action after a bolus it
/// cannot read is refused. Before stop 46, `4,35` U read as 4 U and `0,5` U as a cancelled bolus.
@Suite struct ShiftedFieldPropertyTests {
    static let cases = 80
    static let t0 = ExportFixtures.utc("2026-03-02T00:00:00Z")

    /// One value of the truth: a reading, a bolus, or a meal, and the text its field holds.
    struct Value {
        var time: Date
        var kind: RecordKind
        var amount: Double
        var text: String
    }

    /// A day and a bit of readings, 1-6 boluses and 1-4 meals, their amounts with decimals.
    static func truth(_ r: inout SplitMix64, mmol: Bool) -> [Value] {
        var values: [Value] = []
        let hours = Int.random(in: 6...30, using: &r)
        for k in 0..<(hours * 12) {
            let t = t0.addingTimeInterval(Double(k) * 300)
            if mmol {
                let v = Double(Int.random(in: 33...166, using: &r)) / 10  // one decimal, as mmol/L exports write
                values.append(Value(time: t, kind: .glucose, amount: v * GlucoseValue.mgdLPerMmolL, text: String(format: "%.1f", v)))
            } else {
                let v = Int.random(in: 60...300, using: &r)
                values.append(Value(time: t, kind: .glucose, amount: Double(v), text: "\(v)"))
            }
        }
        var minutes: Set<Int> = []  // one bolus or meal a minute: each is told by its time
        for (kind, count, range, scale) in [(RecordKind.bolus, 1...6, 1...1500, 100.0), (.carbs, 1...4, 50...1200, 10.0)] {
            for _ in 0..<Int.random(in: count, using: &r) {
                let minute = Int.random(in: 0..<(hours * 60), using: &r)
                guard minutes.insert(minute).inserted else { continue }
                let t = t0.addingTimeInterval(Double(minute) * 60 + 30)
                let a = Double(Int.random(in: range, using: &r)) / scale
                values.append(Value(time: t, kind: kind, amount: a, text: scale == 100 ? String(format: "%.2f", a) : String(format: "%.1f", a)))
            }
        }
        return values
    }

    /// Types a decimal comma into one value of the truth that has a decimal point; returns its index.
    static func garble(_ values: inout [Value], _ r: inout SplitMix64) -> Int {
        let candidates = values.indices.filter { values[$0].text.contains(".") }
        let i = candidates[Int.random(in: 0..<candidates.count, using: &r)]
        values[i].text = values[i].text.replacingOccurrences(of: ".", with: ",")
        return i
    }

    /// What the import kept against the truth: every reading, bolus and meal it read is in the
    /// file (its time and amount), the garbled one is not read, and every bolus it did not read
    /// refuses a dose from its time to the end of its action.
    static func check(_ result: ImportResult, _ values: [Value], garbled: Int, case i: Int, _ label: String,
                      reasons: Set<String> = ["malformed row"]) {
        let log = result.log
        let near = { (a: Double, b: Double) in abs(a - b) < 0.01 }
        let truth = { (kind: RecordKind, time: Date) in values.first { $0.kind == kind && abs($0.time.timeIntervalSince(time)) < 1 } }
        for g in log.glucose {
            #expect(truth(.glucose, g.time).map { near($0.amount, g.value.mgdL) } == true, "\(label) case \(i): reading \(g) not in the file")
        }
        for b in log.boluses {
            #expect(truth(.bolus, b.time).map { near($0.amount, b.dose.units) } == true, "\(label) case \(i): bolus \(b) not in the file")
        }
        for c in log.carbs {
            #expect(truth(.carbs, c.time).map { near($0.amount, c.amount.grams) } == true, "\(label) case \(i): meal \(c) not in the file")
        }
        let bad = values[garbled]
        let readBack = switch bad.kind {
        case .bolus: log.boluses.contains { abs($0.time.timeIntervalSince(bad.time)) < 1 }
        case .carbs: log.carbs.contains { abs($0.time.timeIntervalSince(bad.time)) < 1 }
        default: log.glucose.contains { abs($0.time.timeIntervalSince(bad.time)) < 1 }
        }
        #expect(!readBack, "\(label) case \(i): the garbled \(bad.kind) '\(bad.text)' was read")
        #expect(reasons.reduce(0) { $0 + result.summary.skipped[$1, default: 0] } == 1,
                "\(label) case \(i): \(result.summary.skipped)")
        for bolus in values where bolus.kind == .bolus && !log.boluses.contains(where: { abs($0.time.timeIntervalSince(bolus.time)) < 1 }) {
            for minutes in stride(from: 1.0, through: 360, by: 30) {
                #expect(DoseGuards.skippedInsulinRefusal(log, at: bolus.time.addingTimeInterval(minutes * 60), durationMinutes: 360) != nil,
                        "\(label) case \(i): no refusal \(minutes) min after the unread bolus '\(bolus.text)' at \(bolus.time)")
            }
        }
    }

    /// Imports `cases` files of `label`'s format: each a truth (LibreView's boluses and meals on
    /// whole minutes, as it writes them), one value garbled, written by `write` in that format
    /// (given whether its glucose is in mmol/L, and a formatter of `dateFormat` in UTC).
    static func run(_ label: String, seed: UInt64, dateFormat: String, wholeMinutes: Bool = false, _ importer: any PatientDataImporter,
                    options: ImportOptions = ExportFixtures.options("UTC"), mmolOptions: ImportOptions? = nil,
                    reasons: Set<String> = ["malformed row"],
                    write: ([Value], Bool, DateFormatter, inout SplitMix64) -> String) throws {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX"); f.timeZone = TimeZone(identifier: "UTC"); f.dateFormat = dateFormat
        var garbledKinds: Set<RecordKind> = []
        for i in 0..<Self.cases {
            var r = SplitMix64(seed: seed &+ UInt64(i))
            let mmol = Bool.random(using: &r)
            var values = Self.truth(&r, mmol: mmol)
            if wholeMinutes {
                for k in values.indices where values[k].kind != .glucose { values[k].time.addTimeInterval(-30) }
            }
            let garbled = Self.garble(&values, &r)
            garbledKinds.insert(values[garbled].kind)
            let text = write(values, mmol, f, &r)
            let result = try SkippedInsulinTests.importText(text, name: "p0.csv", importer, options: mmol ? mmolOptions ?? options : options)
            Self.check(result, values, garbled: garbled, case: i, label, reasons: reasons)
        }
        #expect(garbledKinds == [.glucose, .bolus, .carbs])
    }

    @Test func dexcomClarity() throws {
        try Self.run("dexcom", seed: 0xC1A2_0000, dateFormat: "yyyy-MM-dd'T'HH:mm:ss", DexcomClarityImporter()) { values, mmol, f, _ in
            let order = values.indices.sorted { values[$0].time < values[$1].time }
            let rows = order.enumerated().map { n, k -> String in
                let v = values[k], ts = f.string(from: v.time), index = n + 3
                switch v.kind {
                case .glucose: return "\(index),\(ts),EGV,,,,iOS G7,\(v.text),,,,0.4,\(600_000 + n * 300),8ABCDE"
                case .bolus: return "\(index),\(ts),Insulin,Fast-Acting,,,iOS G7,,\(v.text),,,,"
                default: return "\(index),\(ts),Carbs,,,,iOS G7,,,\(v.text),,,"
                }
            }
            let unit = mmol ? "mmol/L" : "mg/dL"
            let header = "Index,Timestamp (YYYY-MM-DDThh:mm:ss),Event Type,Event Subtype,Patient Info,Device Info,Source Device ID,"
                + "Glucose Value (\(unit)),Insulin Value (u),Carb Value (grams),Duration (hh:mm:ss),Glucose Rate of Change (\(unit)/min),"
                + "Transmitter Time (Long Integer),Transmitter ID"
            return ([header, "1,,FirstName,,Ana,,,,,,,,", "2,,LastName,,Ruiz,,,,,,,,"] + rows).joined(separator: "\n") + "\n"
        }
    }

    /// GlucoModel's own CSV, as a spreadsheet saves it (every row as wide as the header) or as typed
    /// by hand (a row's empty fields at the end left out), its columns in a random order. Where the
    /// fraction lands in a column that checks its values (`5` is no unit), the row is skipped for
    /// that; a column that reads any number right after the value (a basal's duration) is not in
    /// these files: such a row, typed by hand, is read (LogCSVState.splitDecimal).
    @Test func glucoModelCSV() throws {
        try Self.run("glucomodel", seed: 0x6C0C_0000, dateFormat: "yyyy-MM-dd'T'HH:mm:ss'Z'", LogCSVImporter(),
                     reasons: ["malformed row", "unknown unit", "unknown type", "unknown moment", "unknown event", "bad time", "empty value"]) { values, mmol, f, r in
            var columns = ["time", "event", "value", "unit"] + ["duration", "type", "moment", "note"].filter { _ in Bool.random(using: &r) }
            columns.shuffle(using: &r)
            columns.insert("patient", at: 0)
            let byHand = Bool.random(using: &r)
            let rows = values.sorted { $0.time < $1.time }.map { v -> String in
                var field: [String: String] = ["patient": "p0", "time": f.string(from: v.time), "value": v.text]
                switch v.kind {
                case .glucose:
                    field["event"] = "glucose"; field["unit"] = mmol ? "mmol/L" : "mg/dL"
                    if Bool.random(using: &r) { field["type"] = "cgm" }
                    if Bool.random(using: &r) { field["note"] = "ok" }
                case .bolus:
                    field["event"] = "bolus"
                    if Bool.random(using: &r) { field["unit"] = "U" }
                    if Bool.random(using: &r) { field["type"] = "normal" }
                default:
                    field["event"] = "carbs"
                    if Bool.random(using: &r) { field["unit"] = "g" }
                    if Bool.random(using: &r) { field["type"] = "lunch" }
                }
                var line = columns.map { field[$0] ?? "" }
                while byHand, line.last == "" { line.removeLast() }
                return line.joined(separator: ",")
            }
            return ([columns.joined(separator: ",")] + rows).joined(separator: "\n") + "\n"
        }
    }

    /// A mapped CSV as GluPredKit-style tools write it: one row per time, every row as wide as the
    /// header, a cell per measurement, empty where the row has none.
    @Test func mappedCSV() throws {
        var options = ExportFixtures.options("UTC"), mmolOptions = options
        options.columns = try CSVColumnMapping(parsing: "time=date,patient=id,glucose=CGM,bolus=insulin,carbs=carbs")
        mmolOptions.columns = options.columns
        mmolOptions.columns?.glucoseUnit = .mmolL
        try Self.run("mapped", seed: 0x3A9D_0000, dateFormat: "yyyy-MM-dd HH:mm:ss", MappedCSVImporter(), options: options,
                     mmolOptions: mmolOptions) { values, _, f, _ in
            let rows = values.sorted { $0.time < $1.time }.map { v -> String in
                let cells = v.kind == .glucose ? [v.text, "", ""] : v.kind == .bolus ? ["", v.text, ""] : ["", "", v.text]
                return ([f.string(from: v.time), "p0"] + cells).joined(separator: ",")
            }
            return (["date,id,CGM,insulin,carbs"] + rows).joined(separator: "\n") + "\n"
        }
    }

    @Test func libreView() throws {
        try Self.run("libre", seed: 0x11B2_0000, dateFormat: "MM-dd-yyyy hh:mm a", wholeMinutes: true, LibreViewImporter(),
                     options: ExportFixtures.options("UTC", order: .monthDayYear)) { values, mmol, f, _ in
            let rank: (RecordKind) -> Int = { $0 == .glucose ? 0 : $0 == .bolus ? 4 : 5 }
            // Grouped by record type, in time within each, as the exports are.
            let order = values.indices.sorted { (rank(values[$0].kind), values[$0].time) < (rank(values[$1].kind), values[$1].time) }
            let rows = order.map { k -> String in
                let v = values[k]
                var fields = ["FreeStyle LibreLink", "6A1B2C3D-0000-4000-8000-0123456789AB", f.string(from: v.time), "\(rank(v.kind))"]
                    + Array(repeating: "", count: 15)
                fields[v.kind == .glucose ? 4 : v.kind == .bolus ? 7 : 9] = v.text
                return fields.joined(separator: ",")
            }
            let unit = mmol ? "mmol/L" : "mg/dL"
            let header = "Device,Serial Number,Device Timestamp,Record Type,Historic Glucose \(unit),Scan Glucose \(unit),"
                + "Non-numeric Rapid-Acting Insulin,Rapid-Acting Insulin (units),Non-numeric Food,Carbohydrates (grams),"
                + "Carbohydrates (servings),Non-numeric Long-Acting Insulin,Long-Acting Insulin (units),Notes,Strip Glucose \(unit),"
                + "Ketone mmol/L,Meal Insulin (units),Correction Insulin (units),User Change Insulin (units)"
            return (["Glucose Data,Generated on,03-10-2026 10:15 AM UTC,Generated by,x", header] + rows).joined(separator: "\n") + "\n"
        }
    }
}
