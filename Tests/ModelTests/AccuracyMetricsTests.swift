import Foundation
import Testing
@testable import GlucoModel

@Suite struct AccuracyMetricsTests {
    @Test func fourPairsByHand() {
        // Differences +10, -20, +10, 0. RMSE = sqrt((100 + 400 + 100 + 0) / 4) = sqrt(150);
        // MAE = 40/4 = 10; bias = 0; MARD = 100 * (0.1 + 0.1 + 0.2 + 0) / 4 = 10%.
        // Hypo (< 70): reference 50 with prediction 60 is TP; the other three are TN.
        let pairs = [(100.0, 110.0), (200, 180), (50, 60), (80, 80)].map { GlucosePair(reference: $0.0, prediction: $0.1) }
        let m = AccuracyMetrics(pairs: pairs + [GlucosePair(reference: .nan, prediction: 1)])
        #expect(m.count == 4 && m.unscored == 1)
        #expect(abs(m.rmse - 150.0.squareRoot()) < 1e-12)
        #expect(abs(m.mae - 10) < 1e-12)
        #expect(abs(m.meanBias) < 1e-12)
        #expect(abs(m.mard - 10) < 1e-12)
        #expect(m.hypo.truePositives == 1 && m.hypo.trueNegatives == 3)
        #expect(m.hypo.sensitivity == 1 && m.hypo.specificity == 1 && m.hypo.matthewsCorrelation == 1)
    }

    @Test func hypoDetectionByHand() {
        // refs 60, 65 hypo -> preds 65 (TP), 80 (FN); refs 100, 120, 90 -> preds 60 (FP), 130, 95 (TN, TN).
        // Sensitivity 1/2, specificity 2/3, MCC = (1*2 - 1*1) / sqrt(2*2*3*3) = 1/6.
        let pairs = [(60.0, 65.0), (65, 80), (100, 60), (120, 130), (90, 95)].map { GlucosePair(reference: $0.0, prediction: $0.1) }
        let h = AccuracyMetrics(pairs: pairs).hypo
        #expect(h.sensitivity == 0.5)
        #expect(abs(h.specificity - 2.0 / 3) < 1e-15)
        #expect(abs(h.matthewsCorrelation - 1.0 / 6) < 1e-15)
        // No reference hypo: sensitivity and MCC undefined (NaN), specificity defined.
        let none = AccuracyMetrics(pairs: [GlucosePair(reference: 100, prediction: 60)]).hypo
        #expect(none.sensitivity.isNaN && none.matthewsCorrelation.isNaN && none.specificity == 0)
        #expect(AccuracyMetrics(pairs: [GlucosePair]()).rmse.isNaN)
    }

    @Test func groupsByHorizon() {
        // 30 min: |10| and |20| -> MAE 15; 60 min: one pair off by 30.
        let rows: [(horizonMinutes: Int, pair: GlucosePair)] = [
            (60, GlucosePair(reference: 100, prediction: 130)), (30, GlucosePair(reference: 100, prediction: 110)),
            (30, GlucosePair(reference: 100, prediction: 80)),
        ]
        let groups = HorizonAccuracy.byHorizon(rows)
        #expect(groups.map(\.horizonMinutes) == [30, 60])
        #expect(groups[0].metrics.mae == 15 && groups[0].metrics.count == 2)
        #expect(groups[1].metrics.rmse == 30)
    }

