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
}
