import Foundation
import Testing
@testable import GlucoModel

@Suite("Research summary")
struct ResearchSummaryTests {
    static func row(_ patient: String, _ h: Int, _ model: String, _ rmse: Double) -> ResultRow {
        ResultRow(patient: try! PatientID(patient), horizonMinutes: h, metrics: SplitMetrics(
            model: model, split: "test", n: 100, rmse: rmse, mae: rmse / 2, mard: 10, clarkeA: 80, clarkeAB: 99, parkesA: 85, parkesAB: 100))
    }

    @Test func spreadIsMedianMinMax() {
        #expect(ResearchSummary.spread([3, 1, 2]) == (2, 1, 3))
        #expect(ResearchSummary.spread([4, 1, 2, 10]) == (3, 1, 10))
        #expect(ResearchSummary.spread([.nan]).median.isNaN)
    }

    @Test func readsTheTrainersPredictionFilesTestRowsOnly() throws {
        let csv = """
        issued_at,target_time,split,reference_mgdl,ge,arx,average,persistence
        2026-01-05T00:55:00Z,2026-01-05T01:25:00Z,train,138.0,161.68,163.08,162.25,151.00
        2026-01-15T00:00:00Z,2026-01-15T00:30:00Z,test,100.0,110.0,105.0,120.0,90.0
        2026-01-15T00:05:00Z,2026-01-15T00:35:00Z,test,,110.0,105.0,120.0,90.0
        2026-01-15T00:10:00Z,2026-01-15T00:40:00Z,test,200.0,150.0,190.0,120.0,210.0
        """
        let p = ResearchSummary.Predictions(patient: try PatientID("p1"), horizonMinutes: 30, csv: csv)
        #expect(p.rows.count == 2 && p.rows[0].reference == 100 && p.rows[1].models["ge"] == 150)
        let summary = ResearchSummary(results: [Self.row("p1", 30, "ge", 10), Self.row("p2", 30, "ge", 14), Self.row("p3", 30, "ge", 30),
                                                Self.row("p1", 30, "arx", 12)], predictions: [p])
        let html = summary.html
        // RMSE of ge across 3 patients: median 14.0 [10.0-30.0]; MAE half of it.
        #expect(html.section("by-horizon").contains(">14.0 [10.0-30.0]<") && html.section("by-horizon").contains(">7.0 [5.0-15.0]<"))
        #expect(html.section("by-horizon").occurrences(of: "<circle") == 4)
        #expect(html.section("traces").contains("p1, 30 min, first test day"))
        // Two models with results: a Clarke and a Parkes grid each; the ge Clarke grid has 2 pairs,
        // (100, 110) zone A and (200, 150) zone B: A 50.0%, A+B 100.0%.
        #expect(html.section("grids").occurrences(of: "<svg") == 4)
        #expect(html.section("grids").contains("A 50.0%, A+B 100.0%"))
        let withoutNamespace = html.replacingOccurrences(of: "http://www.w3.org/2000/svg", with: "")
        #expect(!withoutNamespace.contains("http") && !html.contains("<script"))
        let mmol = ResearchSummary(results: summary.results, predictions: [p], units: .mmolL).html
        #expect(mmol.contains(">\(String(format: "%.2f", 14 / 18.0156)) [\(String(format: "%.2f", 10 / 18.0156))-\(String(format: "%.2f", 30 / 18.0156))]<"))
    }

    /// A cohort's grids drew one circle per test pair and model (37 MB for 50 patients of 30 days):
    /// at most `maximumDrawnPairs` now, evenly spaced, while the zone percentages count every pair.
    @Test func gridsDrawABoundedNumberOfPointsAndCountThemAll() throws {
        let n = 7000
        var lines = ["issued_at,target_time,split,reference_mgdl,ge,arx"]
        let t0 = Date(timeIntervalSince1970: 1_768_435_200)  // 2026-01-15T00:00:00Z
        for i in 0..<n {
            // Every 7th pair is 40% off (Clarke D or worse below 70 aside: zone B/C/D), the rest exact (A).
            let ref = 80.0 + Double(i % 200)
            let pred = i % 7 == 0 ? ref * 1.4 : ref
            lines.append("x,\((t0 + Double(i) * 300).iso8601),test,\(ref),\(pred),\(ref)")
        }
        lines.append("x,2026-01-15T00:00:00Z,train,100,100,100")
        let p = ResearchSummary.Predictions(patient: try PatientID("p1"), horizonMinutes: 30, csv: lines.joined(separator: "\n"))
        #expect(p.rows.count == n)
        let html = ResearchSummary(results: [Self.row("p1", 30, "ge", 10)], predictions: [p]).html.section("grids")
        #expect(html.occurrences(of: "<circle") == 2 * ResearchSummary.maximumDrawnPairs)
        #expect(html.contains("(\(n) pairs per model). Each grid draws \(ResearchSummary.maximumDrawnPairs) of them"))
        // Clarke A counts all 7000: 6000 exact pairs of 7000 = 85.7%.
        #expect(html.contains("A 85.7%"), "\(html.prefix(600))")
        #expect(ResearchSummary.evenlySpaced(Array(0..<10), atMost: 4) == [0, 2, 5, 7])
        #expect(ResearchSummary.evenlySpaced(Array(0..<3), atMost: 4) == [0, 1, 2])
    }

