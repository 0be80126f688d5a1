import ArgumentParser
import Foundation
import GlucoModel
import GlucoModelCommandLine

/// `glucomodel-predict DATA... | --store FILE --models DIR [--horizons 30,60] [--from T] [--to T] [--out FILE.csv]`
struct Predict: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Predict glucose for every 5-minute step of a period with each patient's trained models and the baselines.",
        discussion: """
            Writes patient,issued_at,target_time,horizon_min,model,prediction_mgdl,reference_mgdl,lower_80,upper_80,\
            lower_95,upper_95 (UTC ISO 8601 times; reference empty when not yet measured; the 80% and 95% prediction \
            interval, empty for baselines and models without one; with --units mmol/L the columns are \
            prediction_mmoll and reference_mmoll, and every glucose is in mmol/L) to --out (atomically) or stdout. Each prediction uses \
            only data up to its issue moment. A patient without a model, whose models read inputs the data lacks, \
            or whose data is too old for the period is skipped with a message on stderr; the command fails only \
            when no patient could be predicted.
            """)

    @OptionGroup var input: DataArguments

    @Option(help: "The trainer's output folder (or its models/ folder).")
    var models: String

    @Option(parsing: .unconditional, help: "Horizons in minutes, comma-separated (default: every horizon with a model).", transform: HorizonList.read)
    var horizons: HorizonList?

    @Option(help: "First issue moment, ISO 8601 (default: start of the data).")
    var from: String?

    @Option(help: "Last issue moment, ISO 8601 (default: end of the data).")
    var to: String?

    @Option(help: "Output CSV file (written atomically). Default: stdout.")
    var out: String?

    @Option(help: "Format of every data file (\(ImportFormats.names.joined(separator: ", "))); default: detected.")
    var format: String?

    @OptionGroup var time: TimeZoneOption

    @OptionGroup var units: GlucoseUnitsOption

    func validate() throws {
        _ = try input.reading.format(format)
        if input.data.isEmpty, input.store == nil { throw ValidationError("give DATA files or folders, or --store FILE") }
        let (start, end) = try period()
        if let start, let end, end < start { throw ValidationError("--to is before --from") }
    }

    func period() throws -> (Date?, Date?) {
        (try from.map { try time.parse($0, option: "--from") }, try to.map { try time.parse($0, option: "--to") })
    }

    func run() throws {
        let (start, end) = try period()
        let loaded = try loadPatients(try input.source(timeZone: time.zone(), format: format))
        if let out {
            var read = loaded.read
            read.add(modelsIn: URL(fileURLWithPath: models))
            try read.check(outputFile: URL(fileURLWithPath: out), option: "--out")
        }
        let run = PredictionRun(modelsFolder: URL(fileURLWithPath: models), horizons: horizons?.minutes, from: start, to: end)
        let sink = try LineOutput(path: out)
        let unit = units.unit
        sink.write(PredictionRow.csvHeader(units: unit, intervals: true))
        var predicted = 0, rows = 0, skipped = loaded.failures.count
        for data in loaded.patients {
            // Written a week of rows at a time: a patient's years of predictions are never held at once.
            var byBase = 0, atLimit = 0, check = PersistenceCheck(for: data.log)
            let skip = run.predict(data.patient, log: data.log) { chunk in
                rows += chunk.count
                for row in chunk { sink.write(row.csvLine(units: unit, intervals: true)); check.add(row) }
                byBase += chunk.count(where: \.isByBaseAlone)
                atLimit += chunk.count(where: \.isAtLimit)
            }
            if let reason = skip {
                skipped += 1
                Console.warn("skipped patient \(reason)")
                continue
            }
            predicted += 1
            if byBase > 0 { Console.status(PredictionRow.baseAloneNote(data.patient, count: byBase)) }
            if atLimit > 0 { Console.status(PredictionRow.atLimitNote(data.patient, count: atLimit, units: unit)) }
            if let note = check.note(data.patient) { Console.status(note) }
        }
        guard predicted > 0 else {
            sink.discard()
            Console.status("no patient could be predicted (\(Plural.of(loaded.patients.count, "patient")) in the data)")
            throw ExitCode(RunStatus.failure.rawValue)
        }
        try sink.commit()
        Console.status("\(Plural.of(rows, "prediction")) for \(predicted) of \(Plural.of(loaded.patients.count, "patient"))" + (out.map { " written to \($0)" } ?? ""))
        if skipped > 0 { throw ExitCode(RunStatus.partial.rawValue) }
    }
}
