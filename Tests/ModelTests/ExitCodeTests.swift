import Foundation
import Testing
import GrammarEvolution
@testable import GlucoModel

/// Issue #12: every command ends with a status on the `RunStatus` scale, run as a user runs it
/// (the built executables in child processes, so nothing they do can stop the test process).
@Suite(.serialized) struct ExitCodeTests {
    static func executable(_ name: String) -> URL? {
        let products = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for dir in [products, products.deletingLastPathComponent()] {
            let url = dir.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return nil
    }

    /// Runs `name arguments` and returns its exit status and standard error.
    static func run(_ name: String, _ arguments: [String], stdout: URL? = nil) throws -> (status: Int32, stderr: String) {
        try run(executable: try #require(executable(name), "\(name) not built"), arguments, stdout: stdout)
    }

    /// Runs `executable arguments` (from `directory` when given) and returns its exit status and standard error.
    static func run(executable: URL, _ arguments: [String], stdout: URL? = nil, directory: URL? = nil) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        if let stdout {
            try #require(FileManager.default.createFile(atPath: stdout.path, contents: nil), "cannot create \(stdout.path)")
            process.standardOutput = try FileHandle(forWritingTo: stdout)
        } else {
            process.standardOutput = FileHandle.nullDevice
        }
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    /// Hunt P (stop 53): standard output on a full disk. `score` (and `predict`) trapped writing it
    /// (exit 132, a backtrace); `metrics`, `dose` and `settings` left an empty file and exited 0. Each
    /// now fails (1), saying the output is incomplete. /dev/full stands for the full disk.
    @Test(.enabled(if: FileManager.default.isWritableFile(atPath: "/dev/full")))
    func standardOutputThatCannotBeWrittenFails() throws {
        let dir = try PredictFixture.temporaryDirectory()
        let pairs = dir.appendingPathComponent("pairs.csv")
        try Data("reference,prediction\n100,110\n".utf8).write(to: pairs)
        let data = dir.appendingPathComponent("p_a.csv")
        try Data(PredictFixture.csv(PredictFixture.log(PredictFixture.patientA, days: 2)).utf8).write(to: data)
        for arguments in [["score", "--pairs", pairs.path], ["metrics", data.path, "--time-zone", "UTC"]] {
            let process = Process()
            process.executableURL = Self.executable("glucomodel-predict")
            process.arguments = arguments
            process.standardOutput = FileHandle(forWritingAtPath: "/dev/full")
            let errors = Pipe()
            process.standardError = errors
            try process.run()
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 1, "\(arguments[0]): \(text)")
            #expect(text.contains("standard output could not be written (No space left on device): the output is incomplete"),
                    "\(arguments[0]): \(text)")
        }
    }

    /// Hunt AG (stop 57): standard error that cannot be written (the log's disk full, a log pipe whose
    /// reader is gone) trapped every command at its first message (exit 132): a nightly between a
    /// quarantine move and the summary recording it. The message is lost; the run, its output and its
    /// status are as with a working standard error.
    @Test(.enabled(if: FileManager.default.isWritableFile(atPath: "/dev/full")))
    func standardErrorThatCannotBeWrittenLosesTheMessageNotTheRun() throws {
        let dir = try PredictFixture.temporaryDirectory()
        let data = dir.appendingPathComponent("p_a.csv")
        try Data(PredictFixture.csv(PredictFixture.log(PredictFixture.patientA, days: 2)).utf8).write(to: data)
        let bad = dir.appendingPathComponent("p_b.csv")
        try Data("not,a,glucose,file\n1,2,3,4\n".utf8).write(to: bad)
        let arguments = ["metrics", data.path, bad.path, "--time-zone", "UTC"]
        let reference = dir.appendingPathComponent("reference.txt")
        let told = try Self.run("glucomodel-predict", arguments, stdout: reference)
        #expect(told.status == 2 && told.stderr.contains("p_b.csv"), "\(told)")
        for target in ["full", "gone"] {
            let out = dir.appendingPathComponent("\(target).txt")
            FileManager.default.createFile(atPath: out.path, contents: nil)
            let process = Process()
            process.executableURL = Self.executable("glucomodel-predict")
            process.arguments = arguments
            process.standardOutput = try FileHandle(forWritingTo: out)
            if target == "full" {
                process.standardError = FileHandle(forWritingAtPath: "/dev/full")
            } else {
                let pipe = Pipe()
                try pipe.fileHandleForReading.close()
                process.standardError = pipe
            }
            try process.run()
            process.waitUntilExit()
            #expect(process.terminationReason == .exit && process.terminationStatus == told.status, "\(target)")
            #expect(try Data(contentsOf: out) == Data(contentsOf: reference), "\(target)")
        }
    }

