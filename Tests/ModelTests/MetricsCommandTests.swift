import Foundation
import Testing
@testable import GlucoModel

@Suite struct MetricsCommandTests {
    /// Two days at 100 mg/dL then one day at 200 mg/dL, every 5 minutes from 2026-01-05T00:00Z.
    func log() throws -> PatientLog {
        var log = PatientLog(patient: try PatientID("p_m"))
        for i in 0..<(3 * 288) {
            log.glucose.append(GlucoseReading(time: PredictFixture.day0.addingTimeInterval(Double(i) * 300), value: .mgdL(i < 576 ? 100 : 200)))
        }
        return log
    }

    @Test func lastDayOnly() throws {
        // The period ends 5 min after the last reading (day 3, 00:00) and starts a day earlier
        // (day 2, 00:00): exactly the 288 readings at 200 mg/dL. 200 is in (180, 250]: TAR1 100 %.
        let report = try #require(CGMMetricsReport.recent(try log(), days: 1))
        #expect(report.metrics.readingsPresent == 288 && report.metrics.readingsExpected == 288)
        #expect(report.metrics.mean == 200 && report.metrics.tarLevel1 == 100 && report.metrics.tir == 0)
        #expect(report.metrics.period.start == PredictFixture.day0.addingTimeInterval(2 * 86_400))
    }

    @Test func shorterDataThanTheDaysAsked() throws {
        // 14 days asked, 3 present: the period starts at the first reading, so nothing counts as
        // missing (percent active 100). Mean (576 * 100 + 288 * 200) / 864 = 133.33...; TIR 2/3.
        let report = try #require(CGMMetricsReport.recent(try log(), days: 14))
        #expect(report.metrics.readingsPresent == 864 && report.metrics.percentActive == 100)
        #expect(abs(report.metrics.mean - 400.0 / 3) < 1e-9)
        #expect(abs(report.metrics.tir - 200.0 / 3) < 1e-9)
        #expect(CGMMetricsReport.recent(PatientLog(patient: try PatientID("p_empty")), days: 14) == nil)
    }
}

/// `metrics` judged its targets on the unrounded value: "Days 14.0 d, >= 14 d, no" beside the report's
/// "met" for the same 13.997 days; and TBR level 1 "< 4%" alone, where the consensus (and the report)
/// counts the time below 54 too.
@Suite struct MetricVerdictTests {
    func row(_ key: String, _ metrics: CGMMetrics) -> MetricRow { metrics.rows.first { $0.key == key }! }

    @Test func targetsAreJudgedOnTheValueAsPrinted() {
        var m = CGMMetrics(readings: [])
        m.days = 14 - 0.003          // prints 14.0
        m.cv = 36.04                 // prints 36.0: met (<= 36)
        m.tir = 70.04                // prints 70.0: not met (> 70)
        m.tbrLevel1 = 3.0; m.tbrLevel2 = 0.96   // 3.96 prints 4.0: not met (< 4), as on the report
        m.tarLevel1 = 20; m.tarLevel2 = 4       // 24.0: met (< 25)
        #expect(row("days", m).met == true)
        #expect(row("cv", m).met == true)
        #expect(row("tir", m).met == false)
        #expect(row("tbr2", m).met == false)    // 0.96 prints 1.0: not below 1
        #expect(row("tbr1", m).met == false && row("tbr1", m).target?.description == "< 4% with level 2")
        #expect(row("tar1", m).met == true)
        m.tarLevel2 = 5.5                        // 25.5 with level 2: not met, though level 1 alone is 20
        #expect(row("tar1", m).met == false)
        m.days = 13.94                           // prints 13.9
        #expect(row("days", m).met == false)
    }
}
