import ArgumentParser
import Foundation
import GlucoModel

/// How export files are read, shared by every command that reads them: `--columns` (another
/// tool's CSV through a column mapping: the format `csv`), `--glucose-units` and `--carb-units` (its glucose
/// and carbs columns' units) and `--date-order` (numeric dates whose day/month order the data does not show).
public struct ImportReadOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Read the data files as a CSV with these columns (format csv): field=column pairs such as time=date,patient=id,glucose=CGM,bolus=insulin,carbs=carbs.",
        discussion: "Fields: time (required), clock (the time of day, when time holds the date alone), patient, glucose (CGM), finger (finger stick), bolus (U), carbs (g, or --carb-units), basal (a pump's U/h), basal_injection (a pen's long-acting U), bolus_extended (U spread over bolus_minutes: a square or dual-wave bolus) or bolus_type (Normal, Square, Dual (normal part) / Dual (square part), with bolus_minutes), temp_basal (U/h, 0 = suspended, for temp_basal_minutes; 0 minutes with the rate empty, given, or typed ends the one running), temp_basal_type (Percent of the basal rate in force as it runs, which needs basal mapped and a basal row at or before its start, or Insulin Units). Durations in minutes or h:mm:ss.",
        valueName: "field=column,..."))
    public var columns: String?

    @Option(name: .customLong("glucose-units"), help: "Unit of the mapped glucose columns: mg/dL or mmol/L (default: mg/dL).")
    public var glucoseUnits: String?

    @Option(name: .customLong("carb-units"), help: "Unit of the mapped carbs column: g, rations (10 g) or exchanges (15 g) (default: g).")
    public var carbUnits: String?

    @Option(name: .customLong("date-order"), help: "Day/month order of dates a file's own dates do not decide (every day 1-12, or rows proving both orders): dmy or mdy (default: from the data).")
    public var dateOrder: DateOrder?

    public init() {}

    public func validate() throws { _ = try mapping() }

    /// The unit `--glucose-units` names (nil when not given).
    public func glucoseUnit() throws -> GlucoseUnit? { try Self.glucoseUnit(glucoseUnits) }

    /// The unit `--carb-units` names (nil when not given).
    public func carbUnit() throws -> CSVColumnMapping.CarbUnit? { try Self.carbUnit(carbUnits) }

    /// The column mapping `--columns` names, in `--glucose-units` and `--carb-units`; nil without `--columns`.
    public func mapping() throws -> CSVColumnMapping? { try Self.mapping(columns, glucoseUnits: glucoseUnits, carbUnits: carbUnits) }

    /// The unit `glucoseUnits` (a `--glucose-units` value) names (nil when not given).
    public static func glucoseUnit(_ glucoseUnits: String?) throws -> GlucoseUnit? {
        guard let glucoseUnits else { return nil }
        guard let unit = GlucoseUnit(name: glucoseUnits) else {
            throw ValidationError("--glucose-units: expected mg/dL or mmol/L, got '\(glucoseUnits)'")
        }
        return unit
    }

    /// The unit `carbUnits` (a `--carb-units` value) names (nil when not given).
    public static func carbUnit(_ carbUnits: String?) throws -> CSVColumnMapping.CarbUnit? {
        guard let carbUnits else { return nil }
        guard let unit = CSVColumnMapping.CarbUnit(name: carbUnits) else {
            throw ValidationError("--carb-units: expected \(CSVColumnMapping.CarbUnit.expected), got '\(carbUnits)'")
        }
        return unit
    }

    /// The column mapping the values of `--columns`, `--glucose-units` and `--carb-units` name; nil
    /// without `columns`, an error for units without it (as every command's options are read: nightly's too).
    public static func mapping(_ columns: String?, glucoseUnits: String?, carbUnits: String?) throws -> CSVColumnMapping? {
        do { _ = try ImportOptions.format(nil, columns: columns != nil, glucoseUnits: glucoseUnits != nil, carbUnits: carbUnits != nil) } catch {
            throw ValidationError("\(error)")
        }
        guard let columns else { return nil }
        let glucose = try glucoseUnit(glucoseUnits) ?? .mgdL, carbs = try carbUnit(carbUnits) ?? .grams
        let parsed = Result { () throws(CSVColumnMapping.Problem) in try CSVColumnMapping(parsing: columns, glucoseUnit: glucose, carbUnit: carbs) }
        switch parsed {
        case let .success(mapping): return mapping
        case let .failure(problem): throw ValidationError("--columns: \(problem)")
        }
    }

    /// Import options with these settings, local times on `timeZone`.
    /// - Throws: `ValidationError` for a bad mapping, or `--glucose-units` or `--carb-units` without `--columns`.
    public func importOptions(timeZone: TimeZone) throws -> ImportOptions {
        // The order of a file whose own dates do not decide it, never forced on one whose dates do.
        var options = ImportOptions(timeZone: timeZone)
        options.undecidedDateOrder = dateOrder
        options.columns = try mapping()
        return options
    }

    /// The format every file is read in: `given` (a `--format` option, checked), or `csv` when
    /// columns are mapped.
    /// - Throws: `ValidationError` for an unknown format, `--columns` with another format, or
    ///   `--format csv` without `--columns`.
    public func format(_ given: String?, option: String = "--format") throws -> String? {
        try checkImportFormat(given, option: option)
        do { return try ImportOptions.format(given, columns: columns != nil, glucoseUnits: false, option: option) } catch {
            throw ValidationError("\(error)")
        }
    }
}

