import Foundation
import Testing
@testable import GlucoModel

/// Job-array sharding: task ids to shards, the recorded split, which files a shard reads, and
/// what `collect` finds missing. Expected values are worked out by hand in the comments.
@Suite struct ShardTests {
    @Test func taskIDsMapModuloTheCount() throws {
        // 0-based array 0-2 and 1-based array 1-3 for 3 shards: shards {0,1,2} either way (3 mod 3 = 0).
        #expect(try (0...2).map { try Shard(task: $0, count: 3).index } == [0, 1, 2])
        #expect(try (1...3).map { try Shard(task: $0, count: 3).index } == [1, 2, 0])
        // Resubmitting task 1 alone keeps shard 1 of 3 (the count is not the resubmitted array's size).
        #expect(try Shard(task: 1, count: 3) == Shard("1/3"))
        #expect(throws: Shard.ParseError.self) { try Shard(task: -1, count: 3) }
        #expect(throws: Shard.ParseError.self) { try Shard(task: 0, count: 0) }
    }

    @Test func arrayTaskFromTheEnvironment() throws {
        let slurm = try #require(try ArrayTask(environment: [
            "SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "3", "SLURM_ARRAY_TASK_COUNT": "3",
        ]))
        #expect(slurm == ArrayTask(id: 3, minID: 1, maxID: 3, taskCount: 3, source: "SLURM_ARRAY_TASK_ID"))
        #expect(try slurm.countFromArray() == 3)
        #expect(try slurm.shard(count: 3) == Shard("0/3"))
        let k8s = try #require(try ArrayTask(environment: ["JOB_COMPLETION_INDEX": "2"]))
        #expect(k8s.id == 2 && k8s.taskCount == nil)
        #expect(throws: ArrayTask.TaskError.self) { try k8s.countFromArray() }
        #expect(try ArrayTask(environment: ["HOME": "/root"]) == nil)
        #expect(throws: ArrayTask.TaskError.notANumber(variable: "SLURM_ARRAY_TASK_ID", value: "x")) {
            try ArrayTask(environment: ["SLURM_ARRAY_TASK_ID": "x"])
        }
    }

    @Test func arraysThatWouldTrainAShardTwiceAreRefused() throws {
        // --array=0-16 with 16 shards: ids 0 and 16 are both shard 0.
        let wide = ArrayTask(id: 5, minID: 0, maxID: 16, taskCount: 17, source: "SLURM_ARRAY_TASK_ID")
        #expect(throws: ArrayTask.TaskError.spansMoreThanShards(minID: 0, maxID: 16, shards: 16)) { try wide.shard(count: 16) }
        // --array=1-16 with 16 shards spans 16 numbers: fine.
        #expect(try ArrayTask(id: 16, minID: 1, maxID: 16, taskCount: 16, source: "t").shard(count: 16) == Shard("0/16"))
        // A first submission with gaps (--array=0,2) cannot say how many shards there are.
        let gaps = ArrayTask(id: 2, minID: 0, maxID: 2, taskCount: 2, source: "SLURM_ARRAY_TASK_ID")
        #expect(throws: ArrayTask.TaskError.self) { try gaps.countFromArray() }
    }

    @Test func theFirstTaskRecordsTheSplitAndLaterOnesKeepIt() throws {
        let out = temporaryFolder("ledger")
        defer { try? FileManager.default.removeItem(at: out) }
        let first = ArrayTask(id: 0, minID: 0, maxID: 2, taskCount: 3, source: "SLURM_ARRAY_TASK_ID")
        #expect(try ShardRequest.array(task: first, count: nil).resolve(output: out) == Shard("0/3"))
        #expect(try ShardLedger.recordedCount(in: out) == 3)
        // Resubmitting task 2 alone (--array=2: an array of one task): still shard 2 of 3.
        let again = ArrayTask(id: 2, minID: 2, maxID: 2, taskCount: 1, source: "SLURM_ARRAY_TASK_ID")
        #expect(try ShardRequest.array(task: again, count: nil).resolve(output: out) == Shard("2/3"))
        // Asking for another count in the same folder is refused, naming the recorded one.
        #expect(throws: ShardLedger.LedgerError.self) { try ShardRequest.array(task: again, count: 4).resolve(output: out) }
        #expect(throws: ShardLedger.LedgerError.self) { try ShardRequest.fixed(Shard("1/2")).resolve(output: out) }
        #expect(try ShardRequest.whole.resolve(output: out) == nil)
        // Many tasks recording at once: all agree on the one count.
        let racing = temporaryFolder("ledger-race")
        defer { try? FileManager.default.removeItem(at: racing) }
        DispatchQueue.concurrentPerform(iterations: 8) { _ in try? ShardLedger.settle(5, in: racing) }
        #expect(try ShardLedger.recordedCount(in: racing) == 5)
        #expect(throws: ShardLedger.LedgerError.self) { try ShardLedger.settle(6, in: racing) }
    }

    /// Writes `text` to `name` in `folder`.
    static func write(_ name: String, _ text: String, in folder: URL) throws -> URL {
        let url = folder.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    @Test func aShardReadsOnlyItsPatientsFilesAndKeepsAPatientsFilesTogether() throws {
        let folder = temporaryFolder("shard-files")
        defer { try? FileManager.default.removeItem(at: folder) }
        func write(_ name: String, _ text: String) throws -> URL { try Self.write(name, text, in: folder) }
        let csvHeader = "patient,time,event,value,unit\n"
        let files = [
            // "b" spans two files (training and testing); its id is in the XML attribute, not the name.
            try write("x1-ws-training.xml", "<?xml version=\"1.0\"?>\n<patient id=\"b\" weight=\"99\" insulin_type=\"x\">\n<glucose_level>\n</glucose_level>\n</patient>\n"),
            try write("x1-ws-testing.xml", "<patient weight='1' id='b'>\n<glucose_level>\n</glucose_level>\n</patient>\n"),
            // The first row's id is not valid, so the second row's (as the importer does) names the patient.
            try write("one.csv", csvHeader + "bad id,2026-01-05T08:00Z,glucose,100,mg/dL\nd,2026-01-05T08:05Z,glucose,101,mg/dL\n"),
            try write("two.csv", "# notes\n" + csvHeader + "a,2026-01-05T08:00Z,glucose,100,mg/dL\n"),
            try write("c.json", "[{\"type\": \"cbg\", \"time\": \"2026-01-05T08:00:00Z\", \"value\": 5.5, \"units\": \"mmol/L\"}]"),
            try write("broken.xml", "<patient>\n<glucose_level>\n"),
        ]
        let options = ImportOptions(timeZone: TimeZone(identifier: "UTC")!)
        #expect(try PatientIDScan.patient(of: files[0], options: options).rawValue == "b")
        #expect(try PatientIDScan.patient(of: files[1], options: options).rawValue == "b")
        #expect(try PatientIDScan.patient(of: files[2], options: options).rawValue == "d")
        #expect(try PatientIDScan.patient(of: files[3], options: options).rawValue == "a")
        #expect(try PatientIDScan.patient(of: files[4], options: options).rawValue == "c")
        #expect(throws: InputError.self) { try PatientIDScan.patient(of: files[5], options: options) }
        // Sorted groups: a, b, c, d, then the unreadable file; dealt to 2 shards: {a, c, broken}, {b, d}.
        let zero = CohortShardFiles(files, shard: try Shard("0/2"), options: options)
        let one = CohortShardFiles(files, shard: try Shard("1/2"), options: options)
        #expect(zero.patients.map(\.rawValue) == ["a", "c"])
        #expect(zero.files.map(\.lastPathComponent) == ["broken.xml", "c.json", "two.csv"])
        #expect(one.patients.map(\.rawValue) == ["b", "d"])
        #expect(one.files.map(\.lastPathComponent) == ["one.csv", "x1-ws-testing.xml", "x1-ws-training.xml"])
        #expect(zero.cohortPatients == 4 && one.cohortPatients == 4)
    }

    @Test func theScanNamesThePatientTheImporterDoes() throws {
        // Every export fixture, and a Clarity file named after its patient (whose names the
        // preamble gives, to be removed): the scan's id must be the import's.
        let dir = temporaryFolder("scan")
        defer { try? FileManager.default.removeItem(at: dir) }
        let named = dir.appendingPathComponent("Clarity_Export_Quintanilla_Jacinta_2026-11-20.csv")
        try FileManager.default.copyItem(at: ExportFixtures.url("dexcom_madrid_dst.csv"), to: named)
        let fixtures = try FileManager.default.contentsOfDirectory(at: ExportFixtures.url(""), includingPropertiesForKeys: nil)
        let ohio = try FileManager.default.contentsOfDirectory(at: Fixture.url("ohio"), includingPropertiesForKeys: nil)
            + FileManager.default.contentsOfDirectory(at: Fixture.url("csv"), includingPropertiesForKeys: nil)
        let options = ExportFixtures.options("Europe/Madrid")
        var compared = 0
        for url in [named] + fixtures + ohio {
            guard let imported = try? ImportFormats.importFile(at: url, options: options) else { continue }
            #expect(try PatientIDScan.patient(of: url, options: options) == imported.log.patient, "\(url.lastPathComponent)")
            compared += 1
        }
        #expect(compared >= 10)
        #expect(try PatientIDScan.patient(of: named, options: options).rawValue == "Clarity_Export_2026-11-20")
        // A LibreView export under the name LibreView gives it, its title line naming the person: the
        // scan refuses it as the import does (the review: the scan took the name as the id).
        let libre = dir.appendingPathComponent("JacintaQuintanilla_glucose_20-1-2026.csv")
        try FileManager.default.copyItem(at: ExportFixtures.url("libre_us_mgdl.csv"), to: libre)
        #expect(throws: InputError.self) { try PatientIDScan.patient(of: libre, options: options) }
        #expect(throws: InputError.self) { try ImportFormats.importFile(at: libre, options: options) }
    }

    @Test func aShardOfFilesOrOfAStoreReadsOnlyItsPatients() throws {
        let dir = temporaryFolder("pick")
        defer { try? FileManager.default.removeItem(at: dir) }
        let options = ImportOptions(timeZone: TimeZone(identifier: "UTC")!, now: Fixture.date("2027-01-01T00:00:00Z"))
        let store = try PatientStore(path: dir.appendingPathComponent("cohort.sqlite").path)
        for id in ["c", "a", "b"] {
            let url = dir.appendingPathComponent("\(id).csv")
            try "patient,time,event,value,unit\n\(id),2026-01-05T08:00Z,glucose,100,mg/dL\n".write(to: url, atomically: true, encoding: .utf8)
            _ = try store.importFile(url, importer: LogCSVImporter(), options: options)
        }
        // Sorted a, b, c: shard 0/2 is {a, c}, shard 1/2 is {b}.
        let files = try ShardPick(ExportFiles(paths: [dir.path], options: options), shard: Shard("0/2"))
        #expect(files.patients.map(\.rawValue) == ["a", "c"] && files.cohortPatients == 3)
        #expect(try files.load().loaded.patients.map(\.patient.rawValue) == ["a", "c"])
        let stored = try ShardPick(StoreSource(path: dir.appendingPathComponent("cohort.sqlite").path), shard: Shard("1/2"))
        #expect(stored.patients.map(\.rawValue) == ["b"] && stored.cohortPatients == 3)
        #expect(try stored.load().loaded.patients.map(\.patient.rawValue) == ["b"])
        #expect(throws: InputError.self) { try ShardPick(ExportFiles(paths: [temporaryFolder("empty").path], options: options), shard: .whole) }
    }

    @Test func aFileHoldingSeveralPatientsGoesToOneShardWithTheirOtherFiles() throws {
        // Hunt AP: GluPredKit's one-file layout (every patient in one mapped CSV) in a job array. The
        // scan's "a second patient" error was dropped and the file made a group of its own: shard 0
        // refused both patients ("no patient id found ... pass the patient option"), and where pb also
        // had a file of its own, shard 1 trained pb from that file alone, exit 0.
        let dir = temporaryFolder("shard-multi")
        defer { try? FileManager.default.removeItem(at: dir) }
        func write(_ name: String, _ text: String) throws -> URL { try Self.write(name, text, in: dir) }
        let header = "date,id,CGM\n"
        let files = [
            // Rows whose id is missing (NA, nan: the importer skips them) name no patient (the review:
            // "NA" was a patient, joining every file that held one).
            try write("all.csv", header + "2026-01-05 08:00,pb,100\n2026-01-05 08:05,pb,101\n2026-01-05 08:00,pa,120\n2026-01-05 08:00,pd,90\n"
                      + "2026-01-05 08:10,NA,95\n"),
            try write("more-pb.csv", header + "2026-01-06 08:00,pb,110\n" + header + "2026-01-06 08:05,pb,111\n"),
            try write("pc.csv", header + "2026-01-05 08:00,pc,100\n2026-01-05 08:05,na,100\n"),
            try write("pe.csv", header + "2026-01-05 08:00,nan,100\n2026-01-05 08:05,pe,100\n"),
        ]
        var options = ImportOptions(timeZone: TimeZone(identifier: "UTC")!)
        options.columns = try CSVColumnMapping(parsing: "time=date,patient=id,glucose=CGM")
        #expect(try PatientIDScan.patients(of: files[0], options: options).map(\.rawValue) == ["pb", "pa", "pd"])
        #expect(throws: InputError.self) { try PatientIDScan.patient(of: files[0], options: options) }
        // Groups, by smallest id: {pa, pb, pd} (all.csv, more-pb.csv), {pc}, {pe}; 2 shards: {pa.., pe}, {pc}.
        let zero = CohortShardFiles(files, shard: try Shard("0/2"), options: options)
        let one = CohortShardFiles(files, shard: try Shard("1/2"), options: options)
        #expect(zero.files.map(\.lastPathComponent) == ["all.csv", "more-pb.csv", "pe.csv"])
        #expect(zero.patients.map(\.rawValue) == ["pa", "pb", "pd", "pe"])
        #expect(one.files.map(\.lastPathComponent) == ["pc.csv"] && one.patients.map(\.rawValue) == ["pc"])
        #expect(zero.cohortPatients == 5 && one.cohortPatients == 5)
        // The shard reads them all, each patient from every file of theirs.
        let picked = try ShardPick(ExportFiles(paths: [dir.path], options: options), shard: Shard("0/2")).load()
        #expect(picked.failures.isEmpty, "\(picked.failures)")
        #expect(picked.loaded.patients.map(\.patient.rawValue).sorted() == ["pa", "pb", "pd", "pe"])
        #expect(picked.loaded.patients.first { $0.patient.rawValue == "pb" }?.log.glucose.count == 4)
        // The order files are scanned in does not change the groups.
        let reversed = CohortShardFiles(files.reversed(), shard: try Shard("0/2"), options: options)
        #expect(reversed.files == zero.files && reversed.patients == zero.patients)
    }

    @Test func aFileWhoseImportNamesAnotherPatientIsAFailureNotTrainedHere() throws {
        let file = "/data/p.csv"
        var shard = CohortShardFiles([], shard: .whole, options: ImportOptions())
        shard.patients = [try PatientID("a"), try PatientID("b")]
        shard.scanned = [file: [try PatientID("a")]]
        let loaded = PatientData(patient: try PatientID("b"), log: PatientLog(patient: try PatientID("b")), testStart: nil, files: [file])
        let fine = PatientData(patient: try PatientID("a"), log: PatientLog(patient: try PatientID("a")), testStart: nil, files: [])
        let checked = shard.check([loaded, fine])
        #expect(checked.patients.map(\.patient.rawValue) == ["a"])
        #expect(checked.failures.count == 1 && checked.failures[0].message.contains("name patient 'a' but its import gives 'b'"))
    }

    @Test func collectFindsMissingShardsFailuresAndModels() throws {
        let out = temporaryFolder("completeness")
        defer { try? FileManager.default.removeItem(at: out) }
        #expect(try CohortCompleteness.check(out).isComplete)  // unsharded: nothing to check
        try ShardLedger.settle(3, in: out)
        let a = try PatientID("a"), b = try PatientID("b")
        // Shard 0 finished with a failure for b; shard 1 started and never finished; shard 2 never reported.
        try ShardLedger.write(ShardReport(shard: Shard("0/3"), patients: [a, b], horizons: [30],
                                          failures: [.init(subject: "b", message: "too few days")], finished: true), in: out)
        try ShardLedger.write(ShardReport(shard: Shard("1/3"), patients: [], horizons: [30]), in: out)
        let c = try CohortCompleteness.check(out)
        #expect(c.shardCount == 3)
        #expect(c.missingShards == [2])
        #expect(c.unfinishedShards == [1])
        #expect(c.failures == ["shard 0/3: b: too few days"])
        #expect(c.missingModels.map { "\($0.patient) \($0.horizon)" } == ["a 30", "b 30"])
        #expect(!c.isComplete)
        #expect(c.lines.contains("missing: a at 30 min"))
    }

    /// A model file of patient `p` at `h` minutes in `files`' models folder, with `generations` and the `settings` fingerprint.
    static func writeModel(_ p: PatientID, _ h: Int, generations: Int, settings: String, in files: CohortRunSettings) throws {
        var m = ModelFileValidationTests.model()
        m.patient = p; m.horizonMinutes = h; m.features = FeatureSet(horizonMinutes: h)
        m.evolution.generations = generations; m.settings = settings
        try FileManager.default.createDirectory(at: files.modelURL(p, h).deletingLastPathComponent(), withIntermediateDirectories: true)
        try m.write(to: files.modelURL(p, h))
    }

    @Test func collectNamesUnreadableAndMixedModelsOfAnUnshardedRun() throws {
        // Before: collect (and train's rebuild of results.csv) left a model file cut short out of
        // results.csv without a word, and mixed two experiments' models in one table, exit 0.
        let out = temporaryFolder("unsharded-check")
        defer { try? FileManager.default.removeItem(at: out) }
        let files = CohortRunSettings(output: out)
        let a = try PatientID("a"), b = try PatientID("b")
        func write(_ p: PatientID, _ h: Int, generations: Int, settings: String) throws {
            try Self.writeModel(p, h, generations: generations, settings: settings, in: files)
        }
        for p in [a, b] { try write(p, 30, generations: 100, settings: "s100") }
        #expect(try CohortCompleteness.check(out).isComplete)
        let cut = try Data(contentsOf: files.modelURL(b, 30))
        try cut.prefix(cut.count / 2).write(to: files.modelURL(b, 30))
        let check = try CohortCompleteness.check(out)
        #expect(check.shardCount == nil && !check.isComplete)
        #expect(check.unreadableModels.count == 1 && check.unreadableModels[0].hasPrefix(files.modelURL(b, 30).path + ": malformed model file"))
        #expect(check.otherOptions.isEmpty)
        #expect(check.lines.first == "not in results.csv: " + check.unreadableModels[0])
        #expect(check.closingLine == "incomplete, 1 model file unreadable")
        // With b whole again and a 60-minute model of another run, two models share options and the third is named.
        try write(b, 30, generations: 100, settings: "s100")
        try write(a, 60, generations: 20, settings: "s20")
        let mixed = try CohortCompleteness.check(out)
        #expect(mixed.otherOptions.count == 1 && mixed.otherOptions[0].models.map { "\($0.patient) \($0.horizon)" } == ["a 60"])
        #expect(mixed.lines == ["trained with other options (an earlier run into this folder?): 1 model with "
                                + "\(mixed.otherOptions[0].options), the rest with \(mixed.commonOptions ?? ""): a at 60 min"])
        #expect(mixed.otherOptions[0].options.contains("20 generations") && mixed.commonOptions?.contains("100 generations") == true)
        #expect(mixed.closingLine == "incomplete, 1 model trained with other options")
        // Train names the models of its own run the cohort's, however few (hunt X: equal counts
        // named this run's models "an earlier run"'s).
        let afterRun = try CohortCompleteness.check(out, current: "s20")
        #expect(afterRun.commonOptions?.contains("20 generations") == true)
        #expect(afterRun.otherOptions.map { $0.models.map { "\($0.patient) \($0.horizon)" } } == [["a 30", "b 30"]])
        // Settings that differ where the file says nothing (--terms, say) read alike: the line says so.
        try write(b, 60, generations: 100, settings: "s100-terms1")
        let alike = try CohortCompleteness.check(out)
        let terms = try #require(alike.otherOptions.first { $0.models.map(\.horizon) == [60] && $0.models.first?.patient == b })
        #expect(terms.options.hasSuffix("(settings s100-terms1) (options a model file does not record, such as --terms, --keep-sensor-limits or whether --curves held the weights)"))
        #expect(alike.otherOptions.first { $0.options.contains("20 generations") }?.options.contains("does not record") == false)
        // The curves and the ridge a file does record are named.
        var ridged = ModelFileValidationTests.model()
        ridged.arx.ridge = 1e-5
        ridged.features = FeatureSet(horizonMinutes: 30, carbCurves: [.standard], insulinCurves: [])
        #expect(CohortCompleteness.options(of: ridged).hasSuffix("curves at several speeds, ARX ridge 1e-05"))
        #expect(CohortCompleteness.options(of: ModelFileValidationTests.model()).hasSuffix("grammar \(ridged.grammar.name), the series' own curves"))
    }

    /// Hunt R (stop 53): an unsharded run kept no record of the patients it could not train: the
    /// reasons went to standard error only, and `collect` said "16 patients", exit 0. Its run.json
    /// (a shard report's schema) now names them, as a sharded run's reports do.
    /// Hunt AK (stop 58): run.json and the shard reports carried no `version`, which docs/formats.md
    /// says every JSON file has. Written with it, keys as formats.md lists them; a report written
    /// before it (no `version`) still reads.
    @Test func theRunsAccountCarriesItsVersion() throws {
        let out = temporaryFolder("run-version")
        defer { try? FileManager.default.removeItem(at: out) }
        let report = ShardReport(shard: .whole, patients: [try PatientID("a")], horizons: [30], finished: true)
        try ShardLedger.writeRun(report, in: out)
        let data = try Data(contentsOf: out.appendingPathComponent("run.json"))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["version"] as? Int == 1)
        #expect(object.keys.sorted() == ["count", "failures", "finished", "horizons", "index", "patients", "version"])
        let old = #"{"count": 1, "failures": [], "finished": true, "horizons": [30], "index": 0, "patients": ["a"]}"#
        try Data(old.utf8).write(to: out.appendingPathComponent("run.json"))
        let read = try #require(ShardLedger.runReport(in: out))
        #expect(read.version == nil && read.patients == report.patients && read.finished)
    }

    @Test func collectNamesTheFailuresOfAnUnshardedRun() throws {
        let out = temporaryFolder("unsharded-run")
        defer { try? FileManager.default.removeItem(at: out) }
        let files = CohortRunSettings(output: out)
        let a = try PatientID("a"), b = try PatientID("b")
        for h in [30, 60] { try Self.writeModel(a, h, generations: 100, settings: "s100", in: files) }
        #expect(try CohortCompleteness.check(out).isComplete)
        var run = ShardReport(shard: .whole, patients: [a, b], horizons: [30, 60],
                              failures: [.init(subject: "b", message: "1.2 days of training data; at least 2.0 needed")], finished: false)
        try ShardLedger.writeRun(run, in: out)
        let running = try CohortCompleteness.check(out)
        #expect(running.unfinishedRun && running.shardCount == nil)
        #expect(running.lines == ["the last unsharded run into this folder did not finish (still running, or killed): run.json",
                                  "failed: b: 1.2 days of training data; at least 2.0 needed", "missing: b at 30, 60 min"])
        #expect(running.closingLine == "incomplete: 2 models missing, 1 failure, the run did not finish")
        run.finished = true
        try ShardLedger.writeRun(run, in: out)
        let done = try CohortCompleteness.check(out)
        #expect(!done.unfinishedRun && done.closingLine == "incomplete: 2 models missing, 1 failure")
        #expect(done.modelLines.isEmpty)
        // In a job array's folder (an unsharded run into it after the array, hunt U): the run's
        // failure of a patient still without a model counts; one trained since does not.
        try ShardLedger.settle(1, in: out)
        try ShardLedger.write(ShardReport(shard: Shard(uncheckedIndex: 0, count: 1), patients: [a], horizons: [30, 60], finished: true), in: out)
        let inArray = try CohortCompleteness.check(out)
        #expect(inArray.shardCount == 1 && inArray.failures == ["b: 1.2 days of training data; at least 2.0 needed"], "\(inArray.failures)")
        #expect(inArray.missingModels.map { "\($0.patient) \($0.horizon)" } == ["b 30", "b 60"])
        for h in [30, 60] { try Self.writeModel(b, h, generations: 100, settings: "s100", in: files) }
        #expect(try CohortCompleteness.check(out).isComplete)
        run.failures = []
        run.patients = [a]
        try ShardLedger.writeRun(run, in: out)
        #expect(try CohortCompleteness.check(out).isComplete)
    }

    @Test func aRunsAccountIsUnfinishedFromItsPatientsToItsEnd() throws {
        let out = temporaryFolder("run-account")
        defer { try? FileManager.default.removeItem(at: out) }
        let a = try PatientID("a"), b = try PatientID("b")
        let skipped = RunAccount.Failure(subject: "skipped file", message: "x.csv: line 3, field time: not a time")
        // Unsharded: run.json, and no shards/ folder.
        var whole = RunAccount(shard: nil, output: out, horizons: [30])
        whole.record([skipped])
        try whole.begin(patients: [a, b])
        #expect(ShardLedger.runReport(in: out) == ShardReport(shard: .whole, patients: [a, b], horizons: [30], failures: [skipped]))
        whole.record([.init(subject: "b", message: "too short")])
        try whole.finish()
        let ended = try #require(ShardLedger.runReport(in: out))
        #expect(ended.finished && ended.failures.map(\.subject) == ["skipped file", "b"])
        // A stop is a shard's only: an unsharded run's account stays as it was.
        whole.stopped(by: InputError(SourceLocation(file: "s.sqlite"), "cannot open"))
        #expect(ShardLedger.runReport(in: out) == ended)
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("shards").path))
        // A shard: its report, begun with its patients; stopped, finished with the stop alone.
        let shard = try Shard("1/2")
        var task = RunAccount(shard: shard, output: out, horizons: [30, 60])
        try task.begin(patients: [b])
        #expect(ShardLedger.reports(in: out, count: 2) == [1: ShardReport(shard: shard, patients: [b], horizons: [30, 60])])
        task.record([skipped])
        task.stopped(by: InputError(SourceLocation(file: "s.sqlite"), "cannot open"))
        let stopped = try #require(ShardLedger.reports(in: out, count: 2)[1])
        #expect(stopped.finished && stopped.patients == [b] && stopped.failures.map(\.subject) == ["task stopped"])
        #expect(stopped.failures.first?.message.contains("cannot open") == true)
    }

    @Test func collectFindsShardsRunWithOtherOptionsOrHorizons() throws {
        // Before: shard 1 resubmitted with --horizons 30 and other --generations left collect
        // saying nothing (exit 0): b had no 60-min model and its 30-min model was of another run.
        let out = temporaryFolder("mixed-options")
        defer { try? FileManager.default.removeItem(at: out) }
        try ShardLedger.settle(2, in: out)
        let a = try PatientID("a"), b = try PatientID("b"), c = try PatientID("c")
        try ShardLedger.write(ShardReport(shard: Shard("0/2"), patients: [a, c], horizons: [30, 60], finished: true), in: out)
        try ShardLedger.write(ShardReport(shard: Shard("1/2"), patients: [b], horizons: [30], finished: true), in: out)
        let files = CohortRunSettings(output: out)
        func write(_ p: PatientID, _ h: Int, generations: Int, settings: String) throws {
            try Self.writeModel(p, h, generations: generations, settings: settings, in: files)
        }
        for p in [a, c] { for h in [30, 60] { try write(p, h, generations: 100, settings: "s100") } }
        try write(b, 30, generations: 20, settings: "s20")
        let check = try CohortCompleteness.check(out)
        #expect(!check.isComplete)
        #expect(check.missingModels.map { "\($0.patient) \($0.horizon)" } == ["b 60"])
        #expect(check.otherOptions.count == 1 && check.otherOptions[0].models.map { "\($0.patient) \($0.horizon)" } == ["b 30"])
        let line = check.lines.first { $0.hasPrefix("trained with other options") } ?? ""
        #expect(line.contains("1 model with population 200, 20 generations") && line.contains("the rest with population 200, 100 generations")
                && line.hasSuffix(": b at 30 min"), "\(line)")
        // Every model alike and every horizon there: complete.
        try write(b, 30, generations: 100, settings: "s100")
        try write(b, 60, generations: 100, settings: "s100")
        #expect(try CohortCompleteness.check(out).isComplete)
    }
}
