import Foundation
import Testing
@testable import GlucoModel

/// Audit 39 (docs): counts of one read "1 patients scored", "1 warnings", "Wrote 1 reports".
@Suite struct PluralTextTests {
    @Test func oneIsSingular() {
        #expect(Plural.of(1, "patient") == "1 patient")
        #expect(Plural.of(0, "patient") == "0 patients")
        #expect(Plural.of(2, "alert episode") == "2 alert episodes")
        #expect(Plural.of(1, "alert episode") == "1 alert episode")
        #expect(Plural.of(3, "bolus", plural: "boluses") == "3 boluses")
    }

    /// The nightly line of a night with one of everything, typed in whole.
    @Test func theNightlyLineOfOnePatient() {
        var outcome = NightlyOutcome()
        outcome.patientsScored = 1
        outcome.readingsImported = 1
        outcome.readingsScored = 1
        outcome.predictions = 1
        outcome.alerts = 1
        outcome.warnings = ["p_b: no trained model"]
        #expect(outcome.summaryLine == "nightly: 1 patient scored (0 up to date), 1 reading imported, 1 reading scored, "
            + "1 prediction, 1 alert episode (low < 70.0, high > 250.0 mg/dL), 1 warning")
        outcome.patientsScored = 2
        outcome.warnings = []
        #expect(outcome.summaryLine.hasPrefix("nightly: 2 patients scored") && outcome.summaryLine.hasSuffix(", 0 warnings"))
    }

    @Test func oneMoreWarning() {
        var summary = ImportSummary(file: "x.csv")
        for line in 2...7 { summary.skip("bad time", ImportIssue(.warning, SourceLocation(file: "x.csv", line: line), "not a time")) }
        #expect(summary.warningLines(limit: 5).last == "... and 1 more warning")
        #expect(summary.warningLines(limit: 4).last == "... and 2 more warnings")
    }

    /// Audit 42: counts of one printed with a fixed plural where the earlier pass did not reach:
    /// a failed file's error ("no records kept: 1 rows skipped"), `score`'s summary ("1 rows",
    /// "(1 scored pairs)"), train's sensor-limit lines, the notes of `predict` and `nightly` on
    /// rows at a model's limit or by ARX alone, a patient's too-few-rows message, import-data's
    /// "1 records added" and collect's "1 models missing, 1 failures, 1 of 1 shards".
    @Test func oneInImportScoreTrainAndPredictTexts() throws {
        var summary = ImportSummary(file: "epoch.csv")
        summary.rowsRead = 1
        summary.skip("bad time", ImportIssue(.warning, SourceLocation(file: "epoch.csv", line: 2), "not a time"))
        #expect(NothingKeptError(summary: summary).error.issue.message.hasPrefix("no records kept: 1 row skipped (1 bad time) and none kept; nothing imported."))

        let dir = try PredictFixture.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let pairs = dir.appendingPathComponent("pairs.csv")
        try Data("reference,prediction\n100,110\n".utf8).write(to: pairs)
        let scored = try PairScoring.score(csv: pairs, writeLine: { _ in }, warning: { _ in }).report.split(separator: "\n")
        #expect(scored.first == "\(pairs.path): 1 row, 1 scored, 0 unscored (0 with a missing value, 0 with unparseable numbers, 0 with implausible values)")
        #expect(scored.last == "RMSE 10.00 mg/dL  MAE 10.00 mg/dL  MARD 10.0%  bias 10.00 mg/dL (1 scored pair)")

        let p = try PatientID("p_one"), t0 = Date(timeIntervalSince1970: 1_767_600_000)
        let run = SensorLimitRun(kind: .floor, start: t0, end: t0.addingTimeInterval(2 * 3600), readings: 1, value: 39)
        #expect(ResultsTable.sensorLimitLines([(p, [run])], kept: false).last == "  ! p_one: 1 run (1 floor), 2.0 h, 1 reading")
        #expect(PredictionRow.atLimitNote(p, count: 1).hasPrefix("p_one: 1 prediction at the limit of what a model may predict"))
        #expect(PredictionRow.baseAloneNote(p, count: 1).hasPrefix("p_one: 1 prediction by the model's ARX base alone:"))
        #expect(TrainingError.tooFewRows(p, horizon: 30, split: "test", rows: 1, need: 12).description
                == "p_one at 30 min: 1 usable test row (glucose with 1 h of history and a measured target); at least 12 needed")
        // import-data's line under a file's summary and collect's closing line (both printed by
        // the executables, which wrote their own counts).
        let stored = ImportRun(id: 1, patient: p, filePath: "p_one.csv", contentHash: "", format: "csv", startedAt: t0, finishedAt: t0,
                               recordsAdded: 1, recordsAlreadyStored: 0, summary: ImportSummary(file: "p_one.csv"))
        #expect(stored.storedLine == "patient p_one: 1 record added, 0 already stored")
        var cohort = CohortCompleteness()
        cohort.shardCount = 1
        #expect(cohort.closingLine == nil)
        cohort.unfinishedShards = [0]
        cohort.failures = ["shard 0/1: p_two: too few days"]
        cohort.missingModels = [(p, 30)]
        #expect(cohort.closingLine == "incomplete: 1 model missing, 1 failure, 1 of 1 shard not finished")
        cohort.shardCount = 4
        cohort.missingShards = [2]
        cohort.missingModels.append((p, 60))
        cohort.otherOptions = [("population 20", [(p, 90)])]
        #expect(cohort.closingLine == "incomplete: 2 models missing, 1 failure, 1 model trained with other options, 2 of 4 shards not finished")
    }
}
