import Foundation

/// One patient's data for training: the merged log of all their files and, for an
/// OhioT1DM pair, where the testing file begins.
public struct PatientData: Sendable {
    public var patient: PatientID
    public var log: PatientLog
    /// Start of the held-out test period given by the data itself (an OhioT1DM
    /// `<id>-ws-testing.xml` file); otherwise the last days are held out.
    public var testStart: Date?
    public var files: [String]
}

/// The train / validation / test periods of one patient, as grid-step boundaries.
public struct DataSplits: Sendable, Equatable {
    public var start: Date
    public var validationStart: Date
    public var testStart: Date
    public var end: Date

    public var trainingDays: Double { validationStart.timeIntervalSince(start) / 86_400 }

    /// Chronological splits (never shuffled): test = the data's own test period or the last
    /// `testFraction` of the days (whole days, at least one); validation = the last
    /// `validationFraction` of what precedes the test period; training = the rest.
    public static func make(for data: PatientData, series: PatientSeries, options: TrainingOptions) throws -> DataSplits {
        let start = series.start
        let end = series.time(at: max(0, series.count - 1)).addingTimeInterval(series.step)
        let days = end.timeIntervalSince(start) / 86_400
        let testStart: Date
        if let given = data.testStart, given > start {
            testStart = given
        } else {
            let testDays = max(1, (days * options.testFraction).rounded())
            testStart = end.addingTimeInterval(-testDays * 86_400)
        }
        let before = testStart.timeIntervalSince(start)
        let validationStart = testStart.addingTimeInterval(-(before * options.validationFraction).rounded())
        let splits = DataSplits(start: start, validationStart: validationStart, testStart: testStart, end: end)
        guard splits.trainingDays >= options.minimumTrainingDays else {
            throw TrainingError.tooFewDays(data.patient, have: max(0, splits.trainingDays), need: options.minimumTrainingDays)
        }
        return splits
    }
}

extension PatientLog {
    /// This log with `other`'s records added, each list sorted by time and exact duplicates
    /// (the same record from two files) kept once.
    public func merging(_ other: PatientLog) -> PatientLog {
        func merge<R: Hashable>(_ a: [R], _ b: [R], _ time: (R) -> Date) -> [R] {
            var seen = Set<R>()
            return (a + b).filter { seen.insert($0).inserted }.sorted { time($0) < time($1) }
        }
        var m = self
        m.glucose = merge(glucose, other.glucose, \.time)
        m.boluses = merge(boluses, other.boluses, \.time)
        m.basalRates = merge(basalRates, other.basalRates, \.start)
        m.temporaryBasals = merge(temporaryBasals, other.temporaryBasals, \.start)
        m.basalInjections = merge(basalInjections, other.basalInjections, \.time)
        m.carbs = merge(carbs, other.carbs, \.time)
        m.exercise = merge(exercise, other.exercise, \.time)
        m.weights = merge(weights, other.weights, \.time)
        m.heartRate = merge(heartRate, other.heartRate, \.time)
        for (k, v) in other.otherRecords { m.otherRecords[k, default: 0] += v }
        if m.insulinKind == .unknown { m.insulinKind = other.insulinKind }
        return m
    }
}

/// Reads training data from files and folders.
public enum CohortLoader {
    /// File extensions looked at inside folders.
    public static let dataExtensions: Set<String> = ["xml", "csv", "json"]

    /// Files named directly, and the data files found (recursively) in folders, sorted.
    /// Inside folders, only files some importer recognises are taken when `onlyRecognised`
    /// (a data folder may also hold settings or notes); a file named directly is always taken,
    /// so a bad one is an error. An inbox passes `false`, so that a file nobody can read is reported.
    public static func files(_ paths: [String], onlyRecognised: Bool = true) throws -> [URL] {
        var out: [URL] = []
        for path in paths {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
                throw ImportError(SourceLocation(file: path), "no such file or folder")
            }
            if isDir.boolValue {
                // Resolved first: the enumerator does not descend into a folder named through a symbolic link.
                let folder = URL(fileURLWithPath: path).resolvingSymlinksInPath()
                let e = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
                while let url = e?.nextObject() as? URL {
                    if dataExtensions.contains(url.pathExtension.lowercased()),
                       !onlyRecognised || (try? ImportFormats.detect(url)) != nil {
                        out.append(url)
                    }
                }
            } else {
                out.append(URL(fileURLWithPath: path))
            }
        }
        return out.sorted { $0.path < $1.path }
    }

    /// Imports every file and groups the logs by patient. A file that fails is reported and
    /// left out; the others go on.
    /// - Parameter format: a format name forcing one importer (`ImportFormats.names`); by default
    ///   each file's format is detected from its content.
    public static func load(_ urls: [URL], options: ImportOptions, format: String? = nil)
        -> (patients: [PatientData], summaries: [ImportSummary], failures: [ImportError]) {
        var byPatient: [PatientID: PatientData] = [:]
        var summaries: [ImportSummary] = [], failures: [ImportError] = []
        for url in urls {
            do {
                let result = try ImportFormats.importFile(at: url, format: format, options: options)
                summaries.append(result.summary)
                let id = result.log.patient
                var data = byPatient[id] ?? PatientData(patient: id, log: PatientLog(patient: id), testStart: nil, files: [])
                data.log = data.log.merging(result.log)
                data.files.append(url.path)
                if url.lastPathComponent.contains("-ws-testing"), let first = result.log.firstTime {
                    data.testStart = min(data.testStart ?? first, first)
                }
                byPatient[id] = data
            } catch let error as ImportError {
                failures.append(error)
            } catch {
                failures.append(ImportError(SourceLocation(file: url.path), "\(error)"))
            }
        }
        return (byPatient.values.sorted { $0.patient < $1.patient }, summaries, failures)
    }
}
