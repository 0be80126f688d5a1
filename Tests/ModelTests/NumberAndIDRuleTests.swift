import Foundation
import Testing
@testable import GlucoModel

/// Issue #12: one number reader for every importer, one patient-id rule.
@Suite struct NumberAndIDRuleTests {
    /// `Double(String)` reads these (0x10 = 16, 0x1p7 = 128, 0x1.8p1 = 3, nan, inf, 1e999 = inf):
    /// no export writes them, so the one reader refuses them.
    @Test(arguments: ["0x10", "0x1p7", "0x1.8p1", "-0x10", "nan", "NaN", "inf", "-inf", "infinity", "1e999",
                      "1e", "e5", ".", "-", "+", "5.5.5", "5 5", "0b101", "1_000", "٣", "1e5x", ""])
    func refusesWhatIsNotADecimal(text: String) {
        #expect(NumberText.read(text) == nil)
        #expect(NumberText.read(text, decimalComma: true) == nil)
        #expect(CSVRow.number(text) == nil)
    }

    /// Values worked out by hand.
    @Test func readsDecimals() {
        #expect(NumberText.read("120") == 120)
        #expect(NumberText.read(" 5.5\t") == 5.5)
        #expect(NumberText.read("-0.25") == -0.25)
        #expect(NumberText.read("+7") == 7)
        #expect(NumberText.read(".5") == 0.5)
        #expect(NumberText.read("5.") == 5)
        #expect(NumberText.read("1.5e2") == 150)
        #expect(NumberText.read("2E-1") == 0.2)
        #expect(NumberText.read("5,6") == nil)
        #expect(NumberText.read("5,6", decimalComma: true) == 5.6)
        #expect(NumberText.read("1,234.5", decimalComma: true) == nil)
    }

    /// Through a real importer: the hex rows are skipped as not a number, the decimal one kept.
    @Test func importerSkipsHexFloats() throws {
        let csv = "patient,time,event,value,unit\np1,2026-01-05T08:00,glucose,0x10,mg/dL\n"
            + "p1,2026-01-05T08:05,glucose,0x1p7,mg/dL\np1,2026-01-05T08:10,glucose,120,mg/dL\n"
            + "p1,2026-01-05T08:15,bolus,0x1.8p1,U\np1,2026-01-05T08:20,glucose,inf,mg/dL\n"
        let url = ScratchSpace.root.appendingPathComponent("hex-\(UUID().uuidString).csv")
        try Data(csv.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let r = try LogCSVImporter().importFile(at: url, options: Fixture.options)
        #expect(r.log.glucose.map(\.value.mgdL) == [120])
        #expect(r.log.boluses.isEmpty)
        #expect(r.summary.skipped["not a number"] == 4)
    }

    @Test(arguments: [".", "..", "", "a/b", "a\\b", "/", "p\u{1B}[2J", "p\u{7}", "p\u{0}", "name@example.com",
                      "name_example.com", "john.doe_gmail.com", "x y", String(repeating: "a", count: 65)])
    func idRuleRefuses(raw: String) {
        #expect(throws: PatientID.InvalidID.self) { try PatientID(raw) }
    }

    /// Hunt W: an id refused for a letter outside ASCII (`García`) or its length was quoted whole,
    /// and the words went into the store's import summary, nightly's summary.json, quarantine
    /// reasons and reports. The reason names the character and where it is, never the text.
    @Test func aRefusedIDIsNeverQuoted() {
        func reason(_ raw: String) -> String {
            do { _ = try PatientID(raw); return "accepted" } catch { return "\(error)" }
        }
        #expect(reason("María_García") == "patient id has the character 'í' (character 4 of 12); use letters, digits, '-', '_' or '.'")
        #expect(reason(".Ana.Lopez") == "patient id must start with a letter or a digit, not '.'")
        #expect(reason("MariaGarciaLopez" + String(repeating: "x", count: 60)) == "patient id is longer than 64 characters (76)")
        for raw in ["María_García", ".Ana.Lopez", "MariaGarciaLopez" + String(repeating: "x", count: 60), "Ana.López"] {
            #expect(!reason(raw).contains("Mar") && !reason(raw).contains("Ana") && !reason(raw).contains("Lop"))
        }
    }

    @Test(arguments: ["p1", "adolescent_003", "559", "a.b", "child-001", "P_07.v2"])
    func idRuleAccepts(raw: String) throws {
        #expect(try PatientID(raw).rawValue == raw)
    }

    /// A file whose every patient cell is an e-mail address (or an id too long): the error names
    /// the first row's line and field and why, never the address itself. Before, it said "no row
    /// names a valid patient; fill the patient column", no line, no field, no reason, for a column
    /// that was filled; and a row's warning quoted the address's first 20 characters.
    @Test func aFileOfBadIDsIsRefusedAtItsFirstRowWithTheReason() throws {
        let dir = ScratchSpace.root.appendingPathComponent("ids-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let email = "john.smith@example.com"
        let csv = dir.appendingPathComponent("p.csv"), mapped = dir.appendingPathComponent("m.csv")
        try Data("patient,time,event,value,unit\n\(email),2026-01-05T08:00,glucose,120,mg/dL\n".utf8).write(to: csv)
        try Data("date,id,CGM\n2026-01-05T08:00:00Z,,120\n2026-01-05T08:05:00Z,\(email),121\n".utf8).write(to: mapped)
        var mappedOptions = Fixture.options
        mappedOptions.columns = try CSVColumnMapping(parsing: "time=date,patient=id,glucose=CGM")
        let cases: [(() throws -> Any, String, Int, String)] = [
            ({ try LogCSVImporter().importFile(at: csv, options: Fixture.options) }, csv.path, 2, "patient"),
            ({ try PatientIDScan.csvPatient(csv, options: Fixture.options) }, csv.path, 2, "patient"),
            ({ try MappedCSVImporter().importPatients(at: mapped, options: mappedOptions) }, mapped.path, 2, "id"),
            ({ try PatientIDScan.mappedPatient(mapped, options: mappedOptions) }, mapped.path, 2, "id"),
        ]
        for (run, file, line, field) in cases {
            #expect {
                _ = try run()
            } throws: { error in
                guard let e = error as? InputError else { return false }
                let text = "\(e)"
                return e.issue.location == GlucoModel.SourceLocation(file: file, line: line, field: field)
                    && text.contains("no row names a valid patient id; the first: ") && text.contains("--patient") && !text.contains("smith")
            }
        }
        // One bad row among good ones: its warning gives the reason, not the address.
        try Data("patient,time,event,value,unit\np1,2026-01-05T08:00,glucose,120,mg/dL\n\(email),2026-01-05T08:05,glucose,121,mg/dL\n".utf8)
            .write(to: csv)
        let r = try LogCSVImporter().importFile(at: csv, options: Fixture.options)
        #expect(r.summary.skipped == ["bad patient id": 1])
        #expect(r.summary.issues.map(\.message) == ["patient id looks like an e-mail or a name; use a pseudonymous id"])
    }
}
