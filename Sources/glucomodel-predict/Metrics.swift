import ArgumentParser
import Foundation
import GlucoModel
import GlucoModelCommandLine

/// `glucomodel-predict metrics DATA... | --store FILE [--days N] [--format table|csv|json]`
struct Metrics: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "CGM metrics (time in ranges, mean, GMI, CV, LBGI/HBGI, GRI, MODD, CONGA...) per patient for the last days of the data.",
        discussion: """
            CGM readings only (finger sticks are not counted, as in the report). The period ends one \
            reading interval after each patient's last CGM reading and covers --days days (or less when \
            the data is shorter). Formulas: the 2019 International Consensus on Time in Range \
            (Battelino et al., Diabetes Care 2019) and the iglu package's; docs/predict-and-nightly.md.
            """)

    @OptionGroup var input: DataArguments

    @Option(help: "Days before the last CGM reading to cover (default: 14).", transform: DecimalArgument.read)
    var days: Double = 14

    @Option(help: "Output: table, csv or json.")
    var format: CGMMetricsReport.Format = .table

    @Option(name: .customLong("input-format"), help: "Format of every data file (\(ImportFormats.names.joined(separator: ", "))); default: detected.")
    var inputFormat: String?

    @OptionGroup var time: TimeZoneOption

    @OptionGroup var units: GlucoseUnitsOption

    func validate() throws {
        guard days > 0 else { throw ValidationError("--days must be a positive number of days") }
        _ = try input.reading.format(inputFormat, option: "--input-format")
        if input.data.isEmpty, input.store == nil { throw ValidationError("give DATA files or folders, or --store FILE") }
    }

    func run() throws {
        let loaded = try loadPatients(try input.source(timeZone: time.zone(), format: inputFormat))
        var reports: [CGMMetricsReport] = []
        for patient in loaded.patients {
            if var report = CGMMetricsReport.recent(patient.log, days: days) {
                report.units = units.unit
                report.timeZone = try time.zone()
                reports.append(report)
            } else if patient.log.fingerStickCount > 0 {
                // The consensus metrics are the sensor's: a meter's readings are not a time sample.
                Console.warn("\(patient.patient): no CGM readings, only \(Plural.of(patient.log.fingerStickCount, "finger-stick reading")), "
                             + "which the CGM metrics do not count; no metrics")
            } else {
                Console.warn("\(patient.patient): no glucose readings; no metrics")
            }
        }
        guard !reports.isEmpty else {
            Console.status("no patient has CGM readings")
            throw ExitCode(RunStatus.failure.rawValue)
        }
        print(CGMMetricsReport.render(reports, format: format), terminator: "")
        if reports.count < loaded.patients.count || !loaded.failures.isEmpty { throw ExitCode(RunStatus.partial.rawValue) }
    }
}
