import ArgumentParser
import Foundation
import GlucoModel
import GlucoModelCommandLine

/// Writes clinician reports: one HTML page per patient, or a cohort folder with an index page.
struct Report: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a self-contained HTML clinician report per patient (metrics, AGP, predictions, models).",
        discussion: """
            One patient: --patient P --models DIR --data FILE_OR_DIR... --out report.html. A cohort: \
            --models DIR --data DIR --out-dir DIR writes <patient>.html for every patient with both models \
            and data, and index.html linking them. The period is --from/--to (ISO 8601; without an offset, \
            on --time-zone's clock), else the last --days days of the data's CGM readings. Files are written atomically.
            """)

    @Option(help: "Patient id (required with --out; with --out-dir, only this patient).")
    var patient: String?

    @Option(help: "Models folder (the trainer's --out folder or its models/ subfolder).")
    var models: String

    @OptionGroup var input: DataOptions

    @Option(help: "The report file for one patient.")
    var out: String?

    @Option(help: "A folder for every patient's report and index.html.")
    var outDir: String?

    @Option(help: "Start of the period, e.g. 2026-01-15 or 2026-01-15T08:00:00Z.")
    var from: String?

    @Option(help: "End of the period (exclusive).")
    var to: String?

    @Option(help: "Days before the end of the data the report covers, when --from is not given.")
    var days = ReportPeriod.defaultDays

    @Option(help: "Dose settings: a <patient>.json file, or a folder of them, for the dose-audit and settings-check sections.")
    var settings: String?

    @OptionGroup var time: TimeZoneOption

    @OptionGroup var units: GlucoseUnitsOption

    @Flag(help: "Score predictions against CGM readings at the sensor's limits and flat lines too (left out by default).")
    var keepSensorLimits = false

    @Option(help: "Paper the report prints on: A4 or letter (both print the clinician view on two pages).")
    var paper: String = PaperSize.a4.rawValue

    var zone: TimeZone { time.timeZone }

    func validate() throws {
        guard (out == nil) != (outDir == nil) else { throw ValidationError("give either --out (one patient) or --out-dir (a cohort)") }
        if out != nil, patient == nil { throw ValidationError("--out needs --patient") }
        if let patient { do { _ = try PatientID(patient) } catch { throw ValidationError("--patient: \(error)") } }
        guard PaperSize(name: paper) != nil else { throw ValidationError("--paper: expected A4 or letter, got '\(paper)'") }
        guard days >= 1 else { throw ValidationError("--days must be at least 1") }
        for (name, value) in [("--from", from), ("--to", to)] {
            if let value, ReportPeriod.parseTime(value, timeZone: zone) == nil {
                throw ValidationError("\(name): expected a date like 2026-01-15 or 2026-01-15T08:00:00Z, got '\(value)'")
            }
        }
    }

    func run() throws {
        let only = try patient.map { try PatientID($0) }
        let loaded = try loadPatients(input.source(timeZone: time.zone()), patient: only, failure: { Console.write("skipped: \($0)") })
        let modelsURL = URL(fileURLWithPath: models)
        if let out, let id = only {
            guard let patientData = loaded.data(for: id) else {
                throw PredictionError.unknownPatient(id, found: loaded.allPatients, in: input.name)
            }
            var read = loaded.read
            read.add(modelsIn: modelsURL)
            read.add(settingsFile(patientData).map { [$0.path] } ?? [], role: "the settings file")
            try read.check(outputFile: URL(fileURLWithPath: out), option: "--out")
            let report = try makeReport(patientData, modelsURL)
            try report.write(to: URL(fileURLWithPath: out))
            report.notes.forEach { Console.write("\(id): \($0)") }
            print("Wrote \(out)")
            return
        }
        let folder = URL(fileURLWithPath: outDir!)
        let withModels = Set(ModelSet.patients(in: modelsURL))
        let reported = loaded.patients.filter { withModels.contains($0.patient) && (patient == nil || patient == $0.patient.rawValue) }
        // Every page it writes is checked before the first is made: none replaces a file read.
        var read = loaded.read
        read.add(modelsIn: modelsURL)
        read.add(reported.compactMap { settingsFile($0)?.path }, role: "the settings file")
        try read.check(outputFolder: folder, writing: ["index.html"] + reported.map { CohortReport.fileName(for: $0.patient) },
                       option: "--out-dir")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        LeftoverFiles.removeAll(in: folder)
        var entries: [CohortReport.Entry] = [], failures: [(subject: String, reason: String)] = []
        for (k, patientData) in reported.enumerated() {
            // A cohort's reports take seconds each (a long period, minutes): say which one is made.
            if reported.count > 1 { Console.status("[\(k + 1)/\(reported.count)] \(patientData.patient)...") }
            do {
                let report = try makeReport(patientData, modelsURL)
                let file = CohortReport.fileName(for: patientData.patient)
                try report.write(to: folder.appendingPathComponent(file))
                entries.append(CohortReport.Entry(report: report, file: file))
                report.notes.forEach { Console.write("\(patientData.patient): \($0)") }
            } catch {
                failures.append((patientData.patient.rawValue, ReportErrorText.describe(error)))
                Console.write("\(patientData.patient): \(error)")
            }
        }
        for p in withModels.subtracting(loaded.patients.map(\.patient)).sorted() {
            failures.append((p.rawValue, "has models but no data"))
        }
        // A patient with data and no model is said, not left out: often one whose CGM sat at its floor.
        for patientData in loaded.patients where !withModels.contains(patientData.patient) && (patient == nil || patient == patientData.patient.rawValue) {
            let reason = CohortReport.noModelReason(log: patientData.log, period: try? period(patientData.log), units: units.unit)
            failures.append((patientData.patient.rawValue, reason))
            Console.write("\(patientData.patient): no report: \(reason)")
        }
        try CohortReport(entries: entries, failures: failures, clock: ReportClock(timeZone: zone), units: units.unit)
            .write(to: folder.appendingPathComponent("index.html"))
        print("Wrote \(Plural.of(entries.count, "report")) and index.html to \(folder.path)")
        let status = RunStatus.of(done: entries.count, failed: failures.count + loaded.failures.count)
        if status != .success { throw ExitCode(status.rawValue) }
    }

    func makeReport(_ patientData: PatientData, _ modelsURL: URL) throws -> PatientReport {
        let modelSet = try ModelSet.load(modelsURL, patient: patientData.patient)
        let period = try period(patientData.log)
        if period.duration > 90 * 86_400 {
            Console.status("\(patientData.patient): a report over \(Int((period.duration / 86_400).rounded())) days: its predictions, "
                           + "audit and settings check take longer than a fortnight's (for years of data, minutes)")
        }
        var report = try PatientReport(log: patientData.log, models: modelSet, period: period, timeZone: zone,
                                       doseAudit: try doseAudit(patientData, modelSet, period), keepSensorLimits: keepSensorLimits)
        report.units = units.unit
        report.settingsCheck = settingsFile(patientData).map {
            ReportSettingsCheck.load(settings: $0, log: patientData.log, period: period, units: units.unit, timeZone: zone)
        }
        report.paper = PaperSize(name: paper) ?? .a4
        return report
    }

    /// The report's period of `log` (--from, --to, --days).
    func period(_ log: PatientLog) throws -> DateInterval {
        try ReportPeriod.resolve(log: log, from: from.flatMap { ReportPeriod.parseTime($0, timeZone: zone) },
                                 to: to.flatMap { ReportPeriod.parseTime($0, timeZone: zone) }, days: days, timeZone: zone)
    }

    /// The patient's settings file: --settings itself, or <patient>.json in it when it is a folder.
    func settingsFile(_ patientData: PatientData) -> URL? {
        guard let settings else { return nil }
        var isFolder: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: settings, isDirectory: &isFolder)
        return isFolder.boolValue
            ? URL(fileURLWithPath: settings).appendingPathComponent("\(patientData.patient.rawValue).json")
            : URL(fileURLWithPath: settings)
    }

    /// The dose-audit section from the patient's settings file, or nil when none was given.
    func doseAudit(_ patientData: PatientData, _ models: ModelSet, _ period: DateInterval) throws -> ReportDoseAudit? {
        try settingsFile(patientData).map {
            try ReportDoseAudit.load(settings: $0, log: patientData.log, models: models, period: period, units: units.unit,
                                     timeZone: zone)
        }
    }
}
