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

/// Hunt BW: `metrics` counted finger-stick (meter) readings as CGM readings, the report did not:
/// 75 meter readings confirming lows over 4 days moved `metrics`' time below 54 from 1.8 to 3.4%
/// and left the report's at 1.8%. Both now count CGM readings alone, over the same days.
@Suite struct MetricsCGMOnlyTests {
    /// One day of CGM every 5 minutes from 2026-01-05T00:00Z: an hour at 50 mg/dL, an hour at 65,
    /// 22 hours at 120; a meter reading 2 minutes after each of the 24 low CGM readings, of the same
    /// value (a person confirming lows), and one of 300 mg/dL an hour after the last CGM reading.
    func log() throws -> PatientLog {
        var log = PatientLog(patient: ReportFixture.patient)
        let day0 = PredictFixture.day0
        for i in 0..<288 {
            let g: Double = i < 12 ? 50 : i < 24 ? 65 : 120
            let t = day0.addingTimeInterval(Double(i) * 300)
            log.glucose.append(GlucoseReading(time: t, value: .mgdL(g)))
            if i < 24 { log.glucose.append(GlucoseReading(time: t.addingTimeInterval(120), value: .mgdL(g), source: .fingerStick)) }
        }
        log.glucose.append(GlucoseReading(time: day0.addingTimeInterval(287 * 300 + 3600), value: .mgdL(300), source: .fingerStick))
        return log
    }

    @Test func fingerSticksAreNotCounted() throws {
        let m = try #require(CGMMetricsReport.recent(try log(), days: 14)).metrics
        // By hand, of the 288 CGM readings: 12 below 54 = 4.1667%, 12 in 54-70 = 4.1667%,
        // 264 in range = 91.667%, none above; mean (12 * 50 + 12 * 65 + 264 * 120) / 288 =
        // 33060 / 288 = 114.79. The period is the CGM's day: 00:00 to 5 minutes after the last
        // reading (23:55), 288 readings expected, 100% active. Counting the 25 meter readings
        // gave 313 readings, 24 / 313 = 7.67% below 54, 264 / 313 = 84.3% in range, and a period
        // running to 01:05 the next day.
        #expect(m.readingsPresent == 288 && m.readingsExpected == 288 && m.percentActive == 100)
        #expect(m.period == DateInterval(start: PredictFixture.day0, duration: 86_400))
        #expect(abs(m.tbrLevel2 - 100.0 * 12 / 288) < 1e-9 && abs(m.tbrLevel1 - 100.0 * 12 / 288) < 1e-9)
        #expect(abs(m.tir - 100.0 * 264 / 288) < 1e-9 && m.tarLevel1 == 0 && m.tarLevel2 == 0)
        #expect(abs(m.mean - 33_060.0 / 288) < 1e-9)
    }

    @Test func metricsAndTheReportAgree() throws {
        let log = try log()
        let m = try #require(CGMMetricsReport.recent(log, days: 14)).metrics
        let period = try ReportPeriod.resolve(log: log, days: 14)
        #expect(period == m.period)
        let report = try PatientReport(log: log, models: ReportFixture.models, period: period)
        #expect(report.metrics.readingsPresent == m.readingsPresent && report.metrics.mean == m.mean)
        #expect(report.metrics.tbrLevel2 == m.tbrLevel2 && report.metrics.tbrLevel1 == m.tbrLevel1 && report.metrics.tir == m.tir)
        #expect(report.metrics.cv == m.cv && report.metrics.gri == m.gri && report.metrics.lbgi == m.lbgi)
        // The cohort index's line for a patient without a model: the same 4.2% below 54.
        let reason = CohortReport.noModelReason(log: log, period: period, units: .mgdL)
        #expect(reason.contains("\(formatPercent(m.tbrLevel2)) of readings below 54 mg/dL"), "\(reason)")
    }

    @Test func fingerSticksAloneGiveNoMetricsAndSaySo() throws {
        var log = try log()
        log.glucose.removeAll { $0.source == .cgm }
        #expect(CGMMetricsReport.recent(log, days: 14) == nil)
        #expect(throws: ReportError.noGlucose(log.patient)) { try ReportPeriod.resolve(log: log) }
        #expect(ReportError.noGlucose(log.patient).description
                == "adolescent_003: no CGM readings in the data (finger sticks alone are not reported on); nothing to report")
        #expect(CohortReport.noModelReason(log: log, period: nil, units: .mgdL).hasSuffix(
            "; no CGM readings, only 25 finger-stick readings, which the CGM figures do not count"))
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
