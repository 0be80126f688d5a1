import Foundation
import Testing
@testable import GlucoModel

/// Runs at the CGM's floor or ceiling and flat lines, on series built by hand.
@Suite("Sensor-limit runs")
struct SensorLimitTests {
    static let t0 = Fixture.date("2026-01-05T00:00:00Z")

    /// One reading every 5 minutes from t0.
    static func readings(_ values: [Double], skip: Set<Int> = []) -> [GlucoseReading] {
        values.enumerated().filter { !skip.contains($0.offset) }
            .map { GlucoseReading(time: t0.addingTimeInterval(Double($0.offset) * 300), value: .mgdL($0.element)) }
    }

    static func at(_ index: Int) -> Date { t0.addingTimeInterval(Double(index) * 300) }

    @Test func floorRunOfThirtyMinutesIsFoundAndOneReadingShortIsNot() {
        // Indices 3...9: seven readings of 39 span 30 min (3 -> 9 is 6 steps of 5 min): a run.
        let values: [Double] = [120, 90, 60] + Array(repeating: 39, count: 7) + [50, 80]
        let runs = SensorLimitDetector().runs(in: Self.readings(values))
        #expect(runs == [SensorLimitRun(kind: .floor, start: Self.at(3), end: Self.at(9), readings: 7, value: 39)])
        // Six readings span 25 min: no run. Values of 40 count (at the floor), 41 do not.
        let short: [Double] = [120] + Array(repeating: 40, count: 6) + [41, 41, 41, 41, 41, 41, 41]
        #expect(SensorLimitDetector().runs(in: Self.readings(short)).isEmpty)
    }

    @Test func ceilingRunAndCensoredHighReadings() {
        var r = Self.readings([300, 350] + Array(repeating: 401, count: 4) + [380])
        // A `High` exported at 400 with its censoring flag counts, here for indices 6...8.
        for i in 6...8 { r.append(GlucoseReading(time: Self.at(i), value: .mgdL(390), censoring: .aboveRange)) }
        r.remove(at: 6)  // the 380 at index 6 is replaced by the censored reading
        let runs = SensorLimitDetector().runs(in: r)
        #expect(runs.count == 1 && runs[0].kind == .ceiling)
        #expect(runs[0].start == Self.at(2) && runs[0].end == Self.at(8) && runs[0].readings == 7)
    }

    @Test func aGapLongerThanFifteenMinutesSplitsARun() {
        // 39 at indices 0...5 and 9...15 (readings 6, 7, 8 missing: 20 min between 5 and 9).
        let values = Array(repeating: 39.0, count: 16)
        let runs = SensorLimitDetector().runs(in: Self.readings(values, skip: [6, 7, 8]))
        // 0...5 spans 25 min (too short); 9...15 spans 30 min.
        #expect(runs.map(\.start) == [Self.at(9)] && runs.map(\.readings) == [7])
        // Missing 6 and 7 only: 15 min apart is still joined: one run 0...15.
        let joined = SensorLimitDetector().runs(in: Self.readings(values, skip: [6, 7]))
        #expect(joined.count == 1 && joined[0].start == Self.at(0) && joined[0].end == Self.at(15) && joined[0].readings == 14)
    }

    @Test func flatLineOfTwoHoursBetweenTheLimits() {
        // 25 readings of 142 span 120 min (24 steps): flat. 24 readings (115 min) are not.
        let flat = SensorLimitDetector().runs(in: Self.readings([150] + Array(repeating: 142, count: 25) + [143]))
        #expect(flat == [SensorLimitRun(kind: .flat, start: Self.at(1), end: Self.at(25), readings: 25, value: 142)])
        #expect(SensorLimitDetector().runs(in: Self.readings([150] + Array(repeating: 142, count: 24) + [143])).isEmpty)
        // A living series (a slow sine) never is.
        let living = (0..<600).map { 140 + 40 * sin(Double($0) / 30) }
        #expect(SensorLimitDetector().runs(in: Self.readings(living)).isEmpty)
        // With a tolerance of 1 mg/dL, 142/143 alternating is flat.
        var d = SensorLimitDetector()
        d.flatTolerance = 1
        #expect(d.runs(in: Self.readings((0..<30).map { $0 % 2 == 0 ? 142 : 143 })).count == 1)
    }

