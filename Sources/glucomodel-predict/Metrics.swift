import ArgumentParser
import Foundation
import GlucoModel

/// `glucomodel-predict metrics DATA... [--days N] [--format table|csv|json]`
struct Metrics: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "CGM metrics (time in ranges, mean, GMI, CV, LBGI/HBGI, GRI, MODD, CONGA...) per patient for the last days of the data.",
        discussion: """
            The period ends one reading interval after each patient's last reading and covers --days days \
            (or less when the data is shorter). Formulas: specs/cgm-metrics.md (2019 consensus on time in range).
            """)

    @Argument(help: "Data files or folders (any importable format).")
    var data: [String]

    @Option(help: "Days before the last reading to cover.")
    var days: Double = 14

    // A plain string (not an ExpressibleByArgument conformance) so no other command's conformance can clash.
    @Option(help: "Output: table, csv or json.")
    var format: String = "table"

    @Option(name: .customLong("input-format"), help: "Format of every data file (\(ImportFormats.names.joined(separator: ", "))); default: detected.")
    var inputFormat: String?

    @Option(name: .customLong("time-zone"), help: "Time zone of local times without an offset in the data (default: this machine's).")
    var timeZone: String?

    func validate() throws {
        guard CGMMetricsReport.Format(rawValue: format) != nil else {
            throw ValidationError("--format: expected table, csv or json, got '\(format)'")
        }
        guard days > 0, days.isFinite else { throw ValidationError("--days must be a positive number of days") }
        if let inputFormat, ImportFormats.named(inputFormat) == nil {
            throw ValidationError("--input-format: unknown format '\(inputFormat)'; expected one of \(ImportFormats.names.joined(separator: ", "))")
        }
        _ = try timeZoneOption(timeZone)
    }

    func run() throws {
        let zone = try timeZoneOption(timeZone)
        let loaded = CohortLoader.load(try CohortLoader.files(data), options: ImportOptions(timeZone: zone), format: inputFormat)
        for failure in loaded.failures { PredictSupport.warn("skipped file: \(failure)") }
        var reports: [CGMMetricsReport] = []
        for patient in loaded.patients {
            if let report = CGMMetricsReport.recent(patient.log, days: days) {
                reports.append(report)
            } else {
                PredictSupport.warn("\(patient.patient): no glucose readings; no metrics")
            }
        }
        guard !reports.isEmpty else {
            PredictSupport.status("no patient has glucose readings")
            throw ExitCode(RunStatus.failure.rawValue)
        }
        print(CGMMetricsReport.render(reports, format: CGMMetricsReport.Format(rawValue: format) ?? .table), terminator: "")
        if reports.count < loaded.patients.count || !loaded.failures.isEmpty { throw ExitCode(RunStatus.partial.rawValue) }
    }
}
