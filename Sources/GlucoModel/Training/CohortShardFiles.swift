import Foundation

/// The files of one shard of a cohort, chosen before any of them is imported.
///
/// Every file's patient is found with `PatientIDScan` (its first lines); files are grouped by that
/// id, so a patient whose data spans several files (an OhioT1DM training/testing pair, exports of
/// two devices) is always in one shard, and the groups are dealt to shards by `Shard.select` over
/// the sorted ids. A file whose patient cannot be found (unreadable, unknown format, no id) is a
/// group of its own, keyed by its path and sorted after every patient, so exactly one shard
/// imports it and reports the importer's error, and the patients' split does not depend on it.
public struct CohortShardFiles: Sendable {
    /// How files are grouped before dealing: a patient, or a file whose patient is unknown.
    enum Group: Hashable, Comparable {
        case patient(PatientID)
        case unknown(path: String)
    }

    /// This shard's files, sorted by path.
    public var files: [URL]
    /// This shard's patients, as scanned.
    public var patients: [PatientID]
    /// Every patient of the cohort, as scanned (all shards).
    public var cohortPatients: Int
    /// The scanned patient of each of this shard's files, by path.
    public var scanned: [String: PatientID]

    /// Picks `shard`'s files among `urls`.
    /// - Parameters:
    ///   - options: the import options (a fixed `patient` puts every file in one group).
    ///   - format: a format forcing one importer, as in `CohortLoader.load`.
    public init(_ urls: [URL], shard: Shard, options: ImportOptions, format: String? = nil) {
        var group: [URL: Group] = [:]
        var scanned: [String: PatientID] = [:]
        for url in urls {
            if let id = try? PatientIDScan.patient(of: url, format: format, options: options) {
                group[url] = .patient(id)
                scanned[url.path] = id
            } else {
                group[url] = .unknown(path: url.path)
            }
        }
        let mine = Set(shard.select(Array(group.values)))
        files = urls.filter { mine.contains(group[$0]!) }.sorted { $0.path < $1.path }
        patients = mine.compactMap { if case let .patient(id) = $0 { return id } else { return nil } }.sorted()
        cohortPatients = Set(scanned.values).count
        let paths = Set(files.map(\.path))
        self.scanned = scanned.filter { paths.contains($0.key) }
    }

    /// The imported patients that belong to this shard, and a failure for every file whose imported
    /// patient differs from the scanned one; such a file's patient is not trained here (its files may
    /// be split across shards), so the run is partial and says why.
    public func check(_ loaded: [PatientData]) -> (patients: [PatientData], failures: [(subject: String, message: String)]) {
        var failures: [(String, String)] = []
        var doubtful = Set<PatientID>()
        for data in loaded {
            for file in data.files {
                guard let expected = scanned[file] else {
                    failures.append((file, "no patient id found in the file's first lines, but its import gives '\(data.patient)'; "
                                     + "'\(data.patient)' is not trained in this shard (pass the patient option, or fix the file)"))
                    doubtful.insert(data.patient)
                    continue
                }
                if expected != data.patient {
                    failures.append((file, "the file's first lines name patient '\(expected)' but its import gives '\(data.patient)'; "
                                     + "'\(data.patient)' is not trained in this shard (pass the patient option, or fix the file)"))
                    doubtful.insert(data.patient)
                }
            }
        }
        let mine = Set(patients)
        return (loaded.filter { mine.contains($0.patient) && !doubtful.contains($0.patient) }, failures)
    }
}