    @Test func fingerSticksAreIgnored() {
        let sticks = (0..<10).map { GlucoseReading(time: Self.at($0), value: .mgdL(39), source: .fingerStick) }
        #expect(SensorLimitDetector().runs(in: sticks).isEmpty)
    }

    @Test func metricsFlagTheRunsButStillCountTheLows() {
        // One day: 12 h at 39 (a stuck sensor), 12 h at a varying 100-140.
        let values = Array(repeating: 39.0, count: 144) + (0..<144).map { 120 + 20 * sin(Double($0) / 10) }
        let m = CGMMetrics(readings: Self.readings(values))
        #expect(m.sensorLimitRuns.count == 1 && m.sensorLimitRuns[0].kind == .floor)
        #expect(abs(m.sensorLimitPercent - 50) < 1e-12)
        #expect(abs(m.tbrLevel2 - 50) < 1e-12)
        let row = m.rows.first { $0.key == "sensor_limit_pct" }!
        #expect(row.value == 50 && row.met == false)
        #expect(CGMMetrics(readings: Self.readings(Array(values.suffix(144)))).rows.first { $0.key == "sensor_limit_pct" }!.met == true)
    }

    @Test func trainerTableLinesNameThePatientAndTheRuns() throws {
        let runs = SensorLimitDetector().runs(in: Self.readings(Array(repeating: 39, count: 13) + [100] + Array(repeating: 401, count: 7)))
        let lines = ResultsTable.sensorLimitLines([(try PatientID("child_9"), runs)], kept: false)
        #expect(lines.count == 2 && lines[0].contains("left out of training and scoring"))
        // 12 steps (1.0 h) + 6 steps (0.5 h) = 1.5 h; 13 + 7 readings.
        #expect(lines[1] == "  ! child_9: 2 runs (1 floor, 1 ceiling), 1.5 h, 20 readings")
        #expect(ResultsTable.sensorLimitLines([], kept: false).isEmpty)
    }

    @Test func reportFlagsRunsAndLeavesThemOutOfScoring() throws {
        // Stick the fixture's CGM at 39 for the first 6 hours of the report period.
        var log = ReportFixture.data.log
        let period = ReportFixture.period
        let stuckEnd = period.start.addingTimeInterval(6 * 3600)
        log.glucose = log.glucose.map { r in
            var r = r
            if r.source == .cgm && r.time >= period.start && r.time < stuckEnd { r.value = .mgdL(39) }
            return r
        }
        let report = try PatientReport(log: log, models: ReportFixture.models, period: period)
        #expect(report.sensorLimitRuns.count >= 1 && report.sensorLimitRuns[0].kind == .floor)
        let html = report.html
        #expect(html.section("summary").contains("id=\"sensor-limits\"") || html.contains("id=\"sensor-limits\""))
        #expect(html.contains("left out of the prediction accuracy"))
        let kept = try PatientReport(log: log, models: ReportFixture.models, period: period, keepSensorLimits: true)
        let n = { (r: PatientReport) in r.accuracy.first { $0.horizonMinutes == 30 && $0.model == "ge" }!.metrics.count }
        // Every 30-min target time inside the run is scored only when kept.
        let inRun = kept.gridPairs.count - report.gridPairs.count
        #expect(inRun > 0 && n(kept) - n(report) == inRun)
        #expect(!ReportFixture.report.html.contains("id=\"sensor-limits\""))
    }
}

@Suite("Trainer's printed table")
struct ResultsTablePerPatientTests {
    static func row(_ patient: String, _ h: Int, _ model: String, _ rmse: Double, split: String = "test") -> ResultRow {
        ResultRow(patient: try! PatientID(patient), horizonMinutes: h, metrics: SplitMetrics(
            model: model, split: split, n: 100, rmse: rmse, mae: rmse * 0.8, mard: 10, clarkeA: 80, clarkeAB: 99.5, parkesA: 85, parkesAB: 99.9))
    }

