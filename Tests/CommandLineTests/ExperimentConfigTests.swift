import Foundation
import GlucoModel
import Testing

/// `glucomodel-train train --config`: an experiment file over a GluPredKit-style CSV read through
/// `--columns`, the resolved `config.json` each run writes, and that file repeating the run.
@Suite(.serialized) struct ExperimentConfigTests {
    /// Eight days of two patients at 5-minute steps in GluPredKit's `date,id,CGM,insulin,carbs`:
    /// a daily wave, three meals with their boluses.
    static func glupredkitCSV() -> String {
        var lines = ["date,id,CGM,insulin,carbs"]
        let start = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00:00Z
        let formatter = ISO8601DateFormatter()
        for (patient, level) in [("gp1", 130.0), ("gp2", 160.0)] {
            for step in 0..<(8 * 288) {
                let minute = step % 288 * 5
                let g = level + 40 * sin(Double(step) / 288 * 2 * .pi) + 25 * sin(Double(step) / 17)
                let meal = [7 * 60, 13 * 60, 20 * 60].contains(minute)
                let time = formatter.string(from: start.addingTimeInterval(Double(step) * 300))
                lines.append("\(time),\(patient),\(String(format: "%.1f", g)),\(meal ? "4.0" : "0.0"),\(meal ? "50" : "0")")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    @Test func aRunWritesItsOptionsAndTheFileRepeatsIt() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("glucomodel-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let data = dir.appendingPathComponent("cohort.csv")
        try Data(Self.glupredkitCSV().utf8).write(to: data)
        let first = dir.appendingPathComponent("first").path
        let experiment = dir.appendingPathComponent("experiment.json")
        try Data("""
            {
              "data": ["\(data.path)"],
              "columns": {"time": "date", "patient": "id", "glucose": "CGM", "bolus": "insulin", "carbs": "carbs"},
              "time-zone": "UTC",
              "horizons": [30],
              "population": 12,
              "generations": 1,
              "threads": 1,
              "out": "\(first)"
            }
            """.utf8).write(to: experiment)
        let cli = StoreOptionTests()
        #expect(try cli.run("glucomodel-train", ["train", "--config", experiment.path]).status == 0)

        let written = try TrainingRunConfig.load(URL(fileURLWithPath: first).appendingPathComponent("config.json"))
        var expected = TrainingRunConfig()
        expected.data = [data.path]
        expected.format = "csv"
        expected.columns = [.time: "date", .patient: "id", .glucose: "CGM", .bolus: "insulin", .carbs: "carbs"]
        expected.glucoseUnits = .mgdL
        expected.carbUnits = .grams
        expected.timeZone = "UTC"
        expected.horizons = [30]
        expected.out = first
        expected.population = 12
        expected.generations = 1
        expected.terms = 3  // the default, written out
        expected.ensemble = 3
        expected.curves = .single
        expected.arxRidge = "0.001"
        expected.seed = 1
        expected.threads = 1
        expected.grammar = "glucose-symbolic"
        expected.grammarHash = try GrammarSource.bundled("glucose-symbolic").hash
        expected.fitness = .rmse
        expected.base = .arx
        expected.retrain = false
        expected.keepSensorLimits = false
        expected.perPatient = false
        expected.units = .mgdL
        #expect(written == expected)

        // The written file, with another output folder, trains the same models byte for byte.
        let second = dir.appendingPathComponent("second").path
        let config = URL(fileURLWithPath: first).appendingPathComponent("config.json").path
        #expect(try cli.run("glucomodel-train", ["train", "--config", config, "--out", second]).status == 0)
        for patient in ["gp1", "gp2"] {
            let model = "models/\(patient)/h030.json"
            let a = try Data(contentsOf: URL(fileURLWithPath: first).appendingPathComponent(model))
            let b = try Data(contentsOf: URL(fileURLWithPath: second).appendingPathComponent(model))
            #expect(!a.isEmpty && a == b)
        }
        var again = try TrainingRunConfig.load(URL(fileURLWithPath: second).appendingPathComponent("config.json"))
        #expect(again.out == second)
        again.out = first
        #expect(again == written)

        // The command line wins over the file; a bad key stops the run before anything is written.
        let third = dir.appendingPathComponent("third").path
        #expect(try cli.run("glucomodel-train", ["train", "--config", experiment.path, "--seed", "7", "--out", third]).status == 0)
        #expect(try TrainingRunConfig.load(URL(fileURLWithPath: third).appendingPathComponent("config.json")).seed == 7)
        let bad = dir.appendingPathComponent("bad.json")
        try Data("{\n  \"horizon\": [30]\n}\n".utf8).write(to: bad)
        let fourth = dir.appendingPathComponent("fourth").path
        #expect(try cli.run("glucomodel-train", ["train", "--config", bad.path, "--out", fourth]).status == 64)
        #expect(!FileManager.default.fileExists(atPath: fourth))

        // A grammar file edited since the file was written: the run says its models will differ
        // (hunt BE, stop 61: it trained other models without a word); a grammar given on the
        // command line is not the file's.
        let grammar = dir.appendingPathComponent("mine.bnf")
        try Data("<e> ::= <e> + <v> | <v>\n<v> ::= G0 | IOB | <GECodonValue-0+2>\n".utf8).write(to: grammar)
        let fifth = dir.appendingPathComponent("fifth").path
        #expect(try cli.run("glucomodel-train", ["train", "--config", experiment.path, "--grammar", grammar.path, "--out", fifth]).status == 0)
        let pinned = URL(fileURLWithPath: fifth).appendingPathComponent("config.json")
        #expect(try TrainingRunConfig.load(pinned).grammarHash == (try GrammarSource.load(grammar.path).hash))
        try Data("<e> ::= <e> + <v> | <v>\n<v> ::= G0 | IOB | <GECodonValue-0+4>\n".utf8).write(to: grammar)
        func trainSayingWhy(_ arguments: [String]) throws -> (status: Int32, stderr: String) {
            let process = Process()
            process.executableURL = StoreOptionTests.binaries.appendingPathComponent("glucomodel-train")
            process.arguments = ["train"] + arguments
            let err = Pipe()
            process.standardOutput = FileHandle.nullDevice
            process.standardError = err
            try process.run()
            let data = err.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: data, as: UTF8.self))
        }
        let edited = try trainSayingWhy(["--config", pinned.path, "--out", dir.appendingPathComponent("sixth").path])
        #expect(edited.status == 0 && edited.stderr.contains("is not the one this file was written with"), "\(edited.stderr)")
        let given = try trainSayingWhy(["--config", pinned.path, "--grammar", grammar.path, "--out", dir.appendingPathComponent("seventh").path])
        #expect(given.status == 0 && !given.stderr.contains("is not the one"), "\(given.stderr)")
    }
}