    @Test func scoresTheSmallFixture() throws {
        let url = try #require(Bundle.module.url(forResource: "pairs-small", withExtension: "csv", subdirectory: "Fixtures/evaluation"))
        var lines: [String] = [], warnings: [ImportIssue] = []
        let s = try PairScoring.score(csv: url, writeLine: { lines.append($0) }, warning: { warnings.append($0) })
        // Zones by hand (see ErrorGridClarkeTests / ErrorGridParkesTests for the comparisons):
        // (69,10): Clarke A; type 1 A/B lower at 69 is 48.2 > 10 -> B; type 2 A/B lower at 69 is 53.75 -> B.
        // (71,55): Clarke B; type 1 A/B lower at 71 is 50.1 < 55 -> A; type 2 A/B lower at 71 is 56.25 -> B.
        // (100.5,120.6): Clarke A (on 1.2x); type 1 upper 126.9, type 2 upper 148.7 and lower 86.6 -> A, A.
        // (50,0): Clarke A; on the vertical A/B lower segment of both Parkes grids -> A, A.
        #expect(lines == [
            "reference,prediction,clarke,parkes_type1,parkes_type2",
            "69,10,A,B,B",
            "71,55,B,A,B",
            "100,abc,,,",
            "100,,,,",
            "100.5,120.6,A,A,A",
            "50,0,A,A,A",
        ])
        #expect(warnings.count == 1 && warnings[0].location.line == 4 && warnings[0].location.field == "prediction")
        // The empty prediction is a missing value: no warning, but counted (before: in neither count).
        #expect(s.rows == 6 && s.unparseableRows == 1 && s.missingRows == 1)
        #expect(s.report.hasPrefix("\(url.path): 6 rows, 4 scored, 2 unscored (1 with a missing value, 1 with unparseable numbers, 0 with implausible values)"))
        #expect(s.clarke[.a] == 3 && s.clarke[.b] == 1 && s.clarke.unscored == 2)
        #expect(s.parkesType2[.b] == 2 && s.parkesType2.percentAB == 100)
        // MAE over the 4 scored pairs: (59 + 16 + 20.1 + 50) / 4 = 36.275.
        #expect(abs(s.accuracy.mae - 36.275) < 1e-9)
    }

    /// Before: 1e308 against itself was Parkes D (the line tests overflowed), 1e5 mg/dL was Clarke A,
    /// and a 0 or negative reference was unscored without a word (exit 0).
    @Test func valuesNoDeviceReadsAreUnscoredWithAWarning() throws {
        let url = ScratchSpace.root.appendingPathComponent("eval-implausible-\(UInt32.random(in: 0...UInt32.max)).csv")
        try "reference,prediction\n0,0\n-5,100\n1e308,1e308\n1001,900\n1000,1000\n600,620\n100,-1\n".write(to: url, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: url) }
        var lines: [String] = [], warnings: [ImportIssue] = []
        let s = try PairScoring.score(csv: url, writeLine: { lines.append($0) }, warning: { warnings.append($0) })
        #expect(lines.dropFirst() == ["0,0,,,", "-5,100,,,", "1e308,1e308,,,", "1001,900,,,", "1000,1000,A,A,A", "600,620,A,A,A", "100,-1,,,"])
        #expect(warnings.map { $0.location.line } == [2, 3, 4, 5, 8])
        #expect(warnings.map { $0.location.field } == ["reference", "reference", "reference", "reference", "prediction"])
        #expect(warnings[0].message == "0 mg/dL is not a glucose a device reads (expected above 0 and at most 1000 mg/dL); row not scored")
        #expect(warnings[2].message.contains("; is the column in the other unit?; row not scored"))
        #expect(s.implausibleRows == 5 && s.unparseableRows == 0 && s.clarke.scored == 2 && s.accuracy.count == 2)
        // mg/dL values read as mmol/L: 100 mmol/L is 1801.6 mg/dL.
        try "reference,prediction\n100,110\n5.5,6\n".write(to: url, atomically: true, encoding: .utf8)
        warnings = []
        let mmol = try PairScoring.score(csv: url, units: .mmolL, writeLine: { _ in }, warning: { warnings.append($0) })
        #expect(mmol.implausibleRows == 1 && mmol.clarke.scored == 1)
        #expect(warnings.first?.message.hasPrefix("100 mmol/L is not a glucose a device reads (expected above 0 and at most 55.5 mmol/L)") == true)
        // mmol/L values read as mg/dL (no --units; hunt AD, stop 56: 5.5 "mg/dL" scored, Clarke A
        // 100%): most of a column below 30 is refused, as the importers refuse it; 2 of 4 is not most.
        try "reference,prediction\n5.5,6\n3.1,4.5\n12,7.2\n8,9.1\n".write(to: url, atomically: true, encoding: .utf8)
        #expect(throws: PairScoring.ScoringError.self) { try PairScoring.score(csv: url, writeLine: { _ in }, warning: { _ in }) }
        do { _ = try PairScoring.score(csv: url, writeLine: { _ in }, warning: { _ in }) } catch {
            #expect("\(error)".hasSuffix(": 4 of 4 reference values are below 30, as glucose in mmol/L is, but the column is read in "
                                          + "mg/dL: give --units mmol/L (or name the column reference_mmoll); nothing scored"))
        }
        #expect(try PairScoring.score(csv: url, units: .mmolL, writeLine: { _ in }, warning: { _ in }).clarke.scored == 4)
        try "reference,prediction\n5.5,6\n3.1,45\n120,72\n80,91\n".write(to: url, atomically: true, encoding: .utf8)
        #expect(try PairScoring.score(csv: url, writeLine: { _ in }, warning: { _ in }).clarke.scored == 4)
    }

    /// A decimal comma that was not quoted: `100,5,97` under `reference,prediction` was scored as
    /// 100 against 5 (Clarke B) before; in a file whose rows all have a note column, `100,5,97,`
    /// also hides the comma in the empty note. Both are unscored with a warning now.
    @Test func aRowWithAFieldTooManyIsUnscored() throws {
        let url = ScratchSpace.root.appendingPathComponent("eval-wide-\(UInt32.random(in: 0...UInt32.max)).csv")
        defer { try? FileManager.default.removeItem(at: url) }
        for (text, line, reason) in [("reference,prediction\n120,118\n100,5,97\n80,81\n", 3, "the header has 2"),
                                     ("reference,prediction,note\n120,118,\n100,5,97,\n80,81,\n", 3, "the file's rows have 3")] {
            try text.write(to: url, atomically: true, encoding: .utf8)
            var lines: [String] = [], warnings: [ImportIssue] = []
            let s = try PairScoring.score(csv: url, writeLine: { lines.append($0) }, warning: { warnings.append($0) })
            #expect(lines.dropFirst() == ["120,118,A,A,A", "100,5,,,", "80,81,A,A,A"])
            #expect(warnings.map(\.location.line) == [line] && warnings.first?.message.contains("fields; \(reason) (a decimal comma?") == true,
                    "\(warnings)")
            #expect(s.unparseableRows == 1 && s.clarke.scored == 2 && s.accuracy.count == 2)
        }
        // Rows that all end in a comma are read.
        try "reference,prediction\n120,118,\n100,97,\n".write(to: url, atomically: true, encoding: .utf8)
        let padded = try PairScoring.score(csv: url, writeLine: { _ in }, warning: { _ in })
        #expect(padded.clarke.scored == 2 && padded.unparseableRows == 0)
    }

    @Test func missingColumnsIsAnError() throws {
        let url = ScratchSpace.root.appendingPathComponent("eval-missing-\(UInt32.random(in: 0...UInt32.max)).csv")
        try "reference,value\n1,2\n".write(to: url, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(throws: PairScoring.ScoringError.self) {
            try PairScoring.score(csv: url, writeLine: { _ in }, warning: { _ in })
        }
    }
}

