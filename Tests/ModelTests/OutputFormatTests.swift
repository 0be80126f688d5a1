import Foundation
import Testing
@testable import GlucoModel

/// The files a training run writes for other tools keep the documented columns and fields
/// (docs/formats.md).
@Suite struct OutputFormatTests {
    @Test func trainingFilesFollowTheirSchemas() throws {
        let out = temporaryFolder("formats")
        defer { try? FileManager.default.removeItem(at: out) }
        let data = SyntheticCohort.data(SyntheticCohort.patient("s-format", days: 6, seed: 5))
        let trainer = try CohortTrainer(options: try SyntheticCohort.options(generations: 2, horizons: [60]),
                                        settings: CohortRunSettings(output: out, threads: 1))
        let outcome = trainer.run([data])
        #expect(outcome.failures.isEmpty)

        // Predictions: issued_at and target_time as in `predict`, the target one horizon (60 min) later.
        let csv = try String(contentsOf: out.appendingPathComponent("predictions/s-format-h060.csv"), encoding: .utf8)
        let lines = csv.split(separator: "\n")
        #expect(lines.first == "issued_at,target_time,split,reference_mgdl,ge,arx,average,persistence")
        let fields = try #require(lines.dropFirst().first).split(separator: ",").map(String.init)
        #expect(fields.count == 8)
        let issued = try #require(ISO8601DateFormatter().date(from: fields[0]))
        let target = try #require(ISO8601DateFormatter().date(from: fields[1]))
        #expect(target.timeIntervalSince(issued) == 3600)
        #expect(["train", "validation", "test"].contains(fields[2]))

        // Statistics: JSON lines, one per generation (0, 1, 2), each with version 1.
        let stats = try String(contentsOf: out.appendingPathComponent("statistics/s-format-h060.jsonl"), encoding: .utf8)
            .split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(stats.count == 3)
        #expect(stats.allSatisfy { $0?["version"] as? Int == 1 })
        #expect(stats.map { $0?["generation"] as? Int } == [0, 1, 2])
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("statistics/s-format-h060.csv").path))

        // Timings: a flat object with its version.
        let timings = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("timings/s-format-h060.json"))) as? [String: Any]
        #expect(timings?["version"] as? Int == 1)
        // Generations 0-2 of each of the default ensemble's searches.
        #expect(timings?["generations"] as? Int == 3 * TrainingOptions.defaultEnsemble)
    }

    @Test func commandOutputsCarryTheirVersion() throws {
        // metrics --format json: an array of objects, each with version 1 and its patient.
        let log = SyntheticCohort.patient("s-metrics", days: 2, seed: 3)
        let report = try #require(CGMMetricsReport.recent(log, days: 14))
        let json = CGMMetricsReport.render([report], format: .json)
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        #expect(objects.count == 1 && objects[0]["version"] as? Int == 1 && objects[0]["patient"] as? String == "s-metrics")

        // nightly: summary.json, version 1, with the night's totals.
        let bench = try NightlyBench()
        #expect(try bench.scorer().run().exitCode == 0)
        let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: bench.out
            .appendingPathComponent(NightlyBench.night).appendingPathComponent("summary.json"))) as? [String: Any]
        #expect(summary?["version"] as? Int == 1)
        #expect(summary?["night"] as? String == NightlyBench.night && summary?["patients"] as? Int == 3)
    }
}
