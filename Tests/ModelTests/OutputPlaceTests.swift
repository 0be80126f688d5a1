import Foundation
import Testing
@testable import GlucoModel

/// Audit 41: where a command writes is checked before it does any work (`ReadFiles.check(outputFile:)`,
/// `check(outputFolder:writing:)`). Before, `predict --out` and `report --out` replaced a model file
/// they read (exit 0), `nightly --out` inside its inbox had the next night quarantine the night's
/// own files, and a folder, a missing folder or a read-only one was a Foundation error after the work.
@Suite(.serialized) struct OutputPlaceTests {
    static func message(_ body: () throws -> Void) -> String? {
        do { try body() } catch { return "\(error)" }
        return nil
    }

    @Test func aFileOutputIsRefusedOnAFolderAndOutsideAWritableFolder() throws {
        let dir = try PredictFixture.temporaryDirectory()
        let none = ReadFiles()
        #expect(Self.message { try none.check(outputFile: dir, option: "--out") } == "\(dir.path): error: is a folder; give --out a file name")
        let lost = dir.appendingPathComponent("nope/p.csv")
        #expect(Self.message { try none.check(outputFile: lost, option: "--out") }
                == "\(lost.path): error: the folder \(dir.path)/nope does not exist")
        let file = try OutputOverInputTests.file("f.csv", in: dir)
        let under = file.appendingPathComponent("p.csv")
        #expect(Self.message { try none.check(outputFile: under) } == "\(under.path): error: \(file.path) is a file, not a folder")
        try none.check(outputFile: dir.appendingPathComponent("new.csv"), option: "--out")
        try none.check(outputFile: file, option: "--out")
        // A folder this process may not write in (root writes in any folder but /proc/sys).
        let locked = getuid() == 0 ? URL(fileURLWithPath: "/proc/sys") : dir.appendingPathComponent("locked")
        if getuid() != 0 {
            try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: true)
            chmod(locked.path, 0o555)
        }
        if access(locked.path, W_OK) != 0 {
            let message = Self.message { try none.check(outputFile: locked.appendingPathComponent("p.csv"), option: "--out") }
            #expect(message?.contains("cannot write in \(locked.path): ") == true, "\(message ?? "nil")")
            let folder = Self.message { try none.check(outputFolder: locked.appendingPathComponent("a/b"), option: "--out-dir") }
            #expect(folder?.contains("cannot write in \(locked.path): ") == true, "\(folder ?? "nil")")
        }
    }

    @Test func aFolderOutputIsRefusedOnAFileAndOverWhatItReads() throws {
        let dir = try PredictFixture.temporaryDirectory()
        let data = try OutputOverInputTests.file("run/results.csv", in: dir)
        let read = ReadFiles([data.path], role: "the data file")
        // A file is no folder; a folder not made yet, with its parents, is fine.
        #expect(Self.message { try read.check(outputFolder: data, option: "--out-dir") }?.hasSuffix("refusing to write over the data file, which this command reads; give --out-dir another name") == true)
        let other = try OutputOverInputTests.file("other.txt", in: dir)
        #expect(Self.message { try read.check(outputFolder: other, option: "--out") } == "\(other.path): error: is a file, not a folder; give --out a folder")
        try read.check(outputFolder: dir.appendingPathComponent("a/b/c"), writing: ["results.csv"], option: "--out")
        // A name it writes in the folder that is a file read, however the folder is spelt.
        let link = dir.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: dir.appendingPathComponent("run"))
        for spelling in [dir.appendingPathComponent("run"), URL(fileURLWithPath: dir.path + "/run/../run/."), link] {
            let message = Self.message { try read.check(outputFolder: spelling, writing: ["models", "results.csv"], option: "--out") }
            #expect(message?.hasPrefix("\(spelling.appendingPathComponent("results.csv").path): error: refusing to write over the data file") == true
                    && message?.hasSuffix("which this command reads; give --out another name") == true, "\(spelling.path): \(message ?? "nil")")
        }
        try read.check(outputFolder: dir.appendingPathComponent("run"), writing: ["models", "config.json"], option: "--out")
    }

    /// A folder read whole (an inbox) takes no output inside it, and is inside none: it would be
    /// read as input the next time.
    @Test func nothingIsWrittenInsideAFolderReadWhole() throws {
        let dir = try PredictFixture.temporaryDirectory()
        let inbox = dir.appendingPathComponent("inbox"), link = dir.appendingPathComponent("box")
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: inbox)
        var read = ReadFiles()
        read.add(folder: link.path, role: "the inbox")
        for out in [inbox, URL(fileURLWithPath: inbox.path + "/./"), inbox.appendingPathComponent("new/deeper"),
                    URL(fileURLWithPath: inbox.path + "/x/.."), dir.appendingPathComponent("inbox/../inbox/n")] {
            let message = Self.message { try read.check(outputFolder: out, writing: ["2026-01-10", "quarantine"], option: "--out") }
            #expect(message?.contains("error: refusing to write inside the inbox \(link.path), every file of which this command reads; "
                                      + "give --out a folder outside it") == true, "\(out.path): \(message ?? "nil")")
        }
        // The inbox as one of the folders written, or inside one.
        var quarantine = ReadFiles()
        quarantine.add(folder: dir.appendingPathComponent("out/quarantine/new").path, role: "the inbox")
        let message = Self.message { try quarantine.check(outputFolder: dir.appendingPathComponent("out"), writing: ["2026-01-10", "quarantine"]) }
        #expect(message?.contains("refusing to write in a folder holding the inbox") == true, "\(message ?? "nil")")
        // Beside the inbox, or holding the folders written beside it: fine.
        try read.check(outputFolder: dir, writing: ["2026-01-10", "quarantine"], option: "--out")
        try read.check(outputFolder: dir.appendingPathComponent("out"), writing: ["2026-01-10", "quarantine"], option: "--out")
    }

    @Test func theModelFilesOfAFolderAreFilesRead() throws {
        let dir = try PredictFixture.temporaryDirectory()
        let models = try PredictFixture.modelsFolder(for: [PredictFixture.patientA], in: dir)
        let files = ModelSet.files(in: models)
        #expect(!files.isEmpty && files.allSatisfy { $0.hasPrefix(models.path + "/p_a/h") && $0.hasSuffix(".json") })
        // The trainer's --out folder names the same files.
        #expect(ModelSet.files(in: dir) == files)
        var read = ReadFiles()
        read.add(modelsIn: dir)
        let model = URL(fileURLWithPath: files[0])
        #expect(Self.message { try read.check(outputFile: URL(fileURLWithPath: dir.path + "/models/../models/p_a/" + model.lastPathComponent)) }?
            .contains("refusing to write over the model file \(model.path)") == true)
    }

    @Test func aStoreIsAFileInAFolderThatExists() throws {
        let dir = temporaryFolder("store-place")
        #expect(throws: StoreFileError.folder(dir.path)) { try PatientStore(path: dir.path) }
        let lost = dir.appendingPathComponent("nope/s.sqlite").path
        #expect(throws: StoreFileError.noFolder(lost, dir.appendingPathComponent("nope").path)) { try PatientStore(path: lost) }
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("nope").path))
    }

    /// Nightly checks where it writes before it takes the lock or imports a file: an `--out` in
    /// its inbox would have the next night quarantine (move) this night's files.
    @Test func nightlyNeverWritesInsideItsInbox() throws {
        let bench = try NightlyBench(patients: [PredictFixture.patientA])
        let before = try FileManager.default.contentsOfDirectory(atPath: bench.inbox.path)
        for out in [bench.inbox, bench.inbox.appendingPathComponent("nights")] {
            var settings = bench.scorer().settings
            settings.output = out
            let outcome = try NightlyScorer(settings: settings).run()
            #expect(outcome.exitCode == 1)
            #expect(outcome.summaryLine.contains("refusing to write inside the inbox \(bench.inbox.path)"), "\(outcome.summaryLine)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: bench.inbox.path) == before)
            #expect(!FileManager.default.fileExists(atPath: bench.store) && !FileManager.default.fileExists(atPath: bench.store + ".lock"))
        }
        // The inbox as the output's quarantine folder.
        var settings = bench.scorer().settings
        settings.output = bench.dir
        settings.inbox = bench.dir.appendingPathComponent("quarantine")
        try FileManager.default.createDirectory(at: settings.inbox, withIntermediateDirectories: true)
        let outcome = try NightlyScorer(settings: settings).run()
        #expect(outcome.exitCode == 1 && outcome.summaryLine.contains("refusing to write"), "\(outcome.summaryLine)")
        // A store that is a folder is the store's problem, not a locked store (75).
        settings = bench.scorer().settings
        settings.storePath = bench.inbox.path
        let folder = try NightlyScorer(settings: settings).run()
        #expect(folder.exitCode == 1 && folder.summaryLine.contains("a folder, not a store file"), "\(folder.summaryLine)")
        settings.storePath = bench.dir.appendingPathComponent("nope/s.sqlite").path
        let lost = try NightlyScorer(settings: settings).run()
        #expect(lost.exitCode == 1 && lost.summaryLine.contains("does not exist"), "\(lost.summaryLine)")
        // The night's folder among the patients' model folders (a patient without models to a report).
        settings = bench.scorer().settings
        settings.output = bench.models
        let models = try NightlyScorer(settings: settings).run()
        #expect(models.exitCode == 1 && models.summaryLine.contains("refusing to write inside the models folder \(bench.models.path)"),
                "\(models.summaryLine)")
        // Elsewhere, the night runs.
        #expect(try bench.scorer().run().exitCode == 0)
    }
}
