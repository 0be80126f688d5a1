import ArgumentParser
import Foundation
import GlucoModel

/// `glucomodel-predict DATA... --models DIR [--horizons 30,60] [--from T] [--to T] [--out FILE.csv]`
struct Predict: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Predict glucose for every 5-minute step of a period with each patient's trained models and the baselines.",
        discussion: """
            Writes patient,issued_at,target_time,horizon_min,model,prediction_mgdl,reference_mgdl (UTC ISO 8601 \
            times; reference empty when not yet measured) to --out (atomically) or stdout. Each prediction uses \
            only data up to its issue moment. A patient without a model, whose models read inputs the data lacks, \
            or whose data is too old for the period is skipped with a message on stderr; the command fails only \
            when no patient could be predicted.
            """)

    @Argument(help: "Data files or folders (any importable format).")
    var data: [String]

    @Option(help: "The trainer's output folder (or its models/ folder).")
    var models: String

    @Option(help: "Horizons in minutes, comma-separated (default: every horizon with a model).")
    var horizons: String?

    @Option(help: "First issue moment, ISO 8601 (default: start of the data).")
    var from: String?

    @Option(help: "Last issue moment, ISO 8601 (default: end of the data).")
    var to: String?

    @Option(help: "Output CSV file (written atomically). Default: stdout.")
    var out: String?

    @Option(help: "Format of every data file (\(ImportFormats.names.joined(separator: ", "))); default: detected.")
    var format: String?

    @Option(name: .customLong("time-zone"), help: "Time zone of times without an offset, in the data and in --from/--to (default: this machine's).")
    var timeZone: String?

    func validate() throws {
        if let format, ImportFormats.named(format) == nil {
            throw ValidationError("--format: unknown format '\(format)'; expected one of \(ImportFormats.names.joined(separator: ", "))")
        }
        _ = try timeZoneOption(timeZone)
        _ = try parsedHorizons()
        let (start, end) = try period()
        if let start, let end, end < start { throw ValidationError("--to is before --from") }
    }

    func parsedHorizons() throws -> [Int]? {
        try horizons.map { try PredictSupport.horizons($0) }
    }

    var zone: TimeZone { timeZone.flatMap(TimeZone.init(identifier:)) ?? .current }

    func period() throws -> (Date?, Date?) {
        do {
            return (try from.map { try TimeArgument.parse($0, timeZone: zone, option: "--from") },
                    try to.map { try TimeArgument.parse($0, timeZone: zone, option: "--to") })
        } catch { throw ValidationError("\(error)") }
    }

    func run() throws {
        let (start, end) = try period()
        let files = try CohortLoader.files(data)
        let loaded = CohortLoader.load(files, options: ImportOptions(timeZone: zone), format: format)
        for failure in loaded.failures { PredictSupport.warn("skipped file: \(failure)") }
        let run = PredictionRun(modelsFolder: URL(fileURLWithPath: models), horizons: try parsedHorizons(), from: start, to: end)
        let sink = try PredictLineSink(path: out)
        sink.write(PredictionRow.csvHeader)
        var predicted = 0, rows = 0, skipped = loaded.failures.count
        for data in loaded.patients {
            switch run.predict(data.patient, log: data.log) {
            case let .predicted(_, patientRows):
                predicted += 1
                rows += patientRows.count
                for row in patientRows { sink.write(row.csvLine) }
            case let .skipped(_, reason):
                skipped += 1
                PredictSupport.warn("skipped patient \(reason)")
            }
        }
        guard predicted > 0 else {
            sink.discard()
            PredictSupport.status("no patient could be predicted (\(loaded.patients.count) patients in the data)")
            throw ExitCode(RunStatus.failure.rawValue)
        }
        try sink.commit()
        PredictSupport.status("\(rows) predictions for \(predicted) of \(loaded.patients.count) patients" + (out.map { " written to \($0)" } ?? ""))
        if skipped > 0 { throw ExitCode(RunStatus.partial.rawValue) }
    }
}

/// Shared by `predict`, `metrics` and `nightly` (named apart from the other subcommands' helpers).
enum PredictSupport {
    /// Messages for people on standard error, so standard output stays for results.
    static func status(_ text: String) { FileHandle.standardError.write(Data((text + "\n").utf8)) }
    static func warn(_ text: String) { FileHandle.standardError.write(Data(("warning: " + text + "\n").utf8)) }

    /// `30,60,90` -> [30, 60, 90]; positive whole minutes.
    static func horizons(_ text: String) throws -> [Int] {
        let values = text.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !values.isEmpty, values.allSatisfy({ ($0 ?? 0) > 0 }) else {
            throw ValidationError("--horizons: expected positive minutes like 30,60,90,120, got '\(text)'")
        }
        return values.map { $0! }
    }
}

/// Lines to a file written atomically (`AtomicTextFile`), or to stdout in large chunks.
final class PredictLineSink {
    private let file: AtomicTextFile?
    private var buffer: [UInt8] = []

    init(path: String?) throws {
        file = try path.map { try AtomicTextFile(url: URL(fileURLWithPath: $0)) }
    }

    func write(_ line: String) {
        if let file { file.writeLine(line); return }
        buffer.append(contentsOf: line.utf8)
        buffer.append(10)
        if buffer.count >= 1 << 20 { flush() }
    }

    private func flush() {
        FileHandle.standardOutput.write(Data(buffer))
        buffer.removeAll(keepingCapacity: true)
    }

    func commit() throws {
        if let file { try file.commit() } else { flush() }
    }

    func discard() {
        if let file { file.discard() } else { buffer.removeAll() }
    }
}

/// `--time-zone NAME`: the IANA zone, or this machine's when the option is not given; an unknown
/// name is a usage error.
func timeZoneOption(_ name: String?) throws -> TimeZone {
    do { return try TimeArgument.timeZone(named: name) } catch { throw ValidationError("--time-zone: \(error)") }
}
