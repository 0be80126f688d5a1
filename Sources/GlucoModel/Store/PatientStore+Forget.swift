import Foundation
import GRDB

/// What forgetting one import removed (`PatientStore.forgetImports(of:)`).
public struct ForgottenImport: Sendable, Equatable {
    /// The run as it was stored.
    public var run: ImportRun
    /// The records the run had added (its records already stored by an earlier import were that import's).
    public var recordsRemoved: Int
    /// The patient had nothing else (no other import): the patient and its nightly scoring state are gone too.
    public var patientRemoved: Bool
    /// The patient keeps a nightly scoring state: nights already written stay as they are.
    public var scoringStateKept: Bool

    /// What `import-data --forget` prints for it.
    public var line: String {
        var s = "\(run.filePath): forgot import run \(run.id) (patient \(run.patient)): \(Plural.of(recordsRemoved, "record")) removed"
        if patientRemoved { s += "; patient \(run.patient) removed (nothing else stored for it)" }
        if scoringStateKept { s += "; its nightly scoring state is kept (nights already written stay as they are)" }
        return s
    }
}

/// Why `forgetImports(of:)` changed nothing.
public enum ForgetImportError: Error, CustomStringConvertible, Equatable {
    /// No import of this file's content is in the store.
    case notImported(String)
    /// Imports of the same patient made after this one found records already stored, which may be
    /// this import's: forgetting it alone would take them from the later files too.
    case laterImportsShareRecords(String, [String])

    public var description: String {
        switch self {
        case let .notImported(path):
            return "\(path): no import of this file's content in the store (the store knows a file by its SHA-256; was it changed since?)"
        case let .laterImportsShareRecords(path, later):
            return "\(path): later imports of the same patient found records already stored, which may be this file's: "
                + later.joined(separator: ", ") + "; forget them too (give every file at once), then import them again"
        }
    }
}

extension PatientStore {
    /// Undoes the imports of `urls` (known by their content's SHA-256, as the import knows them), in one
    /// transaction: each run's records and its run row are deleted, so the same file can be imported
    /// again with other options (a wrong `--time-zone` or `--patient`). A patient left with no import
    /// is removed, with its nightly scoring state.
    ///
    /// A record of a later, overlapping file that was already stored belongs to the run that stored it
    /// first. So forgetting is refused (nothing changed) while a later import of the same patient,
    /// not forgotten with it, found records already stored: forgetting newest first is always exact.
    /// - Throws: `ForgetImportError` (nothing changed), `InputError` for a file that cannot be read.
    public func forgetImports(of urls: [URL]) throws -> [ForgottenImport] {
        let hashes = try urls.map { url in
            do { return try ContentDigest.hexDigest(ofFile: url) } catch {
                throw InputError(SourceLocation(file: url.path), "cannot read the file (\(error.localizedDescription))")
            }
        }
        return try db.write { db in
            var runs: [ImportRun] = []
            for (url, hash) in zip(urls, hashes) {
                guard let run = try Self.run(hash: hash, db) else { throw ForgetImportError.notImported(url.path) }
                if !runs.contains(where: { $0.id == run.id }) { runs.append(run) }
            }
            let forgotten = Set(runs.map(\.id))
            for run in runs {
                let later = try Row.fetchAll(db, sql: """
                    SELECT id, file_path FROM import_runs WHERE patient_id = ? AND id > ? AND records_already_stored > 0 ORDER BY id
                    """, arguments: [run.patient.rawValue, run.id])
                    .filter { !forgotten.contains($0["id"]) }.map { $0["file_path"] as String }
                if !later.isEmpty { throw ForgetImportError.laterImportsShareRecords(run.filePath, later) }
            }
            var out: [ForgottenImport] = []
            for run in runs.sorted(by: { $0.id > $1.id }) {
                try db.execute(sql: """
                    DELETE FROM records WHERE patient = (SELECT number FROM patients WHERE id = ?) AND import_run_id = ?
                    """, arguments: [run.patient.rawValue, run.id])
                let removed = db.changesCount
                try db.execute(sql: "DELETE FROM import_runs WHERE id = ?", arguments: [run.id])
                out.append(ForgottenImport(run: run, recordsRemoved: removed, patientRemoved: false, scoringStateKept: false))
            }
            for i in out.indices {
                let patient = out[i].run.patient.rawValue
                let others = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM import_runs WHERE patient_id = ?)", arguments: [patient]) ?? false
                if others {
                    out[i].scoringStateKept = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM scoring_state WHERE patient_id = ?)",
                                                                arguments: [patient]) ?? false
                } else {
                    // The patient's newest forgotten run (the last line printed) says it went.
                    try db.execute(sql: "DELETE FROM scoring_state WHERE patient_id = ?", arguments: [patient])
                    try db.execute(sql: "DELETE FROM patients WHERE id = ?", arguments: [patient])
                    out[i].patientRemoved = db.changesCount > 0
                }
            }
            return out.sorted { $0.run.id < $1.run.id }
        }
    }
}
