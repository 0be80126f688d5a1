import Foundation

/// One generation's figures, written as one JSON line per generation.
public struct GenerationStatistics: Sendable, Codable, Equatable {
    /// The version of a statistics line's fields, written in each line as `"version"` (docs/formats.md).
    public static let formatVersion = 1

    public var generation: Int
    /// Best error in the population (`nil` in JSON when no individual is valid).
    public var bestFitness: Double?
    public var medianFitness: Double?
    /// Error of the generation's best individual on the validation evaluator, when one is given.
    public var bestValidationFitness: Double?
    public var bestSize: Int?
    /// Mean program size over valid individuals.
    public var meanSize: Double?
    /// Individuals created this generation that were invalid (not evaluated).
    public var invalids: Int
    /// Programs this generation whose error came from the cache (including repeats within it).
    public var cacheHits: Int
    /// Programs sent to the evaluator this generation.
    public var evaluations: Int
    /// Distinct phenotypes among the valid individuals of the population.
    public var uniquePhenotypes: Int
    /// Seconds since the run (or the resumed run) started.
    public var elapsedSeconds: Double
    public var mappingSeconds: Double
    public var variationSeconds: Double
    public var evaluationSeconds: Double

    /// Every key written, those without a value as `null` (docs/formats.md: a reader's columns do
    /// not depend on whether a generation had a valid individual).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(generation, forKey: .generation)
        try c.encode(bestFitness, forKey: .bestFitness)
        try c.encode(medianFitness, forKey: .medianFitness)
        try c.encode(bestValidationFitness, forKey: .bestValidationFitness)
        try c.encode(bestSize, forKey: .bestSize)
        try c.encode(meanSize, forKey: .meanSize)
        try c.encode(invalids, forKey: .invalids)
        try c.encode(cacheHits, forKey: .cacheHits)
        try c.encode(evaluations, forKey: .evaluations)
        try c.encode(uniquePhenotypes, forKey: .uniquePhenotypes)
        try c.encode(elapsedSeconds, forKey: .elapsedSeconds)
        try c.encode(mappingSeconds, forKey: .mappingSeconds)
        try c.encode(variationSeconds, forKey: .variationSeconds)
        try c.encode(evaluationSeconds, forKey: .evaluationSeconds)
    }

    /// A one-line summary for progress output.
    public var summary: String {
        func f(_ x: Double?) -> String { x.map { String(format: "%.6g", $0) } ?? "-" }
        return "gen \(generation): best \(f(bestFitness)) median \(f(medianFitness))"
            + (bestValidationFitness.map { " validation \(f($0))" } ?? "")
            + " size \(bestSize.map(String.init) ?? "-") invalid \(invalids) cache hits \(cacheHits)"
            + " unique \(uniquePhenotypes) \(String(format: "%.1f", elapsedSeconds))s"
    }
}

/// Appends statistics to a JSON-lines file (`.jsonl`): one object per generation, keys sorted,
/// `version` (`GenerationStatistics.formatVersion`) beside the statistics' own fields.
struct StatisticsWriter {
    let url: URL

    /// Starts the file with `lines`, replacing whatever it held: nothing for a fresh run, the
    /// checkpoint's generations for a resumed one. A run stopped after its last checkpoint has
    /// written lines past it (the last perhaps torn); the resumed run writes those generations
    /// again, so each would otherwise appear twice. The file is replaced atomically (a temporary
    /// file renamed over it), so a kill while it is written leaves the old lines.
    init(url: URL, lines: [GenerationStatistics]) throws {
        self.url = url
        var data = Data()
        for stats in lines { data.append(try Self.line(stats, url: url)) }
        try Evolution.replace(url, with: data)
    }

    static func line(_ stats: GenerationStatistics, url: URL) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            var data = try encoder.encode(VersionedLine(stats: stats))
            data.append(UInt8(ascii: "\n"))
            return data
        } catch {
            throw EvolutionError.cannotWrite(path: url.path, reason: SystemErrorText.reason(error))
        }
    }

    func append(_ stats: GenerationStatistics) throws {
        let data = try Self.line(stats, url: url)
        do {
            let handle = try FileHandle(forWritingTo: url)
            defer { try? handle.close() }
            try handle.seekToEnd()
            try handle.write(contentsOf: data)
        } catch {
            throw EvolutionError.cannotWrite(path: url.path, reason: SystemErrorText.reason(error))
        }
    }
}

/// A statistics line: the statistics' fields and `version`, in one flat object.
private struct VersionedLine: Encodable {
    let stats: GenerationStatistics
    enum Key: String, CodingKey { case version }
    func encode(to encoder: any Encoder) throws {
        try stats.encode(to: encoder)
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(GenerationStatistics.formatVersion, forKey: .version)
    }
}
