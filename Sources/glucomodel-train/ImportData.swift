import ArgumentParser
import Foundation
import GlucoModel

/// `glucomodel-train import-data FILES... --store FILE [--patient ID] [--time-zone TZ]`
struct ImportData: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import-data",
        abstract: "Import exported patient logs (OhioT1DM XML, GlucoModel CSV) into a store.")

    @Argument(help: "Files to import.")
    var files: [String]

    @Option(help: "The store (SQLite file), created if missing.")
    var store: String

    @Option(help: "Patient id for files that do not name one (or to override them).")
    var patient: String?

    @Option(name: .customLong("time-zone"), help: "Time zone of local times without an offset (e.g. Europe/Madrid).")
    var timeZone: String?

    @Flag(help: "Print every warning, not only the first 20 per file.")
    var verbose = false

    func validate() throws {
        if let patient { _ = try parsePatient(patient) }
        if let timeZone, TimeZone(identifier: timeZone) == nil {
            throw ValidationError("unknown time zone '\(timeZone)'; use an IANA name like Europe/Madrid or UTC")
        }
    }

    func parsePatient(_ raw: String) throws -> PatientID {
        do { return try PatientID(raw) } catch { throw ValidationError("--patient: \(error)") }
    }

    func run() throws {
        var options = ImportOptions()
        if let patient { options.patient = try parsePatient(patient) }
        if let timeZone, let tz = TimeZone(identifier: timeZone) { options.timeZone = tz }
        let db = try PatientStore(path: store)
        var failed = 0
        for path in files {
            let url = URL(fileURLWithPath: path)
            do {
                let importer = try ImporterDetection.importer(for: url)
                switch try db.importFile(url, importer: importer, options: options) {
                case let .imported(run):
                    print("\(run.summary)")
                    print("  patient \(run.patient): \(run.recordsAdded) records added, \(run.recordsAlreadyStored) already stored")
                    let warnings = run.summary.issues
                    for issue in verbose ? warnings : Array(warnings.prefix(20)) { print("  \(issue)") }
                    if !verbose && warnings.count > 20 { print("  ... and \(warnings.count - 20) more warnings (--verbose)") }
                case let .alreadyImported(run):
                    print("\(path): already imported (same content as run \(run.id), \(run.filePath)); nothing added")
                }
            } catch {
                failed += 1
                print("\(error)")
            }
        }
        if failed > 0 { throw ExitCode(1) }
    }
}