    /// Stop 58: standard output's reader gone (`predict | head`): the command stops and exits 141 in
    /// silence, as SIGPIPE would and as `cat` does, where it printed "standard output could not be
    /// written (Broken pipe)" and exited 1 since stop 57. The command's own error (a bad file) is
    /// still told, with its status.
    @Test func aReaderThatHasGoneEndsTheCommandInSilence() throws {
        let dir = try PredictFixture.temporaryDirectory()
        let pairs = dir.appendingPathComponent("pairs.csv")
        // More than a pipe's 64 KB, so the writes meet the closed reader.
        try Data(("reference,prediction\n" + String(repeating: "100,110\n", count: 20_000)).utf8).write(to: pairs)
        let data = dir.appendingPathComponent("p_a.csv")
        try Data(PredictFixture.csv(PredictFixture.log(PredictFixture.patientA, days: 2)).utf8).write(to: data)
        let bad = dir.appendingPathComponent("p_b.csv")
        try Data("not,a,glucose,file\n1,2,3,4\n".utf8).write(to: bad)
        func runWithReaderGone(_ arguments: [String]) throws -> (status: Int32, stderr: String) {
            let process = Process()
            process.executableURL = try #require(Self.executable("glucomodel-predict"))
            process.arguments = arguments
            let out = Pipe()
            try out.fileHandleForReading.close()
            process.standardOutput = out
            let errors = Pipe()
            process.standardError = errors
            try process.run()
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationReason == .exit, "\(arguments[0])")
            return (process.terminationStatus, text)
        }
        let score = try runWithReaderGone(["score", "--pairs", pairs.path])
        #expect(score.status == 141 && score.stderr.isEmpty, "\(score)")
        let metrics = try runWithReaderGone(["metrics", data.path, "--time-zone", "UTC"])
        #expect(metrics.status == 141 && metrics.stderr.isEmpty, "\(metrics)")
        let told = try runWithReaderGone(["metrics", data.path, bad.path, "--time-zone", "UTC"])
        #expect(told.status == 2 && told.stderr.contains("p_b.csv") && !told.stderr.contains("Broken pipe"), "\(told)")
    }

    /// Hunt AG (stop 57): under an address-space limit OpenBLAS's 128 MB work buffer is refused and
    /// it retries for ever: train and the settings check spun at 300-320 MB (a night holding the
    /// store's lock). Every command now refuses a limit under 512 MB at once, saying so.
    @Test func anAddressSpaceLimitTooSmallIsRefusedAtOnce() throws {
        let exe = try #require(Self.executable("glucomodel-predict"))
        let r = try Self.run(executable: URL(fileURLWithPath: "/bin/sh"),
                             ["-c", "ulimit -v 400000 && OPENBLAS_NUM_THREADS=1 exec \"$0\" metrics --store none.sqlite", exe.path])
        #expect(r.status == 1 && r.stderr.contains("the address-space limit (ulimit -v) is 390 MB, under the 512 MB"), "\(r.stderr)")
    }

    /// Hunt AG (stop 57): under a limit on processes or threads (`ulimit -u`, a container's pids limit)
    /// the import's thread never started and libdispatch retried for ever: predict, dose, report,
    /// nightly and import-data waited without a word. Every command now says so at once. Root is
    /// exempt from the limit: run as `nobody` where `setpriv` can switch to it, from a copy of the
    /// build in a folder of its own that `nobody` may run (a checkout under /root is not).
    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") && FileManager.default.isExecutableFile(atPath: "/bin/bash")))
    func tooFewThreadsIsRefusedAtOnce() throws {
        let built = try #require(Self.executable("glucomodel-predict"))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("threads-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        defer { try? FileManager.default.removeItem(at: folder) }
        let exe = folder.appendingPathComponent("glucomodel-predict")
        try FileManager.default.copyItem(at: built, to: exe)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: exe.path)
        func asNobody(_ script: String) throws -> (status: Int32, stderr: String) {
            try Self.run(executable: URL(fileURLWithPath: "/usr/bin/setpriv"),
                         ["--reuid=nobody", "--regid=nogroup", "--clear-groups", "/bin/bash", "-c", script, exe.path],
                         directory: URL(fileURLWithPath: "/"))
        }
        // A toolchain's runtime libraries only root may read (installed under /root) leave nothing to test.
        guard try asNobody("exec \"$0\" --help").status == 0 else { return }
        let few = try asNobody("ulimit -u 2 && OPENBLAS_NUM_THREADS=1 exec \"$0\" metrics --store /nonexistent/s.sqlite")
        #expect(few.status == 1 && few.stderr.contains("cannot start 4 threads (Resource temporarily unavailable): a limit on processes"),
                "\(few)")
        // With threads to spare, the command runs (and names the missing store).
        let enough = try asNobody("ulimit -u 64 && OPENBLAS_NUM_THREADS=1 exec \"$0\" metrics --store /nonexistent/s.sqlite")
        #expect(enough.status == 1 && enough.stderr.contains("no such store file"), "\(enough)")
    }

    /// Hunt P (stop 53): from a working folder whose path is longer than Foundation resolves relative
    /// paths under, an output folder named relatively spun for ever (its path walked up to "" and
    /// never met "/"), and an XML file crashed its parser. The check of where an output goes ends at
    /// the working folder for a relative path (the commands refuse such a folder: WorkingFolderTests).
    @Test func aRelativeOutputFolderIsCheckedToTheWorkingFolder() throws {
        try ReadFiles().check(outputFolder: try #require(URL(string: "not-there-\(UUID().uuidString)/out")), option: "--out")
    }

    /// Hunt P (stop 53): `import-data` waited for ever on a named pipe, holding the store's lock (every
    /// nightly meanwhile exited 75), and `score --pairs <(...)` read the pipe's second pass empty ("the
    /// file is empty"). Both refuse a pipe at once, as train, predict and metrics do (a watchdog
    /// kills a run that waits).
    @Test func aNamedPipeIsRefusedNotWaitedOn() throws {
        let dir = try PredictFixture.temporaryDirectory()
        let fifo = dir.appendingPathComponent("f.csv")
        try #require(mkfifo(fifo.path, 0o644) == 0)
        let store = dir.appendingPathComponent("s.sqlite").path
        // Hunt AK (stop 58): the other readers said so with exit 1, where the README says 64.
        let models = dir.appendingPathComponent("models").path
        for (name, arguments) in [("glucomodel-train", ["import-data", fifo.path, "--store", store]),
                                  ("glucomodel-predict", ["score", "--pairs", fifo.path]),
                                  ("glucomodel-train", ["train", fifo.path, "--out", dir.appendingPathComponent("out").path]),
                                  ("glucomodel-predict", ["predict", fifo.path, "--models", models]),
                                  ("glucomodel-predict", ["metrics", fifo.path]),
                                  ("glucomodel-predict", ["dose", "--data", fifo.path, "--patient", "f", "--carbs", "30", "--settings", "none.json"]),
                                  ("glucomodel-predict", ["settings", "--data", fifo.path, "--patient", "f", "--settings", "none.json"]),
                                  ("glucomodel-predict", ["report", "--data", fifo.path, "--models", models])] {
            let process = Process()
            process.executableURL = Self.executable(name)
            process.arguments = arguments
            process.standardOutput = FileHandle.nullDevice
            let errors = Pipe()
            process.standardError = errors
            try process.run()
            let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
            DispatchQueue.global().asyncAfter(deadline: .now() + 30, execute: watchdog)
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            watchdog.cancel()
            #expect(process.terminationStatus == 64 && text.contains("not a regular file (a pipe"), "\(arguments[0]): \(text)")
        }
        // Review AM (stop 58): the pipe in a config file's data too.
        let config = dir.appendingPathComponent("experiment.json")
        try Data(#"{"data": ["\#(fifo.path)"]}"#.utf8).write(to: config)
        let configured = try Self.run("glucomodel-train", ["train", "--config", config.path, "--out", dir.appendingPathComponent("out2").path])
        #expect(configured.status == 64 && configured.stderr.contains("not a regular file (a pipe"), "\(configured)")
    }

    /// The review of stop 58: `score --pairs` of a file that is not there said "cannot open the
    /// file: no such file" without naming it. Named, as every reader names its file (exit 1).
    @Test func aPairsFileThatIsNotThereIsNamed() throws {
        let missing = try PredictFixture.temporaryDirectory().appendingPathComponent("gone.csv").path
        let r = try Self.run("glucomodel-predict", ["score", "--pairs", missing])
        #expect(r.status == 1 && r.stderr.contains("\(missing): error: cannot open the file: no such file"), "\(r)")
    }

    @Test func scaleValues() {
        #expect(RunStatus.allCases.map(\.rawValue) == [0, 1, 2, 3, 64, 75])
        #expect(RunStatus.of(done: 3, failed: 0) == .success)
        #expect(RunStatus.of(done: 3, failed: 1) == .partial)
        #expect(RunStatus.of(done: 0, failed: 1) == .failure)
        #expect(RunStatus.of(done: 0, failed: 0) == .failure)
    }

    /// Before: "Trained 0" and exit 0.
    @Test func trainOnAnEmptyFolderOrAnUnreadableFileFails() throws {
        let dir = try PredictFixture.temporaryDirectory()
        let empty = dir.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let out = dir.appendingPathComponent("out").path
        // An earlier run's options in the folder: a run with no data must leave them as they were
        // (before, it wrote its own config.json over them, and an empty results.csv).
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let earlier = Data(#"{"version": 1, "population": 30}"#.utf8)
        try earlier.write(to: URL(fileURLWithPath: out).appendingPathComponent("config.json"))
        var r = try Self.run("glucomodel-train", [empty.path, "--out", out, "--threads", "1"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("no patient data"))
        #expect(r.stderr.contains("nothing written"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: out).appendingPathComponent("config.json")) == earlier)
        #expect(!FileManager.default.fileExists(atPath: out + "/results.csv"))
        let junk = dir.appendingPathComponent("junk.csv")
        try Data("not,an,export\n1,2,3\n".utf8).write(to: junk)
        r = try Self.run("glucomodel-train", [junk.path, "--out", out, "--threads", "1"])
        #expect(r.status == 1)
        r = try Self.run("glucomodel-train", ["--population", "1"])
        #expect(r.status == 64)
        // No upper bound on the command line grew a run to 20 GB (hunt H, stop 51); the config file's bounds hold here too.
        r = try Self.run("glucomodel-train", ["--population", "9223372036854775807"])
        #expect(r.status == 64 && r.stderr.contains("--population must be 2 to 10,000,000"), "\(r.stderr)")
    }

    /// Before: a data folder's exports that no importer recognises (an empty file, another device's
    /// CSV) were left out without a word, their patients missing from the cohort. Now they are named;
    /// a settings file beside the exports is not.
    @Test func trainNamesTheFilesOfAFolderItCannotRead() throws {
        let (data, out) = try Self.emptyDataFolderAndOutput()
        try Data().write(to: data.appendingPathComponent("empty.csv"))
        try Data("Index,Date,Time,Sensor Glucose (mg/dL)\n1,2026/10/20,00:00:00,120\n".utf8).write(to: data.appendingPathComponent("carelink.csv"))
        try Data(#"{"patient": "p", "carbRatio": 10, "insulinSensitivity": 40}"#.utf8).write(to: data.appendingPathComponent("p-settings.json"))
        let r = try Self.run("glucomodel-train", [data.path, "--out", out.path, "--threads", "1"])
        #expect(r.status == 1)
        let carelink = data.appendingPathComponent("carelink.csv").resolvingSymlinksInPath().path
        let empty = data.appendingPathComponent("empty.csv").resolvingSymlinksInPath().path
        #expect(r.stderr.contains("not read: 2 files in the data folders are in none of the known formats (name a file as DATA to see why): \(carelink), \(empty)\n"),
                "\(r.stderr)")
        #expect(!r.stderr.contains("settings"), "\(r.stderr)")
    }

    /// Finding 10: bench-eval's settings (`--rows 0`, `--threads 0`, an unknown operator) exited 1;
    /// they are usage errors (64).
    @Test func benchEvalSettingsAreUsageErrors() throws {
        let dir = try PredictFixture.temporaryDirectory()
        let expressions = dir.appendingPathComponent("e.txt").path
        for bad in [["--rows", "0"], ["--rows", "10", "--threads", "0"], ["--rows", "10", "--repeat", "0"],
                    ["--rows", "10", "--operators", "+,tan"], ["--rows", "10", "--min-nodes", "60"]] {
            let r = try Self.run("glucomodel-train", ["bench-eval", "--expressions", expressions, "--generate-expressions", "2"] + bad)
            #expect(r.status == 64, "\(bad): \(r.stderr)")
        }
        let r = try Self.run("glucomodel-train", ["bench-eval", "--expressions", expressions, "--generate-expressions", "2",
                                                  "--rows", "100", "--repeat", "1"])
        #expect(r.status == 0, "\(r.stderr)")
    }

    /// A data folder with no file in it, and where a run writes (not created), in a fresh directory.
    static func emptyDataFolderAndOutput() throws -> (data: URL, out: URL) {
        let dir = try PredictFixture.temporaryDirectory()
        let empty = dir.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        return (empty, dir.appendingPathComponent("out"))
    }

    /// Finding 10: `collect` on the output of a run that trained no model (config.json and
    /// results.csv, no models/) exited 64 ("has no models/ folder"); it is a training run's folder
    /// with no model at all: 1. A folder no run wrote to is still a usage error.
    @Test func collectOnARunWithNoModelFails() throws {
        let (empty, out) = try Self.emptyDataFolderAndOutput()
        // A patient with too little data for any horizon: the run starts, and trains nothing.
        let data = empty.deletingLastPathComponent().appendingPathComponent("short")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        try Data(PredictFixture.csv(PredictFixture.log(PredictFixture.patientA, days: 1)).utf8)
            .write(to: data.appendingPathComponent("p_a.csv"))
        #expect(try Self.run("glucomodel-train", [data.path, "--out", out.path, "--threads", "1", "--horizons", "30"]).status == 1)
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("config.json").path))
        // The run's own account (run.json) names the patient it could not train.
        let run = try #require(ShardLedger.runReport(in: out))
        #expect(run.finished && run.patients == [PredictFixture.patientA] && run.failures.map(\.subject) == ["p_a"])
        var r = try Self.run("glucomodel-train", ["collect", "--out", out.path])
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stderr.contains("no model in \(out.path)/models"), "\(r.stderr)")
        r = try Self.run("glucomodel-train", ["collect", "--out", empty.path])
        #expect(r.status == 64, "\(r.stderr)")
    }

    /// Finding 10: a sharded task that stopped on an empty data folder wrote no shard report, so
    /// `collect` said its task "did not start". Now its report says it finished with the error.
    @Test func aShardTaskThatStopsSaysSoInItsReport() throws {
        let (empty, out) = try Self.emptyDataFolderAndOutput()
        let task = try Self.run("glucomodel-train", [empty.path, "--out", out.path, "--threads", "1", "--shards", "2", "--task-id", "0"])
        #expect(task.status == 1)
        #expect(task.stderr.contains("no data file in a known format"), "\(task.stderr)")
        let report = try #require(ShardLedger.reports(in: out, count: 2)[0])
        #expect(report.finished && report.patients.isEmpty)
        #expect(report.failures.map(\.subject) == ["task stopped"])
        #expect(report.failures.first?.message.contains("no data file in a known format") == true)
        let r = try Self.run("glucomodel-train", ["collect", "--out", out.path])
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stderr.contains("shards that never reported (their task did not start): 1/2\n"), "\(r.stderr)")
        #expect(r.stderr.contains("failed: shard 0/2: task stopped: \(empty.path): error: no data file in a known format"), "\(r.stderr)")
    }

    @Test func predictCommandsStatuses() throws {
        let dir = try PredictFixture.temporaryDirectory()
        let models = try PredictFixture.modelsFolder(for: [PredictFixture.patientA], in: dir)
        let data = dir.appendingPathComponent("p_a.csv")
        try Data(PredictFixture.csv(PredictFixture.log(PredictFixture.patientA, days: 2)).utf8).write(to: data)
        // One patient with models, one without: partial.
        let other = try PatientID("p_other")
        let otherData = dir.appendingPathComponent("p_other.csv")
        try Data(PredictFixture.csv(PredictFixture.log(other, days: 2)).utf8).write(to: otherData)
        #expect(try Self.run("glucomodel-predict", ["predict", data.path, "--models", models.path]).status == 0)
        #expect(try Self.run("glucomodel-predict", ["predict", data.path, otherData.path, "--models", models.path]).status == 2)
        #expect(try Self.run("glucomodel-predict", ["predict", otherData.path, "--models", models.path]).status == 1)
        #expect(try Self.run("glucomodel-predict", ["predict", "--no-such-option"]).status == 64)
        // A malformed model: that patient fails with the file and field named.
        let file = models.appendingPathComponent("p_a/h030.json")
        var object = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as! [String: Any]
        var features = object["features"] as! [String: Any]
        features["stepMinutes"] = 0
        object["features"] = features
        try JSONSerialization.data(withJSONObject: object).write(to: file)
        let r = try Self.run("glucomodel-predict", ["predict", data.path, "--models", models.path])
        #expect(r.status == 1)
        #expect(r.stderr.contains("h030.json") && r.stderr.contains("features.stepMinutes"))
    }

    /// `predict` names on stderr how many of a patient's rows are the ARX's alone (here
    /// `1 / (G0 - G1)` with a recorded range of -1...1: every moment the glucose moved less than
    /// 1/3 mg/dL in 5 minutes); the rows are written as usual.
    @Test func predictSaysHowManyRowsAreTheARXsAlone() throws {
        let dir = try PredictFixture.temporaryDirectory()
        let models = try PredictFixture.modelsFolder(for: [PredictFixture.patientA], in: dir)
        let data = dir.appendingPathComponent("p_a.csv")
        let log = PredictFixture.log(PredictFixture.patientA, days: 2)
        try Data(PredictFixture.csv(log).utf8).write(to: data)
        var model = try GlucoseModel.read(from: models.appendingPathComponent("p_a/h030.json"))
        model.base = .arx
        (model.intercept, model.slope) = (0, 1)
        model.expression = "1 / (G0 - G1)"
        model.program = try Program(infix: model.expression, variables: VariableNames(model.features.names))
        model.evolvedRange = -1...1
        try model.write(to: models.appendingPathComponent("p_a/h030.json"))
        let set = try ModelSet.load(models, patient: PredictFixture.patientA)
        let expected = try Predictor(models: set).predict(log).count { $0.baseAlone }
        #expect(expected > 0)
        let out = dir.appendingPathComponent("out.csv")
        let r = try Self.run("glucomodel-predict", ["predict", data.path, "--models", models.path, "--out", out.path])
        #expect(r.status == 0)
        #expect(r.stderr.contains(PredictionRow.baseAloneNote(PredictFixture.patientA, count: expected)), "\(r.stderr)")
        #expect(!r.stderr.contains("at the limit"))
        // Before: predictions clamped at 600 mg/dL were written without a word (nightly named them).
        model.expression = "1000 + G0"
        model.program = try Program(infix: model.expression, variables: VariableNames(model.features.names))
        model.evolvedRange = nil
        try model.write(to: models.appendingPathComponent("p_a/h030.json"))
        let clamped = try Predictor(models: try ModelSet.load(models, patient: PredictFixture.patientA)).predict(log)
            .count { $0.model == "ge" && $0.prediction == 600 }
        #expect(clamped > 0)
        let again = try Self.run("glucomodel-predict", ["predict", data.path, "--models", models.path, "--out", out.path])
        #expect(again.status == 0 && again.stderr.contains(PredictionRow.atLimitNote(PredictFixture.patientA, count: clamped)), "\(again.stderr)")
    }

    /// Hunt AP: `import-data b.csv a.csv` kept b's reading where the two files differ, while
    /// `train b.csv a.csv` (path order) kept a's: `train --store` trained other models. One call now
    /// reads its files in path order, as `train` and every `--data` do.
    @Test func importDataReadsItsFilesInPathOrderAsTrainDoes() throws {
        let dir = try PredictFixture.temporaryDirectory()
        let rows = { (value: Int) in "patient,time,event,value,unit\np_o,2026-01-05T08:00:00Z,glucose,\(value),mg/dL\np_o,2026-01-05T08:05:00Z,glucose,121,mg/dL\n" }
        let a = dir.appendingPathComponent("a.csv"), b = dir.appendingPathComponent("b.csv")
        try Data(rows(120).utf8).write(to: a)
        try Data(rows(150).utf8).write(to: b)
        let store = dir.appendingPathComponent("s.sqlite").path
        let r = try Self.run("glucomodel-train", ["import-data", b.path, a.path, "--store", store], stdout: dir.appendingPathComponent("out.txt"))
        #expect(r.status == 2 || r.status == 0, "\(r.stderr)")
        let stored = try PatientStore(path: store).log(for: try PatientID("p_o"))
        let files = try ExportFiles(paths: [b.path, a.path], options: ImportOptions(timeZone: TimeZone(identifier: "UTC")!)).load()
        #expect(stored.glucose.map(\.value) == files.patients[0].log.glucose.map(\.value))
        #expect(stored.glucose.first?.value == .mgdL(120), "a.csv's, read first")
    }

    /// Finding 7: `import-data` of a file whose every row was skipped (epoch seconds in `time`)
    /// exited 0 and recorded the file, so it was "already imported" ever after. Now the file fails
    /// (1 alone, 2 beside a good file) with its summary and warnings, and nothing is recorded.
    @Test func importDataOfAFileWithEveryRowSkippedFails() throws {
        let dir = try PredictFixture.temporaryDirectory()
        let bad = dir.appendingPathComponent("epoch.csv")
        try Data("patient,time,event,value,unit\np_e,1768435200,glucose,120,mg/dL\np_e,1768435500,glucose,121,mg/dL\n".utf8)
            .write(to: bad)
        let good = dir.appendingPathComponent("p_a.csv")
        try Data(PredictFixture.csv(PredictFixture.log(PredictFixture.patientA, days: 1)).utf8).write(to: good)
        let store = dir.appendingPathComponent("s.sqlite").path
        let out = dir.appendingPathComponent("out.txt")
        var r = try Self.run("glucomodel-train", ["import-data", bad.path, "--store", store], stdout: out)
        #expect(r.status == 1)
        var text = try String(contentsOf: out, encoding: .utf8)
        #expect(text.contains("2 rows read, 0 records kept, 2 skipped (2 bad time)"), "\(text)")
        #expect(text.contains("epoch.csv:2 [time]: warning: '1768435200' is not a valid time"), "\(text)")
        #expect(text.contains("epoch.csv: error: no records kept"), "\(text)")
        let imported = try PatientStore(path: store)
        #expect(try imported.patients().isEmpty && imported.importRuns().isEmpty)
        r = try Self.run("glucomodel-train", ["import-data", bad.path, good.path, "--store", store], stdout: out)
        #expect(r.status == 2)
        text = try String(contentsOf: out, encoding: .utf8)
        #expect(!text.contains("already imported") && text.contains("no records kept"), "\(text)")
        #expect(try imported.patients() == [PredictFixture.patientA] && imported.importRuns().count == 1)
        // A file whose good rows are kept and one row skipped with a warning (a glucose of 5000):
        // partial (2); before, 0. A clean file alone is 0.
        let mixed = dir.appendingPathComponent("p_m.csv")
        try Data("patient,time,event,value,unit\np_m,2026-01-05T08:00:00Z,glucose,120,mg/dL\np_m,2026-01-05T08:05:00Z,glucose,5000,mg/dL\n".utf8)
            .write(to: mixed)
        r = try Self.run("glucomodel-train", ["import-data", mixed.path, "--store", store], stdout: out)
        #expect(r.status == 2)
        #expect(try String(contentsOf: out, encoding: .utf8).contains("1 record kept, 1 skipped"))
        let clean = dir.appendingPathComponent("p_c.csv")
        try Data("patient,time,event,value,unit\np_c,2026-01-05T08:00:00Z,glucose,120,mg/dL\n".utf8).write(to: clean)
        #expect(try Self.run("glucomodel-train", ["import-data", clean.path, "--store", store], stdout: out).status == 0)
    }

    /// Finding 4: the commands reading files directly printed none of the importer's warnings
    /// (an OhioT1DM file with ISO times: only "no glucose readings"). Now each file read with
    /// warnings gets its summary line and first 5 warnings on stderr, as `import-data` words them;
    /// exit codes and standard output are unchanged, and clean files (the bundled data) print nothing.
    @Test func commandsReadingFilesShowTheImportWarnings() throws {
        let dir = try PredictFixture.temporaryDirectory()
        let iso = dir.appendingPathComponent("iso_times.xml")
        var xml = "<patient id=\"p_iso\" weight=\"0\" insulin_type=\"rapid-acting\">\n  <glucose_level>\n"
        for i in 0..<8 { xml += "    <event ts=\"2026-01-15T00:\(i)5:00\" value=\"\(100 + i)\"/>\n" }
        xml += "  </glucose_level>\n</patient>\n"
        try Data(xml.utf8).write(to: iso)
        let utc = ["--time-zone", "UTC"]
        let metrics = try Self.run("glucomodel-predict", ["metrics", iso.path] + utc)
        #expect(metrics.status == 1)
        #expect(metrics.stderr.contains("warning: \(iso.path): 8 rows read, 0 records kept, 8 skipped (8 bad time)"), "\(metrics.stderr)")
        #expect(metrics.stderr.contains("\n  \(iso.path):3 [ts]: warning: '2026-01-15T00:05:00' is not a valid time"), "\(metrics.stderr)")
        #expect(metrics.stderr.contains("\(iso.path):7 [ts]:") && !metrics.stderr.contains("\(iso.path):8 [ts]:"))
        #expect(metrics.stderr.contains("\n  ... and 3 more warnings\n"), "\(metrics.stderr)")
        let models = try PredictFixture.modelsFolder(for: [PredictFixture.patientA], in: dir)
        let data = dir.appendingPathComponent("p_a.csv")
        try Data(PredictFixture.csv(PredictFixture.log(PredictFixture.patientA, days: 2)).utf8).write(to: data)
        let predict = try Self.run("glucomodel-predict", ["predict", data.path, iso.path, "--models", models.path] + utc)
        #expect(predict.status == 2 && predict.stderr.contains("\(iso.path):3 [ts]: warning:"))
        // Clean files, the bundled data among them: not a word about their import.
        let bundled = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("datasets/adolescent_003-ws-testing.xml")
        let clean = try Self.run("glucomodel-predict", ["metrics", data.path, bundled.path] + utc)
        #expect(clean.status == 0 && !clean.stderr.contains("rows read") && !clean.stderr.contains("warning"), "\(clean.stderr)")
        let quiet = try Self.run("glucomodel-predict", ["predict", data.path, "--models", models.path] + utc)
        #expect(quiet.status == 0 && !quiet.stderr.contains("warning"), "\(quiet.stderr)")
    }

    @Test func nightlyLockedIs75() throws {
        let bench = try NightlyBench(patients: [PredictFixture.patientA])
        let held = try StoreLock(storePath: bench.store)
        defer { held.release() }
        let r = try Self.run("glucomodel-predict", ["nightly", "--store", bench.store, "--inbox", bench.inbox.path,
                                                    "--models", bench.models.path, "--out", bench.out.path])
        #expect(r.status == 75)
    }

    /// Before: `--low nan` said "--low must be below --high".
    @Test func nightlyNamesAThresholdThatIsNotANumber() throws {
        let bench = try NightlyBench(patients: [PredictFixture.patientA])
        let r = try Self.run("glucomodel-predict", ["nightly", "--store", bench.store, "--inbox", bench.inbox.path,
                                                    "--models", bench.models.path, "--out", bench.out.path, "--low", "nan"])
        #expect(r.status == 64 && r.stderr.contains("The value 'nan' is invalid for '--low <low>': expected a decimal number"), "\(r.stderr)")
    }

    /// Before: `--units mmol/L --low 70` said "--low must be below --high" (70 was compared with the
    /// default high, 13.88 mmol/L, first): a threshold's plausibility is checked before their order.
    @Test func nightlyNamesAThresholdInTheWrongUnit() throws {
        let bench = try NightlyBench(patients: [PredictFixture.patientA])
        let common = ["nightly", "--store", bench.store, "--inbox", bench.inbox.path, "--models", bench.models.path,
                      "--out", bench.out.path, "--units", "mmol/L"]
        let low = try Self.run("glucomodel-predict", common + ["--low", "70"])
        #expect(low.status == 64 && low.stderr.contains("--low 70 mmol/L is 1261 mg/dL, outside 20-600 mg/dL; is --units right?"), "\(low.stderr)")
        #expect(!low.stderr.contains("must be below"))
        let high = try Self.run("glucomodel-predict", common + ["--high", "1"])
        #expect(high.status == 64 && high.stderr.contains("--high 1 mmol/L is 18 mg/dL, outside 20-600 mg/dL"), "\(high.stderr)")
        // Just outside: not rounded into the range (1.1 mmol/L said "is 20 mg/dL, outside 20-600";
        // and --low 19.9 in mg/dL "19.9 mg/dL is 20 mg/dL").
        let edge = try Self.run("glucomodel-predict", common + ["--low", "1.1"])
        #expect(edge.status == 64 && edge.stderr.contains("--low 1.1 mmol/L is 19.8 mg/dL, outside 20-600 mg/dL"), "\(edge.stderr)")
        let mgdl = try Self.run("glucomodel-predict", Array(common.dropLast(2)) + ["--low", "19.9"])
        #expect(mgdl.status == 64 && mgdl.stderr.contains("--low 19.9 mg/dL is outside 20-600 mg/dL"), "\(mgdl.stderr)")
        // Plausible thresholds in the wrong order are still refused as such.
        let order = try Self.run("glucomodel-predict", common + ["--low", "10", "--high", "5"])
        #expect(order.status == 64 && order.stderr.contains("--low must be below --high"), "\(order.stderr)")
        #expect(try bench.files().isEmpty)
    }

    /// A folder with a day of patient p_a's data and a settings file with `settings` (JSON).
    static func doseFiles(_ settings: String) throws -> (dir: URL, data: URL, settings: URL) {
        let dir = try PredictFixture.temporaryDirectory()
        let data = dir.appendingPathComponent("p_a.csv")
        try Data(PredictFixture.csv(PredictFixture.log(PredictFixture.patientA, days: 1)).utf8).write(to: data)
        let file = dir.appendingPathComponent("s.json")
        try Data(settings.utf8).write(to: file)
        return (dir, data, file)
    }

    @Test func doseUnknownPatientListsThePatientsFound() throws {
        let (_, data, settings) = try Self.doseFiles(#"{"patient": "p_zz", "carbRatio": 10, "insulinSensitivity": 40, "target": 110, "suspendThreshold": 70, "maxBolus": 10}"#)
        let r = try Self.run("glucomodel-predict", ["dose", "--patient", "p_zz", "--data", data.path, "--settings", settings.path,
                                                    "--carbs", "0"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("patients found: p_a"))
    }

    /// Hunt H (stop 51): a write that fails (a full disk; here a file-size limit of 20 KiB, with
    /// SIGXFSZ ignored so that write(2) returns EFBIG) trapped in `AtomicTextFile`: exit 132, a
    /// backtrace, the temporary file left. Now: exit 1 naming the file, the earlier file as it was,
    /// no temporary file.
    @Test func aWriteThatFailsIsAnErrorNotATrap() throws {
        let dir = try PredictFixture.temporaryDirectory()
        let models = try PredictFixture.modelsFolder(for: [PredictFixture.patientA], in: dir)
        let data = dir.appendingPathComponent("p_a.csv")
        try Data(PredictFixture.csv(PredictFixture.log(PredictFixture.patientA, days: 2)).utf8).write(to: data)
        let out = dir.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let target = out.appendingPathComponent("p.csv")
        try Data("earlier\n".utf8).write(to: target)
        let exe = try #require(Self.executable("glucomodel-predict"))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "ulimit -f 20; trap '' XFSZ; exec \"$0\" \"$@\"", exe.path,
                             "predict", data.path, "--models", models.path, "--from", "2000-01-01T00:00", "--out", target.path]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 1, "\(stderr)")
        #expect(stderr.contains("\(target.path): error: cannot write the file"), "\(stderr)")
        #expect(try String(contentsOf: target, encoding: .utf8) == "earlier\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path) == ["p.csv"])
    }

    /// A refusal is not a success: settings without an ISF make `dose` refuse (3).
    @Test func refusedDoseIs3() throws {
        let (_, data, settings) = try Self.doseFiles(#"{"patient": "p_a", "carbRatio": 10, "target": 110, "suspendThreshold": 70, "maxBolus": 10}"#)
        let r = try Self.run("glucomodel-predict", ["dose", "--patient", "p_a", "--data", data.path, "--settings", settings.path,
                                                    "--carbs", "30"])
        #expect(r.status == 3)
    }

    /// A CGM-only export (glucose and meals, no insulin record) is refused (3, `no_insulin_records`)
    /// unless `--insulin-on-board` states what is on board; stated beside insulin records it is
    /// refused too, and with `--audit` it is a usage error (64).
    @Test func cgmOnlyDataNeedsTheInsulinOnBoardStated() throws {
        let json = #"{"patient": "p_a", "carbRatio": 10, "insulinSensitivity": 40, "target": 110, "suspendThreshold": 70, "maxBolus": 10}"#
        let (dir, withInsulin, settings) = try Self.doseFiles(json)
        let cgmOnly = dir.appendingPathComponent("p_a-cgm.csv")
        try Data(PredictFixture.csv(PredictFixture.log(PredictFixture.patientA, days: 1, insulin: false)).utf8).write(to: cgmOnly)
        let common = ["dose", "--patient", "p_a", "--settings", settings.path, "--carbs", "30", "--format", "json"]
        let out = dir.appendingPathComponent("out.json")
        var r = try Self.run("glucomodel-predict", common + ["--data", cgmOnly.path], stdout: out)
        var printed = try String(contentsOf: out, encoding: .utf8)
        #expect(r.status == 3 && printed.contains("\"no_insulin_records\""), "\(printed) \(r.stderr)")
        r = try Self.run("glucomodel-predict", common + ["--data", cgmOnly.path, "--insulin-on-board", "1.5"], stdout: out)
        printed = try String(contentsOf: out, encoding: .utf8)
        #expect(r.status == 0 && printed.contains("\"stated_iob\"") && printed.contains("\"net_iob_units\" : 1.5"),
                "\(printed) \(r.stderr)")
        r = try Self.run("glucomodel-predict", common + ["--data", withInsulin.path, "--insulin-on-board", "0"], stdout: out)
        printed = try String(contentsOf: out, encoding: .utf8)
        #expect(r.status == 3 && printed.contains("\"stated_iob_with_records\""), "\(printed) \(r.stderr)")
        r = try Self.run("glucomodel-predict", ["dose", "--patient", "p_a", "--data", cgmOnly.path, "--settings", settings.path,
                                                "--audit", "--insulin-on-board", "0"])
        #expect(r.status == 64 && r.stderr.contains("--insulin-on-board goes with a suggestion, not --audit"), "\(r.stderr)")
    }

    /// Hunt E (stop 51): without `--at`, "now" was the newest glucose reading, so a 5 U bolus logged
    /// a minute after it was left out and the same 60 g asked again got 7.40 U (2.40 U with it:
    /// 60/10 + (180-110)/50 = 7.4, less 5 U given a minute before). Now the newest record is "now",
    /// and a moment long before this machine's clock is noted.
    @Test func doseWithoutAtIsAtTheNewestRecord() throws {
        let json = #"{"patient": "p_n", "carbRatio": 10, "insulinSensitivity": 50, "target": 110, "suspendThreshold": 70, "maxBolus": 10}"#
        let dir = try PredictFixture.temporaryDirectory()
        let settings = dir.appendingPathComponent("p_n.json")
        try Data(json.utf8).write(to: settings)
        let data = dir.appendingPathComponent("p_n.csv")
        let readings = (0..<13).map { "p_n,2026-03-02T05:\(String(format: "%02d", $0 * 5)):00Z,glucose,180,mg/dL\n" }.joined()
        try Data(("patient,time,event,value,unit\n" + readings + "p_n,2026-03-02T06:00:00Z,glucose,180,mg/dL\n"
                  + "p_n,2026-03-02T06:01:00Z,carbs,60,g\np_n,2026-03-02T06:01:00Z,bolus,5,U\n").utf8).write(to: data)
        let out = dir.appendingPathComponent("out.json")
        let r = try Self.run("glucomodel-predict", ["dose", "--patient", "p_n", "--data", data.path, "--settings", settings.path,
                                                    "--carbs", "60", "--method", "formula", "--format", "json"], stdout: out)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: out)) as? [String: Any])
        #expect(r.status == 0 && object["at"] as? String == "2026-03-02T06:01:00Z", "\(object) \(r.stderr)")
        #expect(object["net_iob_units"] as? Double == 5 && object["units"] as? Double == 2.4, "\(object)")
        #expect(r.stderr.contains("note: no --at: the suggestion is for the data's newest record, 2026-03-02T06:01:00Z"), "\(r.stderr)")
    }

    /// Audit 39: settings that `settings` and `dose --audit` cannot work with (a setting outside
    /// its limits, another patient's file) exited 64 and printed the usage, as a wrong command line
    /// does. They are bad input: 1, the file and every problem named, no usage. `dose` refuses (3).
    @Test func unusableSettingsAreBadInputNotAUsageError() throws {
        let cases = [
            (#"{"patient": "p_a", "carbRatio": 10, "insulinSensitivity": 2.2, "target": 110, "suspendThreshold": 70, "maxBolus": 10}"#,
             "settings not usable: setting 'insulinSensitivity' = 2.2 is outside the plausible limits 10.0-500.0"),
            (#"{"patient": "p_b", "carbRatio": 10, "insulinSensitivity": 40, "target": 110, "suspendThreshold": 70, "maxBolus": 10}"#,
             "the settings belong to patient p_b, not to p_a whose data this is"),
            (#"{"patient": "p_a", "carbRatio": 10, "insulinSensitivity": 40, "target": 110, "suspendThreshold": 70, "maxBolus": 10, "insulinPeakMinutes": 75, "insulinDurationMinutes": 6}"#,
             "settings not usable: setting 'insulinDurationMinutes' = 6.0 is outside the plausible limits 180.0-1440.0 (it looks like hours")]
        for (json, problem) in cases {
            let (_, data, settings) = try Self.doseFiles(json)
            let common = ["--patient", "p_a", "--data", data.path, "--settings", settings.path]
            for command in [["settings"], ["dose", "--audit"]] {
                let r = try Self.run("glucomodel-predict", command + common)
                #expect(r.status == 1 && r.stderr.contains("\(settings.path): error: \(problem)") && !r.stderr.contains("Usage"),
                        "\(command): \(r.stderr)")
            }
            #expect(try Self.run("glucomodel-predict", ["dose"] + common + ["--carbs", "30"]).status == 3)
        }
    }

    /// Hunt BW: `metrics` counted finger sticks as CGM readings (75 confirming lows moved time below
    /// 54 from 1.8 to 3.4%). Its output is now the same with a patient's meter readings or without
    /// them, even one after the last CGM reading; a patient with meter readings alone gets no
    /// metrics and a warning that says why (exit 2).
    @Test func metricsCountsCGMReadingsOnly() throws {
        let dir = ScratchSpace.root.appendingPathComponent("metrics-meter-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let cgm = dir.appendingPathComponent("p_a.csv"), meter = dir.appendingPathComponent("p_a-meter.csv")
        let alone = dir.appendingPathComponent("p_m.csv")
        try Data(PredictFixture.csv(PredictFixture.log(PredictFixture.patientA, days: 2)).utf8).write(to: cgm)
        let header = "patient,time,event,value,unit,duration,type\n"
        try Data((header + "p_a,2026-01-05T08:02:00Z,glucose,45,mg/dL,,finger\np_a,2026-01-05T14:02:00Z,glucose,320,mg/dL,,finger\n"
                  + "p_a,2026-01-07T01:00:00Z,glucose,40,mg/dL,,finger\n").utf8).write(to: meter)
        try Data((header + "p_m,2026-01-05T08:02:00Z,glucose,45,mg/dL,,finger\np_m,2026-01-05T09:02:00Z,glucose,50,mg/dL,,finger\n").utf8)
            .write(to: alone)
        let without = dir.appendingPathComponent("without.csv"), with = dir.appendingPathComponent("with.csv")
        let a = try Self.run("glucomodel-predict", ["metrics", cgm.path, "--format", "csv", "--time-zone", "UTC"], stdout: without)
        let b = try Self.run("glucomodel-predict", ["metrics", cgm.path, meter.path, alone.path, "--format", "csv", "--time-zone", "UTC"],
                             stdout: with)
        #expect(a.status == 0, "\(a.stderr)")
        #expect(b.status == 2 && b.stderr.contains("p_m: no CGM readings, only 2 finger-stick readings, which the CGM metrics do not count; no metrics"),
                "\(b.stderr)")
        #expect(try String(contentsOf: with, encoding: .utf8) == String(contentsOf: without, encoding: .utf8))
        let only = try Self.run("glucomodel-predict", ["metrics", alone.path, "--time-zone", "UTC"])
        #expect(only.status == 1 && only.stderr.contains("no patient has CGM readings"), "\(only.stderr)")
    }

    /// Before: `--carbs nan` reached the advisor and the JSON encoder failed (exit 1, no JSON);
    /// data without a glucose reading was a usage error (64); a misspelt limit was ignored.
    @Test func doseRefusesNonNumberCarbsDataWithoutGlucoseAndUnknownSettings() throws {
        let good = #"{"patient": "p_a", "carbRatio": 10, "insulinSensitivity": 40, "target": 110, "suspendThreshold": 70, "maxBolus": 10}"#
        let (dir, data, settings) = try Self.doseFiles(good)
        for carbs in ["nan", "inf"] {
            let r = try Self.run("glucomodel-predict", ["dose", "--patient", "p_a", "--data", data.path, "--settings", settings.path,
                                                        "--carbs", carbs, "--format", "json"])
            #expect(r.status == 64 && r.stderr.contains("The value '\(carbs)' is invalid for '--carbs <carbs>': expected a decimal number"),
                    "\(carbs): \(r.stderr)")
        }
        let noGlucose = dir.appendingPathComponent("p_a-insulin.csv")
        try Data("patient,time,event,value,unit\np_a,2026-01-05T08:00:00Z,bolus,2,U\n".utf8).write(to: noGlucose)
        var r = try Self.run("glucomodel-predict", ["dose", "--patient", "p_a", "--data", noGlucose.path, "--settings", settings.path,
                                                    "--carbs", "30"])
        #expect(r.status == 1 && r.stderr.contains("p_a: no glucose readings"), "\(r.stderr)")
        let typo = dir.appendingPathComponent("typo.json")
        try Data(good.replacingOccurrences(of: "}", with: #", "maxInsulinOnboard": 0}"#).utf8).write(to: typo)
        r = try Self.run("glucomodel-predict", ["dose", "--patient", "p_a", "--data", data.path, "--settings", typo.path, "--carbs", "30"])
        #expect(r.status == 1 && r.stderr.contains("typo.json") && r.stderr.contains("did you mean 'maxInsulinOnBoard'?"), "\(r.stderr)")
    }

    /// `--carbs-time`: carbohydrates eaten 20 minutes before the ask are in the JSON as eaten then;
    /// a time after `--at` is refused (3) with its reason.
    @Test func doseCarbsTimeIsUsedOrRefused() throws {
        let (dir, data, settings) = try Self.doseFiles(#"{"patient": "p_a", "carbRatio": 10, "insulinSensitivity": 40, "target": 110, "suspendThreshold": 70, "maxBolus": 10}"#)
        let common = ["dose", "--patient", "p_a", "--data", data.path, "--settings", settings.path, "--carbs", "30",
                      "--at", "2026-01-05T23:55:00Z", "--format", "json"]
        let out = dir.appendingPathComponent("out.json")
        #expect(try Self.run("glucomodel-predict", common + ["--carbs-time", "2026-01-05T23:35:00Z"], stdout: out).status == 0)
        #expect(try String(contentsOf: out, encoding: .utf8).contains(#""carbs_time" : "2026-01-05T23:35:00Z""#))
        #expect(try Self.run("glucomodel-predict", common + ["--carbs-time", "2026-01-06T00:10:00Z"], stdout: out).status == 3)
        #expect(try String(contentsOf: out, encoding: .utf8).contains("invalid_carbs_time"))
    }

    /// `settings` writes the suggestion beside the current file and never over it; `dose
    /// --settings-from-data` doses with it. The person's carb ratio is 10 g/U; the file says 14, so
    /// one run suggests the bounded step 14 x 0.8 = 11.2.
    @Test func settingsSuggestionIsWrittenBesideTheCurrentFileAndUsedOnlyWhenAsked() throws {
        let dir = try PredictFixture.temporaryDirectory()
        let data = dir.appendingPathComponent("known.csv")
        try Data(PredictFixture.csv(KnownPerson().log()).utf8).write(to: data)
        var current = KnownPerson().settings
        current.carbRatio = 14
        let settings = dir.appendingPathComponent("settings.json")
        try Data(try current.jsonText().utf8).write(to: settings)
        let out = dir.appendingPathComponent("suggested.json")
        let common = ["--patient", "known", "--data", data.path, "--settings", settings.path, "--time-zone", "UTC"]
        #expect(try Self.run("glucomodel-predict", ["settings"] + common + ["--out", out.path]).status == 0)
        #expect(try DoseSettings.load(out).carbRatio == 11.2)
        let over = try Self.run("glucomodel-predict", ["settings"] + common + ["--out", dir.path + "/./settings.json"])
        #expect(over.status != 0 && over.stderr.contains("refusing to write over the current settings file"))
        #expect(try DoseSettings.load(settings) == current)
        let plain = try Self.run("glucomodel-predict", ["dose"] + common + ["--carbs", "50"])
        #expect(plain.status == 0 && !plain.stderr.contains("settings from data"))
        let fromData = try Self.run("glucomodel-predict", ["dose"] + common + ["--carbs", "50", "--settings-from-data"])
        #expect(fromData.status == 0 && fromData.stderr.contains("carbRatio 14 -> 11.2 g/U"), "\(fromData.stderr)")
        // ... and the suggestion's own record says so (hunt Q, stop 53: a program keeping the JSON
        // could not tell the data's carb ratio from the clinician's).
        func reasons(_ extra: [String]) throws -> [String: String] {
            let file = dir.appendingPathComponent("dose-\(UUID().uuidString).json")
            #expect(try Self.run("glucomodel-predict", ["dose"] + common + ["--carbs", "50", "--format", "json"] + extra, stdout: file).status == 0)
            let object = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any]
            let list = object?["reasons"] as? [[String: Any]] ?? []
            return Dictionary(list.compactMap { r in (r["code"] as? String).map { ($0, r["message"] as? String ?? "") } }, uniquingKeysWith: { a, _ in a })
        }
        let noted = try reasons(["--settings-from-data"])["settings_from_data"]
        #expect(noted?.contains("not the settings file's") == true && noted?.contains("carbRatio 14 -> 11.2 g/U") == true, "\(noted ?? "none")")
        #expect(try reasons([])["settings_from_data"] == nil)
        // The basal schedule it doses with is named too (before: only the ratio and the sensitivity).
        let suggested = try DoseSettings.load(out)
        #expect(fromData.stderr.contains("basalSchedule \(BasalSchedule.Entry.describe(current.basalSchedule)) -> "
                                         + BasalSchedule.Entry.describe(suggested.basalSchedule)), "\(fromData.stderr)")
        #expect(BasalSchedule.Entry.describe([.init(start: "00:00", unitsPerHour: 0.8), .init(start: "06:00", unitsPerHour: 1.05)])
                == "00:00 0.8, 06:00 1.05 U/h")
    }

    /// `import-data --forget`: 0 when forgotten (then the file imports again), 1 for a file the store
    /// never imported, 64 with an import option, 75 while nightly holds the store's lock.
    @Test func forgettingAnImport() throws {
        let dir = try PredictFixture.temporaryDirectory()
        let store = dir.appendingPathComponent("s.sqlite").path, file = dir.appendingPathComponent("local.csv")
        try Data("patient,time,event,value,unit\np1,2026-01-05 08:00,glucose,120,mg/dL\n".utf8).write(to: file)
        let out = dir.appendingPathComponent("out.txt")
        #expect(try Self.run("glucomodel-train", ["import-data", file.path, "--store", store, "--patient", "p_wrong", "--time-zone", "UTC"]).status == 0)
        let again = try Self.run("glucomodel-train", ["import-data", file.path, "--store", store, "--patient", "p1"], stdout: out)
        #expect(again.status == 0)
        #expect(try String(contentsOf: out, encoding: .utf8).contains("forget that import first: import-data --forget \(file.path) --store \(store)"))
        #expect(try Self.run("glucomodel-train", ["import-data", file.path, "--store", store, "--forget", "--patient", "p1"]).status == 64)
        let other = dir.appendingPathComponent("other.csv")
        try Data("patient,time,event,value,unit\np1,2026-01-06 08:00,glucose,120,mg/dL\n".utf8).write(to: other)
        let never = try Self.run("glucomodel-train", ["import-data", other.path, "--store", store, "--forget"])
        #expect(never.status == 1 && never.stderr.contains("no import of this file's content in the store"), "\(never.stderr)")
        let lock = try StoreLock(storePath: store)
        #expect(try Self.run("glucomodel-train", ["import-data", file.path, "--store", store, "--forget"]).status == 75)
        // An import takes the lock too (two imports, or an import beside a night, failed with a raw
        // "SQLite error 5: database is locked", exit 1).
        let busy = try Self.run("glucomodel-train", ["import-data", other.path, "--store", store])
        #expect(busy.status == 75 && busy.stderr.contains("\(store).lock is locked: another run is using this store"), "\(busy.stderr)")
        lock.release()
        let forgot = try Self.run("glucomodel-train", ["import-data", file.path, "--store", store, "--forget"], stdout: out)
        #expect(forgot.status == 0)
        #expect(try String(contentsOf: out, encoding: .utf8).contains("forgot import run 1 (patient p_wrong): 1 record removed; patient p_wrong removed"))
        #expect(try Self.run("glucomodel-train", ["import-data", file.path, "--store", store, "--patient", "p1", "--time-zone", "Europe/Madrid"]).status == 0)
        #expect(try PatientStore(path: store).log(for: PatientID("p1")).glucose.map(\.time) == [Fixture.date("2026-01-05T07:00:00Z")])
    }
}