    /// A trace is not joined across a gap in the data (more than 15 minutes between targets): two
    /// runs draw two lines each for the CGM, ARX and the evolved model.
    @Test func tracesLeaveGapsOpen() throws {
        let csv = """
        issued_at,target_time,split,reference_mgdl,ge,arx,average,persistence
        2026-01-15T00:00:00Z,2026-01-15T00:30:00Z,test,100.0,110.0,105.0,120.0,90.0
        2026-01-15T00:05:00Z,2026-01-15T00:35:00Z,test,101.0,110.0,105.0,120.0,90.0
        2026-01-15T00:20:00Z,2026-01-15T00:50:00Z,test,102.0,110.0,105.0,120.0,90.0
        2026-01-15T05:00:00Z,2026-01-15T05:30:00Z,test,150.0,140.0,145.0,120.0,90.0
        2026-01-15T05:05:00Z,2026-01-15T05:35:00Z,test,155.0,150.0,145.0,120.0,90.0
        """
        let p = ResearchSummary.Predictions(patient: try PatientID("p1"), horizonMinutes: 30, csv: csv)
        let traces = ResearchSummary(results: [], predictions: [p]).html.section("traces")
        #expect(traces.occurrences(of: "<polyline") == 6)
        // 15 minutes apart (00:35 to 00:50) is still one line: the first run has three points.
        #expect(DailyTrace.joined(p.rows, time: \.target).map(\.count) == [3, 2])
    }

    /// A horizon the test days hold no target for (1440 min with one test day): results.csv has its
    /// training rows only, its prediction file no test row. The page said nothing: an empty table,
    /// a chart of axes, an empty traces section. Now each section says why; a horizon that has
    /// test rows is shown beside a note for one that has none.
    @Test func aHorizonWithoutTestRowsIsNotedNotDrawnEmpty() throws {
        var train = Self.row("p1", 1440, "ge", 20)
        train.metrics.split = "train"
        let empty = ResearchSummary.Predictions(patient: try PatientID("p1"), horizonMinutes: 1440,
                                                csv: "issued_at,target_time,split,reference_mgdl,ge,arx\n")
        let html = ResearchSummary(results: [train], predictions: [empty]).html
        #expect(html.section("by-horizon").contains("No test row to score at 1440 min"))
        #expect(!html.section("by-horizon").contains("<svg") && !html.section("by-horizon").contains("<table"))
        #expect(html.section("traces").contains("No test predictions to draw."))
        #expect(html.section("grids").contains("No test predictions to place on the grids.") && !html.section("grids").contains("<svg"))
        let both = ResearchSummary(results: [train, Self.row("p1", 30, "ge", 10)], predictions: [empty]).html.section("by-horizon")
        #expect(both.contains("No test row to score at 1440 min") && both.contains("<table") && both.occurrences(of: "<circle") == 1)
    }

    /// The trainer's results.csv (24 columns) and an older 12-column one are both read back: the
    /// summary of a training run was empty when the reader wanted exactly 12 columns.
    @Test func readsResultsCSVByColumnName() throws {
        var m = Self.row("p1", 30, "ge", 11.5).metrics
        m.coverage80 = 81.25; m.coverage95 = 95.5; m.width80 = 30.125; m.width95 = 48.0
        m.alarmSensitivity = 0.5; m.alarmSpecificity = 0.998; m.lower80AlarmSensitivity = 0.875
        let rows = [ResultRow(patient: try PatientID("p1"), horizonMinutes: 30, metrics: m), Self.row("p2", 60, "arx", 18.25)]
        let back = ResultsTable.parse(ResultsTable.csv(rows))
        #expect(back == rows)
        let old = """
        patient,horizon_min,model,split,n,rmse,mae,mard,clarke_a,clarke_ab,parkes_a,parkes_ab
        p2,60,arx,test,100,18.250,9.125,10.000,80.000,99.000,85.000,100.000
        p3,x,arx,test,100,18.250,9.125,10.000,80.000,99.000,85.000,100.000
        """
        #expect(ResultsTable.parse(old) == [Self.row("p2", 60, "arx", 18.25)])
        #expect(ResultsTable.parse("patient,model\np1,ge\n").isEmpty)

        let folder = ScratchSpace.root.appendingPathComponent("summary-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try CohortResults.write(rows, to: folder)
        let html = try ResearchSummary.load(folder).html
        #expect(html.section("by-horizon").occurrences(of: "<circle") == 2)
    }
}
