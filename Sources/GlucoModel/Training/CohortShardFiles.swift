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
    /// The scanned patients of each of this shard's files, by path (one, except a mapped CSV naming several).
    public var scanned: [String: Set<PatientID>]

    /// Picks `shard`'s files among `urls`.
    /// - Parameters:
    ///   - options: the import options (a fixed `patient` puts every file in one group).
    ///   - format: a format forcing one importer, as in `CohortLoader.load`.
    public init(_ urls: [URL], shard: Shard, options: ImportOptions, format: String? = nil) {
        var ids: [URL: [PatientID]] = [:]
        // Patients joined by a file that holds them all (GluPredKit's one-file layout) are one group,
        // with their other files: a shard imports every file of its patients.
        var joined = PatientGroups()
        for url in urls {
            guard let found = try? PatientIDScan.patients(of: url, format: format, options: options), !found.isEmpty else { continue }
            ids[url] = found
            joined.join(found)
        }
        var group: [URL: Group] = [:]
        for url in urls {
            group[url] = ids[url].map { .patient(joined.representative($0[0])) } ?? .unknown(path: url.path)
        }
        let mine = Set(shard.select(Array(group.values)))
        files = urls.filter { mine.contains(group[$0]!) }.sorted { $0.path < $1.path }
        let paths = Set(files.map(\.path))
        scanned = Dictionary(uniqueKeysWithValues: ids.filter { paths.contains($0.key.path) }.map { ($0.key.path, Set($0.value)) })
        patients = Set(scanned.values.joined()).sorted()
        cohortPatients = Set(ids.values.joined()).count
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
                                     + "'\(data.patient)' is not trained in this shard (fix the file, or train without shards)"))
                    doubtful.insert(data.patient)
                    continue
                }
                if !expected.contains(data.patient) {
                    let named = expected.sorted().map { "'\($0)'" }.joined(separator: ", ")
                    failures.append((file, "the file's first lines name patient \(named) but its import gives '\(data.patient)'; "
                                     + "'\(data.patient)' is not trained in this shard (fix the file, or train without shards)"))
                    doubtful.insert(data.patient)
                }
            }
        }
        let mine = Set(patients)
        return (loaded.filter { mine.contains($0.patient) && !doubtful.contains($0.patient) }, failures)
    }
}

/// Patients joined into groups (union-find), each group represented by its smallest id, so the
/// grouping does not depend on the order files are scanned in.
struct PatientGroups {
    private var parent: [PatientID: PatientID] = [:]

    mutating func join(_ ids: [PatientID]) {
        guard let first = ids.first else { return }
        var root = representative(first)
        for id in ids.dropFirst() {
            let other = representative(id)
            if other == root { continue }
            let (low, high) = other < root ? (other, root) : (root, other)
            parent[high] = low
            root = low
        }
    }

    mutating func representative(_ id: PatientID) -> PatientID {
        var top = id
        while let up = parent[top], up != top { top = up }
        var walk = id
        while let up = parent[walk], up != top { parent[walk] = top; walk = up }
        return top
    }
}
