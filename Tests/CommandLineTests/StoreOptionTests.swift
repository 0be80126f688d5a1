import ArgumentParser
import Foundation
import GlucoModel
import GlucoModelCommandLine
import Testing
@testable import glucomodel_predict
@testable import glucomodel_train

/// `--store FILE` on train, predict, metrics, dose and report: the same results as the files it
/// was imported from. Runs the built executables (beside this test bundle) end to end.
@Suite(.serialized) struct StoreOptionTests {
    /// The build folder holding the executables and this test bundle.
    static var binaries: URL {
        var url = Bundle(for: Marker.self).bundleURL
        while url.pathExtension == "xctest" || url.lastPathComponent == "Contents" { url.deleteLastPathComponent() }
        return url
    }

    static var packageRoot: URL { URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent() }

    /// Runs an executable; returns its exit status and standard output.
    @discardableResult
    func run(_ tool: String, _ arguments: [String]) throws -> (status: Int32, out: String) {
        let process = Process()
        process.executableURL = Self.binaries.appendingPathComponent(tool)
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test func everyCommandGivesTheSameResultFromTheStoreAsFromTheFiles() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("glucomodel-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let data = ["adolescent_003-ws-training.xml", "adolescent_003-ws-testing.xml"]
            .map { Self.packageRoot.appendingPathComponent("datasets/\($0)").path }
        let store = dir.appendingPathComponent("store.sqlite").path
        let utc = ["--time-zone", "UTC"]
        #expect(try run("glucomodel-train", ["import-data"] + data + ["--store", store] + utc).status == 0)

        // train: the same model files, byte for byte (the test period comes from the -ws-testing run).
        let small = ["--horizons", "30", "--population", "12", "--generations", "1", "--threads", "1"] + utc
        let fromFiles = dir.appendingPathComponent("files").path, fromStore = dir.appendingPathComponent("store").path
        #expect(try run("glucomodel-train", ["train"] + data + ["--out", fromFiles] + small).status == 0)
        #expect(try run("glucomodel-train", ["train", "--store", store, "--out", fromStore] + small).status == 0)
        let model = "models/adolescent_003/h030.json"
        let a = try Data(contentsOf: URL(fileURLWithPath: fromFiles).appendingPathComponent(model))
        let b = try Data(contentsOf: URL(fileURLWithPath: fromStore).appendingPathComponent(model))
        #expect(!a.isEmpty && a == b)

        // predict, metrics, dose: the same standard output.
        let period = ["--from", "2026-01-17T08:00:00Z", "--to", "2026-01-17T09:00:00Z"]
        let p1 = try run("glucomodel-predict", ["predict"] + data + ["--models", fromFiles] + period + utc)
        let p2 = try run("glucomodel-predict", ["predict", "--store", store, "--models", fromFiles] + period + utc)
        // 08:00 ... 09:00 is 13 issue moments; each gives the GE model and 3 baselines, plus the header.
        #expect(p1.status == 0 && p1.out.split(separator: "\n").count == 1 + 13 * 4 && p1.out == p2.out)
        let m1 = try run("glucomodel-predict", ["metrics"] + data + ["--format", "csv"] + utc)
        let m2 = try run("glucomodel-predict", ["metrics", "--store", store, "--format", "csv"] + utc)
        #expect(m1.status == 0 && m1.out.contains("adolescent_003") && m1.out == m2.out)
        let settings = Self.packageRoot.appendingPathComponent("datasets/settings/adolescent_003.json").path
        let dose = ["dose", "--patient", "adolescent_003", "--models", fromFiles, "--settings", settings, "--carbs", "40", "--format", "json"]
        let d1 = try run("glucomodel-predict", dose + ["--data"] + data + utc)
        let d2 = try run("glucomodel-predict", dose + ["--store", store] + utc)
        #expect(d1.status == 0 && d1.out.contains("adolescent_003") && d1.out == d2.out)

        // report: the same page.
        let r1 = dir.appendingPathComponent("r1.html").path, r2 = dir.appendingPathComponent("r2.html").path
        let report = ["report", "--patient", "adolescent_003", "--models", fromFiles]
        #expect(try run("glucomodel-predict", report + ["--data"] + data + ["--out", r1] + utc).status == 0)
        #expect(try run("glucomodel-predict", report + ["--store", store, "--out", r2] + utc).status == 0)
        #expect(try String(contentsOfFile: r1, encoding: .utf8) == String(contentsOfFile: r2, encoding: .utf8))
    }

    /// train, predict and report read a folder; import-data said "none of the known formats" of
    /// one. It now imports the data files in it (here datasets/: the 12 XML files, not the
    /// settings JSON beside them), as the same files named one by one do.
    @Test func importDataTakesAFolder() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("glucomodel-folder-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let datasets = Self.packageRoot.appendingPathComponent("datasets")
        let xml = try FileManager.default.contentsOfDirectory(atPath: datasets.path).filter { $0.hasSuffix(".xml") }.sorted()
            .map { datasets.appendingPathComponent($0).path }
        let utc = ["--time-zone", "UTC"]
        let folder = try run("glucomodel-train", ["import-data", datasets.path, "--store", dir.appendingPathComponent("a.sqlite").path] + utc)
        let named = try run("glucomodel-train", ["import-data"] + xml + ["--store", dir.appendingPathComponent("b.sqlite").path] + utc)
        #expect(folder.status == 0 && named.status == 0)
        #expect(folder.out.components(separatedBy: "records added").count - 1 == xml.count)
        #expect(folder.out == named.out.replacingOccurrences(of: "b.sqlite", with: "a.sqlite"))
        let empty = dir.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        #expect(try run("glucomodel-train", ["import-data", empty.path, "--store", dir.appendingPathComponent("c.sqlite").path]).status == 64)
    }

    @Test func dataAndStoreTogetherIsAUsageError() throws {
        #expect(throws: (any Error).self) { try Metrics.parse(["a.csv", "--store", "s.sqlite"]) }
        #expect(throws: (any Error).self) { try glucomodel_train.Train.parse(["a.csv", "--store", "s.sqlite"]) }
        #expect(throws: (any Error).self) { try glucomodel_predict.Report.parse(["--data", "a.csv", "--store", "s.sqlite", "--models", "m", "--out-dir", "o"]) }
        #expect(throws: (any Error).self) { try Metrics.parse([]) }
        let metrics = try Metrics.parse(["--store", "s.sqlite"])
        #expect(try metrics.input.source(timeZone: .gmt) is StoreSource)
    }

    /// dose, settings and report take `--data FILE...`; predict, metrics and train took only
    /// positional DATA, so `predict --data f.csv` was "Unknown option". Both spellings now name
    /// the same files, in the order given, and neither goes with `--store`.
    @Test func dataIsAlsoAnOptionWhereItIsPositional() throws {
        let predict = try Predict.parse(["--models", "m", "--data", "a.csv", "b.xml", "--horizons", "30"])
        #expect(predict.input.data == ["a.csv", "b.xml"])
        let metrics = try Metrics.parse(["a.csv", "--data", "dir"])
        #expect(metrics.input.data == ["a.csv", "dir"])
        let train = try glucomodel_train.Train.parse(["--data", "datasets", "--out", "o"])
        #expect(train.input.data == ["datasets"])
        #expect(throws: (any Error).self) { try Metrics.parse(["--data", "a.csv", "--store", "s.sqlite"]) }
    }

    @Test func oneHorizonParserAndOneTimeZoneCheck() throws {
        #expect(HorizonList(argument: "30, 60,90")?.minutes == [30, 60, 90])
        #expect(HorizonList(argument: "30,,60") == nil)
        #expect(HorizonList(argument: "0") == nil)
        // Before: 1445 trained a model that no reader accepts (a model file holds 1 to 1440 minutes).
        #expect(HorizonList(argument: "1445") == nil && HorizonList(argument: "1440")?.minutes == [1440])
        #expect(HorizonList(argument: "abc") == nil)
        // A horizon given twice is one horizon (before: train ran two jobs of it at once, which raced
        // for one checkpoint: "cannot write .../checkpoints/p-h030.json", exit 2).
        #expect(HorizonList(argument: "30,60,30,60")?.minutes == [30, 60])
        #expect(try glucomodel_train.Train.parse(["d", "--horizons", "60,30,60"]).runConfig().horizons == [60, 30])
        #expect(throws: (any Error).self) { try Predict.parse(["a.csv", "--models", "m", "--horizons", "-5"]) }
        // A negative horizon was read as an option: "Missing value for '--horizons <horizons>'".
        // Now the value is read and refused by name (hunt C, stop 50).
        for parse in [{ _ = try glucomodel_train.Train.parse(["d", "--horizons", "-30"]) },
                      { _ = try Predict.parse(["a.csv", "--models", "m", "--horizons", "-30"]) }] {
            do { try parse(); Issue.record("--horizons -30 was accepted") } catch {
                let message = glucomodel_train.Train.message(for: error)
                #expect(message.contains("'-30'") && !message.contains("Missing value"), "\(message)")
                #expect(message.contains("whole minutes from 1 to 1440"), "\(message)")
            }
        }
        // An id that is an e-mail is refused with the reason, not echoed (dose and settings printed it).
        for parse in [{ _ = try Dose.parse(["--patient", "john.smith@example.com", "--settings", "s.json", "--data", "a.csv"]) },
                      { _ = try glucomodel_predict.Settings.parse(["--patient", "john.smith@example.com", "--settings", "s.json", "--data", "a.csv"]) }] {
            do { try parse(); Issue.record("an e-mail was taken as a patient id") } catch {
                let message = Dose.message(for: error)
                #expect(message.contains("looks like an e-mail or a name") && !message.contains("john"), "\(message)")
            }
        }
        #expect(throws: (any Error).self) { try Metrics.parse(["a.csv", "--time-zone", "Mars/Olympus"]) }
        // train took only IANA names, though its help (the shared option) offers +01:00 (hunt N, stop 52).
        #expect(try glucomodel_train.Train.parse(["d", "--time-zone", "+01:00"]).runConfig().timeZone == "+01:00")
        #expect(throws: (any Error).self) { try glucomodel_train.Train.parse(["d", "--time-zone", "Mars/Olympus"]).runConfig() }
        let predict = try Predict.parse(["a.csv", "--models", "m", "--time-zone", "Europe/Madrid", "--from", "2026-01-05T08:00"])
        // 08:00 in Madrid in January (CET, UTC+1) is 07:00 UTC.
        #expect(try predict.period().0 == Date(timeIntervalSince1970: 1_767_596_400))
    }
}

/// A class of this test module, to find its bundle.
private final class Marker {}
