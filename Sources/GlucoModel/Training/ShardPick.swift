import Foundation

/// One shard's part of a patient source, decided before any patient's data is read, and read
/// without reading the rest: export files through `CohortShardFiles` (each file's patient from its
/// first lines), a store through its list of patient ids.
public struct ShardPick: Sendable {
    public let shard: Shard
    /// This shard's patients.
    public let patients: [PatientID]
    /// Patients of the whole source (every shard).
    public let cohortPatients: Int
    /// What was picked, for a status line ("2 of 6 patients, 4 of 12 files").
    public let summary: String
    private let narrowed: any PatientSource
    private let files: CohortShardFiles?

    /// Picks `shard`'s patients in `source`.
    /// - Throws: `InputError` when the source cannot be read (no such folder or store), or holds no
    ///   data file at all.
    public init(_ source: any PatientSource, shard: Shard) throws {
        self.shard = shard
        switch source {
        case let exports as ExportFiles:
            let all = try CohortLoader.files(exports.paths, options: exports.options)
            guard !all.isEmpty else {
                throw InputError(SourceLocation(file: exports.paths.joined(separator: " ")),
                                 "no data file in a known format (\(CohortLoader.dataExtensions.sorted().joined(separator: ", ")))")
            }
            let picked = CohortShardFiles(all, shard: shard, options: exports.options, format: exports.format)
            patients = picked.patients
            cohortPatients = picked.cohortPatients
            summary = "\(picked.patients.count) of \(Plural.of(picked.cohortPatients, "patient")), \(picked.files.count) of \(Plural.of(all.count, "file"))"
            narrowed = ExportFiles(paths: picked.files.map(\.path), options: exports.options, format: exports.format)
            files = picked
        case let store as StoreSource:
            let ids: [PatientID]
            do { ids = try PatientStore(path: store.path).patients() } catch let error as StoreFileError {
                throw InputError(SourceLocation(file: store.path), error.reason)
            } catch {
                throw InputError(SourceLocation(file: store.path), "cannot be read as a GlucoModel store: \(error)")
            }
            patients = shard.select(ids)
            cohortPatients = Set(ids).count
            summary = "\(patients.count) of \(Plural.of(cohortPatients, "patient")) of store \(store.path)"
            narrowed = StoreSource(path: store.path, only: Set(patients))
            files = nil
        default:
            // A source with no cheaper way: read it all, keep the shard's patients.
            let all = try source.load()
            patients = shard.select(all.patients.map(\.patient))
            cohortPatients = all.patients.count
            summary = "\(patients.count) of \(Plural.of(cohortPatients, "patient"))"
            let mine = Set(patients)
            narrowed = LoadedSource(loaded: LoadedPatients(patients: all.patients.filter { mine.contains($0.patient) },
                                                           summaries: all.summaries, failures: all.failures))
            files = nil
        }
    }

    /// Reads the shard's patients. `failures` are files whose imported patient is not the one their
    /// first lines named (see `CohortShardFiles.check`); their patients are left out.
    public func load() throws -> (loaded: LoadedPatients, failures: [(subject: String, message: String)]) {
        var loaded = try narrowed.load()
        guard let files else { return (loaded, []) }
        let checked = files.check(loaded.patients)
        loaded.patients = checked.patients
        return (loaded, checked.failures)
    }
}

/// Patients already read, as a source.
private struct LoadedSource: PatientSource {
    let loaded: LoadedPatients
    func load(patient: PatientID?) throws -> LoadedPatients {
        var picked = loaded
        if let patient { picked.patients = picked.patients.filter { $0.patient == patient } }
        return picked
    }
}