@Suite struct AtomicTextFileTests {
    @Test func replacesAnExistingFile() throws {
        let url = ScratchSpace.root.appendingPathComponent("eval-atomic-\(UInt32.random(in: 0...UInt32.max)).csv")
        try "old\n".write(to: url, atomically: false, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: url) }
        let file = try AtomicTextFile(url: url)
        file.writeLine("a,b")
        try file.commit()
        #expect(try String(contentsOf: url, encoding: .utf8) == "a,b\n")
    }

    /// A write killed before its rename leaves `.<name>.<pid>.tmp`: the next write of the file
    /// removes those of ended processes (five interrupted `predict --out` left 66 MB; hunt J,
    /// stop 52), and leaves a running process's and other files' alone.
    @Test func leftoversOfEndedProcessesGo() throws {
        let dir = ScratchSpace.root.appendingPathComponent("atomic-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        // Untouched for an hour, but for the one written a minute ago by a process that is not this
        // machine's (a cluster's other node sharing the folder: its process id means nothing here).
        func put(_ name: String, age: TimeInterval = 3600) throws {
            let url = dir.appendingPathComponent(name)
            try Data("half".utf8).write(to: url)
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -age)], ofItemAtPath: url.path)
        }
        for name in [".out.csv.2147483646.tmp", ".out.csv.\(getppid()).tmp", ".other.csv.2147483646.tmp", ".out.csv.tmp"] { try put(name) }
        try put(".out.csv.2147483645.tmp", age: 60)
        let file = try AtomicTextFile(url: dir.appendingPathComponent("out.csv"))
        file.writeLine("whole")
        try file.commit()
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        #expect(left == [".other.csv.2147483646.tmp", ".out.csv.2147483645.tmp", ".out.csv.\(getppid()).tmp", ".out.csv.tmp", "out.csv"].sorted())
        // A command's folders, once: every ended process's file of any name, one folder down too.
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("models"), withIntermediateDirectories: true)
        try put("models/.p-h030.json.2147483646.tmp")
        LeftoverFiles.removeAll(in: dir)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
                == [".out.csv.2147483645.tmp", ".out.csv.\(getppid()).tmp", ".out.csv.tmp", "models", "out.csv"].sorted())
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("models").path).isEmpty)
    }

    /// A symbolic link keeps pointing at its file, which gets the text; a named pipe (as
    /// `/dev/stdout` is a stream) gets the text in place. Both were replaced by a regular file
    /// (hunt K, stop 52: as root, `--write-values /dev/stdout` replaced the machine's /dev/stdout).
    @Test func followsALinkAndWritesAStreamInPlace() throws {
        let dir = ScratchSpace.root.appendingPathComponent("atomic-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let real = dir.appendingPathComponent("real.csv"), link = dir.appendingPathComponent("link.csv")
        try "old\n".write(to: real, atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: real)
        let file = try AtomicTextFile(url: link)
        file.writeLine("new")
        try file.commit()
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == real.path)
        #expect(try String(contentsOf: real, encoding: .utf8) == "new\n")
        let fifo = dir.appendingPathComponent("pipe")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        // A reader on the pipe (an open for writing waits for one), reading to the end.
        final class Received: @unchecked Sendable { var text = "" }
        let received = Received()
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            received.text = FileHandle(forReadingAtPath: fifo.path).map { String(decoding: $0.readDataToEndOfFile(), as: UTF8.self) } ?? "unreadable"
            done.signal()
        }
        let stream = try AtomicTextFile(url: fifo)
        stream.writeLine("through the pipe")
        try stream.commit()
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(received.text == "through the pipe\n")
        var info = stat()
        #expect(stat(fifo.path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO)
        // A descriptor of this process (`/dev/stdout` and the like) is written through a copy of
        // it: a file opened for appending keeps what it had (it was replaced; review, stop 52).
        let log = dir.appendingPathComponent("log.txt")
        try "earlier\n".write(to: log, atomically: false, encoding: .utf8)
        let appending = open(log.path, O_WRONLY | O_APPEND)
        #expect(appending >= 0)
        defer { close(appending) }
        let out = try AtomicTextFile(url: URL(fileURLWithPath: "/dev/fd/\(appending)"))
        out.writeLine("added")
        try out.commit()
        #expect(try String(contentsOf: log, encoding: .utf8) == "earlier\nadded\n")
        #expect(AtomicTextFile.inheritedDescriptor("/dev/stdout") == 1 && AtomicTextFile.inheritedDescriptor("/proc/self/fd/7") == 7)
        #expect(AtomicTextFile.inheritedDescriptor("/dev/null") == nil)
    }
}
