import Foundation
import Testing
@testable import GlucoModel

/// Audit 42: `collect` printed its table in mg/dL for a run trained with `--units mmol/L`, while
/// the trainer printed the same run's table in mmol/L (and wrote its summary in mmol/L). Now
/// collect prints in the unit the run's `config.json` records, as the trainer does, and draws the
/// same summary.html.
@Suite(.serialized) struct CollectUnitsTests {
    static let bundled = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("datasets")

    /// A quick real run of one patient at 30 min in `units`, then `collect` on its folder: the
    /// two tables are the same lines, and the GE model's RMSE is results.csv's (always mg/dL)
    /// divided by 18.01559, to three decimals.
    @Test(arguments: ["mmol/L", "mg/dL"])
    func collectPrintsTheTableInTheRunsUnit(units: String) throws {
        let dir = try PredictFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("run")
        let trainOut = dir.appendingPathComponent("train.txt"), collectOut = dir.appendingPathComponent("collect.txt")
        let data = ["adolescent_003-ws-training.xml", "adolescent_003-ws-testing.xml"].map { Self.bundled.appendingPathComponent($0).path }
        let train = try ExitCodeTests.run("glucomodel-train", data + ["--horizons", "30", "--population", "20", "--generations", "2",
                                                                      "--ensemble", "1", "--threads", "1", "--units", units,
                                                                      "--out", out.path], stdout: trainOut)
        #expect(train.status == 0, "\(train.stderr)")
        // collect draws summary.html again, from the models (until stop 60 it never did: a job array's
        // summary was its last task's, and none at all after a results.csv that could not be written).
        let summary = out.appendingPathComponent("summary.html")
        let drawn = try Data(contentsOf: summary)
        try FileManager.default.removeItem(at: summary)
        let collect = try ExitCodeTests.run("glucomodel-train", ["collect", "--out", out.path], stdout: collectOut)
        #expect(collect.status == 0, "\(collect.stderr)")
        #expect(try Data(contentsOf: summary) == drawn)
        let trained = try String(contentsOf: trainOut, encoding: .utf8).split(separator: "\n")
        let collected = try String(contentsOf: collectOut, encoding: .utf8).split(separator: "\n")
        #expect(collected.first == "Median test RMSE across patients (\(units)), GE improvement, Clarke A+B of GE")
        #expect(Array(collected.prefix(3)) == Array(trained.prefix(3)))
        // results.csv keeps mg/dL whatever the run's unit: ge's test RMSE, converted here.
        let results = try String(contentsOf: out.appendingPathComponent("results.csv"), encoding: .utf8).split(separator: "\n")
        let header = results[0].split(separator: ",").map(String.init)
        let ge = try #require(results.first { $0.hasPrefix("adolescent_003,30,ge,test,") }).split(separator: ",").map(String.init)
        let column = try #require(header.firstIndex(of: "rmse"))
        let rmse = try #require(Double(ge[column]))
        let expected = units == "mmol/L" ? String(format: "%.3f", rmse / 18.01559) : String(format: "%.2f", rmse)
        let row = collected[2].split(separator: " ", omittingEmptySubsequences: true)
        #expect(row.count > 2 && row[0] == "30" && row[2] == expected, "\(collected[2]) vs \(expected)")
    }

    /// The unit comes from the run's config.json; a folder without one (written by hand, or by a
    /// build before config.json) is mg/dL, the trainer's default.
    @Test func theRunsUnitIsItsConfigs() throws {
        let dir = try PredictFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(try CohortResults.units(of: dir) == .mgdL)
        try Data(#"{"version": 1, "units": "mmol/L"}"#.utf8).write(to: dir.appendingPathComponent("config.json"))
        #expect(try CohortResults.units(of: dir) == .mmolL)
        try Data(#"{"version": 1, "units": null}"#.utf8).write(to: dir.appendingPathComponent("config.json"))
        #expect(try CohortResults.units(of: dir) == .mgdL)
        try Data(#"{"version": 1, "units": "furlongs"}"#.utf8).write(to: dir.appendingPathComponent("config.json"))
        #expect(throws: InputError.self) { try CohortResults.units(of: dir) }
    }
}
