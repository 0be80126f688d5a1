import ArgumentParser
import Foundation
import Testing
@testable import glucomodel_predict
@testable import glucomodel_train

/// Hunt AH (stop 57): `--time-zone -05:00`, a fixed offset west of UTC in the form the help offers,
/// was taken for another option ("Missing value for '--time-zone'", exit 64).
@Suite struct TimeZoneOptionTests {
    @Test func offsetsWestOfUTCAreRead() throws {
        #expect(try Metrics.parse(["a.csv", "--time-zone", "-05:00"]).time.zone().secondsFromGMT() == -5 * 3600)
        #expect(try Metrics.parse(["a.csv", "--time-zone", "+05:45"]).time.zone().secondsFromGMT() == 5 * 3600 + 45 * 60)
        let dose = try Dose.parse(NumberOptionTests.dose + ["--time-zone", "-0930", "--carbs", "10"])
        #expect(try dose.time.zone().secondsFromGMT() == -(9 * 3600 + 30 * 60) && dose.carbs == 10)
        // A name still reads, and the option still needs its value.
        #expect(try Metrics.parse(["a.csv", "--time-zone", "Europe/Madrid"]).time.zone().identifier == "Europe/Madrid")
        #expect(throws: (any Error).self) { try Metrics.parse(["a.csv", "--time-zone"]) }
        #expect(throws: (any Error).self) { try Metrics.parse(["a.csv", "--time-zone", "-25:00"]) }
    }
}
