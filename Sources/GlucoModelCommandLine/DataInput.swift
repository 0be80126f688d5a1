import ArgumentParser
import Foundation
import GlucoModel

/// Where a command reads patients from, as positional DATA arguments or `--store FILE`
/// (train, predict, metrics). `source(...)` is the one `PatientSource` the command reads through.
public struct DataArguments: ParsableArguments {
    @Argument(help: "Data files or folders (any importable format).")
    public var data: [String] = []

    @Option(help: "Read the patients from this store (made by import-data or nightly) instead of DATA.")
    public var store: String?

    public init() {}

    public func validate() throws { try checkDataOrStore(data, store, dataName: "DATA") }

    /// The source named, its local times read on `timeZone`.
    /// - Parameter defaultData: read instead when neither DATA nor `--store` is given.
    public func source(timeZone: TimeZone, format: String? = nil, defaultData: [String] = []) throws -> any PatientSource {
        try patientSource(paths: data.isEmpty && store == nil ? defaultData : data, store: store,
                          options: ImportOptions(timeZone: timeZone), format: format)
    }
}

/// Where a command reads patients from, as `--data FILE_OR_DIR...` or `--store FILE` (dose, report).
public struct DataOptions: ParsableArguments {
    @Option(parsing: .upToNextOption, help: "Data files or folders (any importable format).")
    public var data: [String] = []

    @Option(help: "Read the patients from this store (made by import-data or nightly) instead of --data.")
    public var store: String?

    public init() {}

    public func validate() throws {
        try checkDataOrStore(data, store, dataName: "--data")
        if data.isEmpty, store == nil { throw ValidationError("--data: give at least one file or folder, or --store FILE") }
    }

    /// What the data is, for messages ("a.csv, b.xml" or "store s.sqlite").
    public var name: String { store.map { "store \($0)" } ?? data.joined(separator: ", ") }

    public func source(timeZone: TimeZone) throws -> any PatientSource {
        try patientSource(paths: data, store: store, options: ImportOptions(timeZone: timeZone))
    }
}

private func checkDataOrStore(_ data: [String], _ store: String?, dataName: String) throws {
    if !data.isEmpty, store != nil { throw ValidationError("give \(dataName) or --store, not both") }
}

/// Reads `source`, reporting each file that failed on the console.
public func loadPatients(_ source: any PatientSource, failurePrefix: String = "skipped file: ") throws -> LoadedPatients {
    let loaded = try source.load()
    for failure in loaded.failures { Console.warn(failurePrefix + failure.description) }
    return loaded
}

/// Checks an option naming an import format (`ImportFormats.names`).
/// - Throws: `ValidationError` naming `option` and the known formats.
public func checkImportFormat(_ name: String?, option: String) throws {
    if let name, ImportFormats.named(name) == nil {
        throw ValidationError("\(option): unknown format '\(name)'; expected one of \(ImportFormats.names.joined(separator: ", "))")
    }
}