    @Test func onePerPatientAndHorizonSorted() {
        let rows = [Self.row("b", 30, "ge", 11), Self.row("a", 60, "ge", 20), Self.row("a", 30, "ge", 10), Self.row("a", 30, "arx", 12),
                    Self.row("a", 30, "ge", 99, split: "train")]
        let lines = ResultsTable.perPatient(rows).split(separator: "\n").map(String.init)
        #expect(lines.count == 5)
        #expect(lines[2].hasPrefix("a                 30 min  10.00       12.00       -           -           99.50    100"))
        #expect(lines[3].hasPrefix("a                 60 min  20.00 ") && lines[4].hasPrefix("b                 30 min  11.00 "))
    }

    /// Before: a patient whose test days held nothing to score vanished from the table unnamed.
    @Test func modelsWithNothingToScoreAreNamed() {
        let rows = [Self.row("a", 30, "ge", 11), Self.row("a", 30, "ge", 9, split: "train"),
                    Self.row("b", 60, "ge", 9, split: "train"), Self.row("b", 30, "ge", 9, split: "train")]
        #expect(ResultsTable.unscoredLine(rows) == "Not in the medians, no test row scored (fewer than 12 rows with a reading at the horizon: "
                + "test days too short, or their readings missing or at the sensor's limits): b (30, 60 min)")
        #expect(ResultsTable.unscoredLine(Array(rows.prefix(2))) == nil)
    }

    /// Before: a horizon of four digits (`--horizons 1440`, the longest allowed) wrote `1440 min`
    /// into the 8 characters of the horizon column and pushed that line's numbers one place right of
    /// the header's and the other lines'; a patient ID longer than 17 characters did the same in
    /// the per-patient table. Now a column is as wide as its longest cell and a space.
    @Test func columnsWidenToTheirLongestCell() {
        let rows = [Self.row("a", 30, "ge", 10), Self.row("a", 1440, "ge", 20)]
        let summary = ResultsTable.summary(rows).split(separator: "\n").map(String.init)
        #expect(summary[1].hasPrefix("horizon  ge          arx         average     persistence GE vs ARX  "), "\(summary[1])")
        #expect(summary[2].hasPrefix("30 min   10.00       -           -           -           -          "), "\(summary[2])")
        #expect(summary[3].hasPrefix("1440 min 20.00       -           -           -           -          "), "\(summary[3])")
        let long = "patient_with_long_id" // 20 characters: the column is 21 wide
        let perPatient = ResultsTable.perPatient([Self.row(long, 30, "ge", 10), Self.row("b", 1440, "ge", 20)])
            .split(separator: "\n").map(String.init)
        #expect(perPatient[1] == "patient              horizon  ge          arx         average     persistence GE A+B % n", "\(perPatient[1])")
        #expect(perPatient[2] == "b                    1440 min 20.00       -           -           -           99.50    100", "\(perPatient[2])")
        #expect(perPatient[3] == "patient_with_long_id 30 min   10.00       -           -           -           99.50    100", "\(perPatient[3])")
    }

    /// Before: `--units mmol/L` printed the table in mg/dL. 18.01559 mg/dL is 1 mmol/L; Clarke A+B
    /// and the improvements are the same in both units.
    @Test func theTablesFollowTheUnits() {
        let rows = [Self.row("a", 30, "ge", 18.01559), Self.row("a", 30, "arx", 36.03118), Self.row("a", 30, "persistence", 36.03118)]
        let mmol = ResultsTable.summary(rows, units: .mmolL).split(separator: "\n").map(String.init)
        #expect(mmol[0] == "Median test RMSE across patients (mmol/L), GE improvement, Clarke A+B of GE")
        #expect(mmol[2].hasPrefix("30 min  1.000       2.000       -           2.000       +50.0%     +50.0%      99.50    1"), "\(mmol[2])")
        #expect(ResultsTable.summary(rows).split(separator: "\n")[2].hasPrefix("30 min  18.02       36.03 "))
        #expect(ResultsTable.perPatient(rows, units: .mmolL).split(separator: "\n")[2].hasPrefix("a                 30 min  1.000       2.000 "))
    }
}