/// Where a command reads patients from, as positional DATA arguments (or `--data`, as the
/// commands taking `DataOptions` spell it) or `--store FILE` (train, predict, metrics). `source(...)` is the one `PatientSource` the command reads through.
public struct DataArguments: ParsableArguments {
    @Argument(help: ArgumentHelp("Data files or folders (any importable format).", valueName: "data"))
    public var paths: [String] = []

    @Option(name: .customLong("data"), parsing: .upToNextOption,
            help: "The same files or folders, given as an option (as dose, settings and report take them).")
    public var dataOption: [String] = []

    @Option(help: "Read the patients from this store (made by import-data or nightly) instead of DATA.")
    public var store: String?

    @OptionGroup public var reading: ImportReadOptions

    public init() {}

    /// The files and folders named, as DATA and after `--data`.
    public var data: [String] { paths + dataOption }

    public func validate() throws { try checkDataOrStore(data, store, dataName: "DATA") }

    /// The source named, its local times read on `timeZone`.
    /// - Parameters:
    ///   - format: the command's format option (`--format`), checked against `--columns`.
    ///   - defaultData: read instead when neither DATA nor `--store` is given.
    public func source(timeZone: TimeZone, format: String? = nil, defaultData: [String] = []) throws -> any PatientSource {
        try patientSource(paths: data.isEmpty && store == nil ? defaultData : data, store: store,
                          options: reading.importOptions(timeZone: timeZone), format: reading.format(format))
    }
}

/// Where a command reads patients from, as `--data FILE_OR_DIR...` or `--store FILE` (dose, report).
public struct DataOptions: ParsableArguments {
    @Option(parsing: .upToNextOption, help: "Data files or folders (any importable format).")
    public var data: [String] = []

    @Option(help: "Read the patients from this store (made by import-data or nightly) instead of --data.")
    public var store: String?

    @OptionGroup public var reading: ImportReadOptions

    public init() {}

    public func validate() throws {
        try checkDataOrStore(data, store, dataName: "--data")
        if data.isEmpty, store == nil { throw ValidationError("--data: give at least one file or folder, or --store FILE") }
    }

    /// What the data is, for messages ("a.csv, b.xml" or "store s.sqlite").
    public var name: String { store.map { "store \($0)" } ?? data.joined(separator: ", ") }

    /// - Parameter window: the part of each patient's history a store is read for (nil: all).
    public func source(timeZone: TimeZone, window: HistoryWindow? = nil) throws -> any PatientSource {
        try patientSource(paths: data, store: store, options: reading.importOptions(timeZone: timeZone), format: reading.format(nil),
                          window: window)
    }
}

private func checkDataOrStore(_ data: [String], _ store: String?, dataName: String) throws {
    if !data.isEmpty, store != nil { throw ValidationError("give \(dataName) or --store, not both") }
    try checkDataFiles(data)
}

/// A named pipe, a device or a socket among `paths` is a wrong command line (64), as import-data
/// and score say; the other commands said so with 1 (hunt AK, stop 58), and train for a config
/// file's `data` (review of stop 58).
public func checkDataFiles(_ paths: [String]) throws {
    for path in paths {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue, !CohortLoader.isRegularFile(path) {
            throw ValidationError("\(path): \(CohortLoader.notRegularFile)")
        }
    }
}

/// Reads `source` (every patient, or only `patient`), reporting on the console each file that
/// failed and each file read with warnings (`reportImportWarnings`).
public func loadPatients(_ source: any PatientSource, patient: PatientID? = nil,
                         failure: (InputError) -> Void = { Console.warn("skipped file: \($0)") }) throws -> LoadedPatients {
    let loaded = try source.load(patient: patient)
    reportImportWarnings(loaded.summaries)
    loaded.failures.forEach(failure)
    return loaded
}

/// Per file read with warnings (rows skipped or adjusted), its summary line and first `limit`
/// warnings with file, line and field, as `import-data` prints them: otherwise a command reading
/// the files directly would only say, later, that a patient has no readings. Files without
/// warnings (the bundled data) print nothing; a store's files were reported when imported.
public func reportImportWarnings(_ summaries: [ImportSummary], limit: Int = 5) {
    for summary in summaries where !summary.issues.isEmpty || summary.rowsSkippedForProblems > 0 {
        Console.warn(summary.report(warnings: limit))
    }
}

/// Names the files in the folders of `paths` that no importer recognises and that are therefore not
/// read (`CohortLoader.unrecognised`): the first `limit`, then how many more. Without it, an export
/// of a format or language GlucoModel does not read, or an empty file, left its patient out of a
/// cohort without a word.
public func reportUnrecognisedFiles(_ paths: [String], options: ImportOptions, excluding: URL? = nil, limit: Int = 5) {
    let files = CohortLoader.unrecognised(paths, options: options, excluding: excluding)
    guard !files.isEmpty else { return }
    let names = files.prefix(limit).map(\.path).joined(separator: ", ") + (files.count > limit ? " and \(files.count - limit) more" : "")
    Console.warn("not read: \(Plural.of(files.count, "file")) in the data folders \(files.count == 1 ? "is" : "are") in none of the known formats "
                 + "(name a file as DATA to see why): \(names)")
}

/// Checks an option naming an import format (`ImportFormats.names`).
/// - Throws: `ValidationError` naming `option` and the known formats.
public func checkImportFormat(_ name: String?, option: String) throws {
    if let name, ImportFormats.named(name) == nil {
        throw ValidationError("\(option): unknown format '\(name)'; expected one of \(ImportFormats.names.joined(separator: ", "))")
    }
}
