import Foundation
import Testing
@testable import GlucoModel

/// Audit 39 F6: `settings --out` named like its `--data` log replaced the 218 kB log by the
/// suggested settings, exit 0; only `--settings` was protected. No command writes over a file it
/// reads: its data files (named, or found in a folder named), its store, its settings or pairs file.
@Suite(.serialized) struct OutputOverInputTests {
    /// `bytes` written to `name` in `dir`.
    static func file(_ name: String, in dir: URL, _ bytes: String = "x\n") throws -> URL {
        let url = dir.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes.utf8).write(to: url)
        return url
    }

    @Test func aFileReadIsRefusedHoweverItIsNamed() throws {
        let dir = try PredictFixture.temporaryDirectory()
        let data = try Self.file("d.csv", in: dir)
        _ = try Self.file("sub/other.csv", in: dir)
        let link = dir.appendingPathComponent("link.csv"), hard = dir.appendingPathComponent("hard.csv")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: data)
        try FileManager.default.linkItem(at: data, to: hard)
        let read = ReadFiles([data.path], role: "the data file")
        for spelling in [data.path, dir.path + "/./d.csv", dir.path + "/sub/../d.csv", link.path, hard.path] {
            #expect(throws: InputError.self, "\(spelling)") { try read.check(output: URL(fileURLWithPath: spelling), option: "--out") }
        }
        do {
            try read.check(output: link, option: "--out")
            Issue.record("a symbolic link to the data was not refused")
        } catch let error as InputError {
            #expect(error.description == "\(link.path): error: refusing to write over the data file \(data.path), which this command reads; "
                    + "give --out another name")
        }
        // A file that does not exist replaces nothing; another file is not the data.
        try read.check(output: dir.appendingPathComponent("new.csv"), option: "--out")
        try read.check(output: dir.appendingPathComponent("sub/other.csv"), option: "--out")
        #expect(try String(contentsOf: data, encoding: .utf8) == "x\n")
    }

    /// Audit 46: `settings --store s.sqlite --out s.sqlite-wal` wrote the suggested settings over the
    /// store's write-ahead log (a store in WAL mode: the commits not yet checkpointed lost), and
    /// `--out s.sqlite.lock` replaced the lock a running night holds; both exited 0.
    @Test func theStoresJournalAndLockAreTheStoreToo() throws {
        let dir = try PredictFixture.temporaryDirectory()
        let store = dir.appendingPathComponent("s.sqlite").path
        let read = ReadFiles(store: store)
        for companion in ["-wal", "-shm", "-journal", ".lock"] {
            #expect(throws: InputError.self, "\(companion)") {
                try read.check(output: URL(fileURLWithPath: dir.path + "/./s.sqlite" + companion), option: "--out")
            }
        }
        #expect(throws: InputError.self) { try read.check(output: URL(fileURLWithPath: store), option: "--out") }
        try read.check(output: dir.appendingPathComponent("s.sqlite.json"), option: "--out")
        let (_, data, settings) = try ExitCodeTests.doseFiles(
            #"{"patient": "p_a", "carbRatio": 10, "insulinSensitivity": 40, "target": 110, "suspendThreshold": 70, "maxBolus": 10}"#)
        #expect(try ExitCodeTests.run("glucomodel-train", ["import-data", data.path, "--store", store]).status == 0)
        let r = try ExitCodeTests.run("glucomodel-predict", ["settings", "--patient", "p_a", "--store", store, "--settings", settings.path,
                                                             "--time-zone", "UTC", "--out", store + "-wal"])
        #expect(r.status == 1 && r.stderr.contains("\(store)-wal: error: refusing to write over the store's SQLite journal, which this command reads"), "\(r.stderr)")
    }

    /// The audit's reproducer (`repro.sh out`), and a file found in a `--data` folder.
    @Test func settingsNeverWritesOverItsData() throws {
        let (dir, data, settings) = try ExitCodeTests.doseFiles(
            #"{"patient": "p_a", "carbRatio": 10, "insulinSensitivity": 40, "target": 110, "suspendThreshold": 70, "maxBolus": 10}"#)
        let before = try Data(contentsOf: data)
        let common = ["settings", "--patient", "p_a", "--settings", settings.path, "--time-zone", "UTC"]
        var r = try ExitCodeTests.run("glucomodel-predict", common + ["--data", data.path, "--out", data.path])
        #expect(r.status == 1 && r.stderr.contains("\(data.path): error: refusing to write over the data file, which this command reads; give --out another name"),
                "\(r.stderr)")
        r = try ExitCodeTests.run("glucomodel-predict", common + ["--data", dir.path, "--out", dir.path + "/./p_a.csv"])
        #expect(r.status == 1 && r.stderr.contains("refusing to write over the data file \(data.path)"), "\(r.stderr)")
        #expect(try Data(contentsOf: data) == before)
        r = try ExitCodeTests.run("glucomodel-predict", common + ["--data", data.path, "--out", settings.path])
        #expect(r.status == 1 && r.stderr.contains("refusing to write over the current settings file"), "\(r.stderr)")
        // A new file beside the data is written.
        let out = dir.appendingPathComponent("suggested.json")
        r = try ExitCodeTests.run("glucomodel-predict", common + ["--data", data.path, "--out", out.path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try DoseSettings.load(out).carbRatio == 10)
    }

    @Test func predictReportAndScoreNeverWriteOverTheirInput() throws {
        let (dir, data, settings) = try ExitCodeTests.doseFiles(
            #"{"patient": "p_a", "carbRatio": 10, "insulinSensitivity": 40, "target": 110, "suspendThreshold": 70, "maxBolus": 10}"#)
        let models = try PredictFixture.modelsFolder(for: [PredictFixture.patientA], in: dir)
        let store = dir.appendingPathComponent("s.sqlite")
        #expect(try ExitCodeTests.run("glucomodel-train", ["import-data", data.path, "--store", store.path]).status == 0)
        let files = [data, store, settings]
        let before = try files.map { try Data(contentsOf: $0) }
        var r = try ExitCodeTests.run("glucomodel-predict", ["predict", data.path, "--models", models.path, "--out", data.path])
        #expect(r.status == 1 && r.stderr.contains("refusing to write over the data file"), "\(r.stderr)")
        r = try ExitCodeTests.run("glucomodel-predict", ["predict", "--store", store.path, "--models", models.path, "--out", store.path])
        #expect(r.status == 1 && r.stderr.contains("refusing to write over the store"), "\(r.stderr)")
        let report = ["report", "--patient", "p_a", "--models", models.path, "--data", data.path, "--settings", settings.path]
        r = try ExitCodeTests.run("glucomodel-predict", report + ["--out", data.path])
        #expect(r.status == 1 && r.stderr.contains("refusing to write over the data file"), "\(r.stderr)")
        r = try ExitCodeTests.run("glucomodel-predict", report + ["--out", settings.path])
        #expect(r.status == 1 && r.stderr.contains("refusing to write over the settings file"), "\(r.stderr)")
        #expect(try files.map { try Data(contentsOf: $0) } == before)
        let pairs = try Self.file("pairs.csv", in: dir, "reference,prediction\n100,110\n")
        r = try ExitCodeTests.run("glucomodel-predict", ["score", "--pairs", pairs.path, "--out", pairs.path])
        #expect(r.status == 1 && r.stderr.contains("refusing to write over the pairs file"), "\(r.stderr)")
        #expect(try String(contentsOf: pairs, encoding: .utf8) == "reference,prediction\n100,110\n")
        // Elsewhere, each writes.
        r = try ExitCodeTests.run("glucomodel-predict", ["predict", data.path, "--models", models.path, "--out", dir.path + "/p.csv"])
        #expect(r.status == 0, "\(r.stderr)")
    }

    /// `train --out DATA` failed on the folder it could not create ("A file with the same name
    /// already exists", a Foundation error); bench-eval's `--write-values` replaced its `--data`.
    @Test func trainAndBenchEvalNeverWriteOverTheirInput() throws {
        let (dir, data, _) = try ExitCodeTests.doseFiles("{}")
        var r = try ExitCodeTests.run("glucomodel-train", [data.path, "--out", data.path, "--threads", "1"])
        #expect(r.status == 1 && r.stderr.contains("refusing to write over the data, which this command reads; give --out another name"),
                "\(r.stderr)")
        let table = try Self.file("table.csv", in: dir, "0.5,1\n0.25,2\n")
        let expressions = try Self.file("e.txt", in: dir, "x0 + x1\n")
        r = try ExitCodeTests.run("glucomodel-train", ["bench-eval", "--expressions", expressions.path, "--data", table.path,
                                                       "--repeat", "1", "--write-values", table.path])
        #expect(r.status == 1 && r.stderr.contains("refusing to write over the data file"), "\(r.stderr)")
        #expect(try String(contentsOf: table, encoding: .utf8) == "0.5,1\n0.25,2\n")
    }

    /// Audit 41: `predict --out` and `report --out` replaced the model file they read (exit 0);
    /// `report --out-dir` replaced a data file named like a page it writes (`index.html`).
    @Test func predictAndReportNeverWriteOverTheirModels() throws {
        let (dir, data, _) = try ExitCodeTests.doseFiles("{}")
        let models = try PredictFixture.modelsFolder(for: [PredictFixture.patientA], in: dir)
        let model = URL(fileURLWithPath: try #require(ModelSet.files(in: models).first))
        let before = try Data(contentsOf: model)
        let spelt = models.path + "/../models/p_a/" + model.lastPathComponent
        var r = try ExitCodeTests.run("glucomodel-predict", ["predict", data.path, "--models", dir.path, "--out", spelt])
        #expect(r.status == 1 && r.stderr.contains("refusing to write over the model file \(model.path), which this command reads; give --out another name"),
                "\(r.stderr)")
        r = try ExitCodeTests.run("glucomodel-predict", ["report", "--patient", "p_a", "--models", models.path, "--data", data.path,
                                                         "--out", model.path])
        #expect(r.status == 1 && r.stderr.contains("refusing to write over the model file"), "\(r.stderr)")
        #expect(try Data(contentsOf: model) == before)
        // A data file named like the cohort's index page: nothing is written, not even the patient's page.
        let page = dir.appendingPathComponent("index.html")
        try FileManager.default.copyItem(at: data, to: page)
        r = try ExitCodeTests.run("glucomodel-predict", ["report", "--models", models.path, "--data", page.path, "--out-dir", dir.path])
        #expect(r.status == 1 && r.stderr.contains("\(page.path): error: refusing to write over the data file"), "\(r.stderr)")
        #expect(try Data(contentsOf: page) == Data(contentsOf: data))
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("p_a.html").path))
    }

    /// A folder where a file goes, a file where a folder goes, a folder that does not exist: each
    /// named before the work, not a Foundation error after it.
    @Test func outputPlacesAreNamedBeforeTheWork() throws {
        let (dir, data, _) = try ExitCodeTests.doseFiles("{}")
        let models = try PredictFixture.modelsFolder(for: [PredictFixture.patientA], in: dir)
        var r = try ExitCodeTests.run("glucomodel-predict", ["predict", data.path, "--models", models.path, "--out", models.path])
        #expect(r.status == 1 && r.stderr.contains("\(models.path): error: is a folder; give --out a file name"), "\(r.stderr)")
        let lost = dir.appendingPathComponent("nope/r.html")
        r = try ExitCodeTests.run("glucomodel-predict", ["report", "--patient", "p_a", "--models", models.path, "--data", data.path,
                                                         "--out", lost.path])
        #expect(r.status == 1 && r.stderr.contains("\(lost.path): error: the folder \(dir.path)/nope does not exist"), "\(r.stderr)")
        r = try ExitCodeTests.run("glucomodel-predict", ["report", "--models", models.path, "--data", data.path, "--out-dir", data.path])
        #expect(r.status == 1 && r.stderr.contains("refusing to write over the data file, which this command reads; give --out-dir another name"),
                "\(r.stderr)")
        let notes = try Self.file("notes.txt", in: dir)
        r = try ExitCodeTests.run("glucomodel-predict", ["report", "--models", models.path, "--data", data.path, "--out-dir", notes.path])
        #expect(r.status == 1 && r.stderr.contains("\(notes.path): error: is a file, not a folder; give --out-dir a folder"), "\(r.stderr)")
        r = try ExitCodeTests.run("glucomodel-train", ["import-data", data.path, "--store", dir.path])
        #expect(r.status == 1 && r.stderr.contains("a folder, not a store file"), "\(r.stderr)")
        #expect(try String(contentsOf: notes, encoding: .utf8) == "x\n")
    }

    /// `nightly --out` in its inbox: the next night imported the night's files as data, failed,
    /// and moved them to the quarantine (itself in the inbox, so quarantined again every night).
    @Test func nightlyNeverWritesInsideItsInbox() throws {
        let bench = try NightlyBench(patients: [PredictFixture.patientA])
        let inboxBefore = try FileManager.default.contentsOfDirectory(atPath: bench.inbox.path)
        let common = ["nightly", "--store", bench.store, "--inbox", bench.inbox.path, "--models", bench.models.path,
                      "--night", NightlyBench.night, "--time-zone", "UTC"]
        // Nightly prints its summary line, a failure too, on standard output.
        let printed = bench.dir.appendingPathComponent("stdout.txt")
        var r = try ExitCodeTests.run("glucomodel-predict", common + ["--out", bench.inbox.path + "/./"], stdout: printed)
        var line = try String(contentsOf: printed, encoding: .utf8)
        #expect(r.status == 1 && line.contains("refusing to write inside the inbox \(bench.inbox.path), every file of which this command reads; "
                                                   + "give --out a folder outside it"), "\(line)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: bench.inbox.path) == inboxBefore)
        r = try ExitCodeTests.run("glucomodel-predict", common + ["--out", bench.store], stdout: printed)
        line = try String(contentsOf: printed, encoding: .utf8)
        #expect(r.status == 1 && line.contains("refusing to write over the store"), "\(line)")
        #expect(!FileManager.default.fileExists(atPath: bench.store + ".lock"))
        r = try ExitCodeTests.run("glucomodel-predict", common + ["--out", bench.out.path])
        #expect(r.status == 0, "\(r.stderr)")
    }

    /// `train --out R` with a data file `R/results.csv`: the results replaced it (exit 0).
    @Test func trainNeverWritesOverADataFileNamedLikeItsOutputs() throws {
        let (dir, data, _) = try ExitCodeTests.doseFiles("{}")
        let results = try Self.file("run/results.csv", in: dir, try String(contentsOf: data, encoding: .utf8))
        let r = try ExitCodeTests.run("glucomodel-train", [dir.appendingPathComponent("run").path, "--out", dir.appendingPathComponent("run").path,
                                                           "--threads", "1"])
        // The data folder is the output folder: refused as before; named inside it, the file is.
        #expect(r.status == 1 && r.stderr.contains("refusing to write over the data"), "\(r.stderr)")
        let named = try ExitCodeTests.run("glucomodel-train", [results.path, "--out", dir.appendingPathComponent("run").path, "--threads", "1"])
        #expect(named.status == 1 && named.stderr.contains("\(results.path): error: refusing to write over the data"), "\(named.stderr)")
        #expect(try Data(contentsOf: results) == Data(contentsOf: data))
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("run/config.json").path))
    }
}
