import Foundation
import Testing
@testable import GlucoModel

/// The two clinician pages: AGP smoothing, glucose units, the week strip's lows, the layout.
@Suite("Clinician view")
struct ReportClinicianTests {
    static let t0 = Date(timeIntervalSinceReferenceDate: 86_400 * 7000)  // a UTC midnight

    @Test func agpSmoothingWeighsNeighboursOneTwoThreeTwoOne() {
        // Bin 0 (00:00-01:00) holds 100,120,140,160,180 -> p = [104, 120, 140, 160, 176] (type 7);
        // bin 1 holds 10,20,30,40 -> p = [11.5, 17.5, 25, 32.5, 38.5]; every other bin is empty.
        // Bin 0 sees itself (weight 3) and bin 1 (weight 2): s = (3 p0 + 2 p1) / 5;
        // bin 1 sees bin 0 (2) and itself (3): s = (2 p0 + 3 p1) / 5.
        var readings: [(time: Date, mgdL: Double)] = []
        for (d, g) in [100.0, 120, 140, 160, 180].enumerated() { readings.append((Self.t0.addingTimeInterval(Double(d) * 86_400 + 600), g)) }
        for (d, g) in [10.0, 20, 30, 40].enumerated() { readings.append((Self.t0.addingTimeInterval(Double(d) * 86_400 + 4800), g)) }
        let agp = AmbulatoryGlucoseProfile(series: GlucoseSeries(readings: readings), binMinutes: 60)
        // s0: (312 + 23) / 5 = 67; (360 + 35) / 5 = 79; (420 + 50) / 5 = 94; (480 + 65) / 5 = 109; (528 + 77) / 5 = 121.
        // s1: (208 + 34.5) / 5 = 48.5; (240 + 52.5) / 5 = 58.5; (280 + 75) / 5 = 71; (320 + 97.5) / 5 = 83.5; (352 + 115.5) / 5 = 93.5.
        for (a, b) in zip(agp.bins[0].smoothed, [67.0, 79, 94, 109, 121]) { #expect(abs(a - b) < 1e-12) }
        for (a, b) in zip(agp.bins[1].smoothed, [48.5, 58.5, 71, 83.5, 93.5]) { #expect(abs(a - b) < 1e-12) }
        #expect(agp.bins[2].smoothed[2].isNaN && agp.bins[23].smoothed[0].isNaN)
    }

    @Test func agpSmoothingWrapsAroundMidnight() {
        // One reading of 10 i mg/dL in hour i: every percentile of bin i is 10 i. At bin 0 the
        // window is bins 22, 23, 0, 1, 2: (220 + 2*230 + 3*0 + 2*10 + 20) / 9 = 720 / 9 = 80.
        // At bin 5 the values are linear, so smoothing keeps 50.
        // Hour 0 reads 0.001 (a reading must be > 0): bin 0 = (720 + 0.003) / 9, bin 23 = (1350 + 0.002) / 9.
        var readings: [(time: Date, mgdL: Double)] = []
        for i in 0..<24 {
            let value: Double = i == 0 ? 0.001 : Double(i) * 10
            readings.append((time: Self.t0.addingTimeInterval(Double(i) * 3600 + 60), mgdL: value))
        }
        let agp = AmbulatoryGlucoseProfile(series: GlucoseSeries(readings: readings), binMinutes: 60)
        let first: Double = 720.003 / 9, last: Double = 1350.002 / 9
        #expect(abs(agp.bins[0].smoothed[2] - first) < 1e-9)
        #expect(abs(agp.bins[5].smoothed[4] - 50) < 1e-12)
        #expect(abs(agp.bins[23].smoothed[0] - last) < 1e-9)
    }

    @Test func agpDrawsTheStandardLinesAndLabels() {
        let agp = ReportFixture.report.agp
        let svg = agp.svg()
        for colour in ["#8b0000", "#e31a1c", "#33a02c", "#ff7f00", "#e5f5e0"] { #expect(svg.contains(colour), "\(colour)") }
        for label in ["5%", "25%", "50%", "75%", "95%"] { #expect(svg.contains(">\(label)</text>"), "\(label)") }
        for tick in ["54", "70", "180", "250", "350"] { #expect(svg.contains(">\(tick)</text>"), "\(tick)") }
        let mmol = agp.svg(units: .mmolL)
        for tick in ["3.0", "3.9", "10.0", "13.9", "19.4"] { #expect(mmol.contains(">\(tick)</text>"), "\(tick)") }
    }

    @Test func unitsConvertByOneFactor() {
        // 18.0156 mg/dL per mmol/L, computed here, not taken from the library.
        for mgdL in [39.0, 54, 70, 100, 142.5, 180, 250, 401] {
            #expect(GlucoseUnit.mmolL.format(mgdL) == String(format: "%.1f", mgdL / 18.0156))
            #expect(GlucoseUnit.mmolL.format(mgdL, mgdLDecimals: 1) == String(format: "%.2f", mgdL / 18.0156))
            #expect(GlucoseUnit.mgdL.format(mgdL) == String(format: "%.0f", mgdL.rounded(.toNearestOrAwayFromZero)))
        }
        #expect(GlucoseUnit.mgdL.consensusRanges == ["<54", "54-69", "70-180", "181-250", ">250"])
        #expect(GlucoseUnit.mmolL.consensusRanges == ["<3.0", "3.0-3.8", "3.9-10.0", "10.1-13.9", ">13.9"])
        #expect(GlucoseUnit(name: "mmol/l") == .mmolL && GlucoseUnit(name: "MG/DL") == .mgdL && GlucoseUnit(name: "g/L") == nil)
    }

    @Test func metricsCommandOutputInMmol() throws {
        // A day of a sine around 140 mg/dL: mean, SD, MODD-free; every mg/dL figure / 18.0156.
        let t0 = Self.t0
        let readings = (0..<288).map { (time: t0.addingTimeInterval(Double($0) * 300), mgdL: 140 + 50 * sin(Double($0) / 20)) }
        let m = CGMMetrics(series: GlucoseSeries(readings: readings))
        var report = CGMMetricsReport(patient: try PatientID("p1"), metrics: m)
        report.units = .mmolL
        let csv = report.render(format: .csv)
        #expect(csv.contains("p1,mean,\(String(format: "%.2f", m.mean / 18.0156)),mmol/L,,\n"))
        #expect(csv.contains("p1,sd,\(String(format: "%.2f", m.sd / 18.0156)),mmol/L,,\n"))
        #expect(csv.contains("p1,conga,\(String(format: "%.2f", m.conga / 18.0156)),mmol/L,,\n"))
        #expect(!csv.contains("mg/dL"))
        let table = report.render(format: .table)
        #expect(table.contains("TIR (3.9-10.0)") && table.contains("TBR level 2 (<3.0)") && !table.contains("mg/dL"))
        let json = try JSONSerialization.jsonObject(with: Data(report.render(format: .json).utf8)) as? [[String: Any]]
        let mean = (json?.first?["metrics"] as? [String: [String: Any]])?["mean"]
        #expect((mean?["unit"] as? String) == "mmol/L")
        #expect(abs((mean?["value"] as? Double ?? 0) - m.mean / 18.0156) < 0.005)
    }

    @Test func everyGlucosePrintedInMmolWhenAsked() {
        var report = ReportFixture.report
        report.units = .mmolL
        let html = report.html
        // Outside the model appendix (models compute in mg/dL, and say so) no mg/dL is printed.
        let withoutModels = html.replacingOccurrences(of: html.section("model"), with: "")
        #expect(!withoutModels.contains("mg/dL"))
        let m = report.metrics
        #expect(html.contains("Mean glucose " + String(format: "%.1f", m.mean / 18.0156) + " mmol/L"))
        #expect(html.section("metrics").contains(String(format: "%.2f", m.sd / 18.0156) + " mmol/L"))
        let ge = report.testMetrics.first { $0.horizonMinutes == 30 && $0.metrics.model == "ge" }!.metrics
        #expect(html.contains("RMSE " + String(format: "%.2f", ge.rmse / 18.0156) + " mmol/L"))
        #expect(html.section("test-accuracy").contains(">" + String(format: "%.2f", ge.rmse / 18.0156) + "<"))
        for e in report.predictedEpisodes.prefix(5) {
            #expect(html.section("predicted-episodes").contains(">" + String(format: "%.1f", e.predicted / 18.0156) + "<"))
        }
        #expect(html.section("time-in-ranges").contains("In range 3.9-10.0"))
        // mg/dL is the default, and says so.
        #expect(ReportFixture.report.html.contains("Mean glucose " + formatNumber(m.mean, decimals: 0) + " mg/dL"))
    }

    @Test func stripLowsAreRedFromTheCrossingPoint() {
        // 100 -> 60 crosses 70 at x = 0 + (70 - 100) (1 - 0) / (60 - 100) = 0.75;
        // 50 -> 90 crosses at x = 2 + (70 - 50) (3 - 2) / (90 - 50) = 2.5.
        let pieces = DailyTrace.split([(0, 100), (1, 60), (2, 50), (3, 90)], below: 70)
        #expect(pieces.map(\.below) == [false, true, false])
        #expect(pieces[0].points.map(\.0) == [0, 0.75] && pieces[1].points.map(\.0) == [0.75, 1, 2, 2.5])
        #expect(pieces[1].points.map(\.1) == [70, 60, 50, 70] && pieces[2].points.map(\.0) == [2.5, 3])
        // Exactly 70 is not low (the consensus counts < 70).
        #expect(DailyTrace.split([(0, 70), (1, 70)], below: 70).map(\.below) == [false])
    }

    @Test func twoClinicianPagesThenTheAppendix() {
        let html = ReportFixture.report.html
        let order = ["id=\"agp-page\"", "id=\"statistics\"", "id=\"time-in-ranges\"", "id=\"agp\"", "id=\"daily-profiles\"",
                     "id=\"predictions-page\"", "id=\"test-accuracy\"", "id=\"predicted-lows\"", "id=\"dose-summary\"",
                     "class=\"appendix\"", "id=\"metrics\"", "id=\"model\""]
        let positions = order.map { html.range(of: $0)?.lowerBound }
        #expect(!positions.contains(nil), "\(zip(order, positions).filter { $0.1 == nil }.map(\.0))")
        #expect(positions.compactMap { $0 } == positions.compactMap { $0 }.sorted())
        #expect(html.contains("@page { size: A4; margin: 10mm; }"))
        var letter = ReportFixture.report
        letter.paper = .letter
        #expect(letter.html.contains("@page { size: letter; margin: 10mm; }"))
        // No ARX coefficients or expressions on the clinician pages.
        let pages = String(html[..<html.range(of: "class=\"appendix\"")!.lowerBound])
        #expect(!pages.contains("<code>") && !pages.contains("ARX base"))
        // Red lows in the strip when the period has readings below 70.
        if report.metrics.tbrLevel1 + report.metrics.tbrLevel2 > 0 { #expect(html.section("daily-profiles").contains("#e31a1c")) }
    }

    /// Page 2 names the models' own horizons, and says why a model has no test-day figures.
    @Test func testAccuracyNamesItsHorizonsAndWhyNoneWereScored() throws {
        #expect(report.html.section("test-accuracy").contains("the CGM reading 30 and 60 minutes ahead on the test days"))
        #expect(Plural.list(["30"]) == "30" && Plural.list(["30", "60", "120"]) == "30, 60 and 120")
        func without(_ change: (inout GlucoseModel) -> Void) throws -> String {
            var models = ReportFixture.models.models
            for h in models.keys { change(&models[h]!) }
            let set = ModelSet(patient: ReportFixture.patient, models: models)
            return try PatientReport(log: ReportFixture.data.log, models: set, period: ReportFixture.period).html
        }
        // Test days whose rows could not be scored (all at the sensor's floor, say).
        let unscoredReport = try without { $0.metrics.removeAll { $0.split == "test" } }
        let unscored = unscoredReport.section("test-accuracy")
        #expect(unscoredReport.contains("30-min predictions on test days: none could be scored (page 2 says why)"))
        #expect(unscored.contains("No test-day figures: the test days (") && unscored.contains("fewer than 12 rows with a reading at the horizon"))
        // Models trained without test days.
        let untested = try without { m in
            m.metrics.removeAll { $0.split == "test" }
            m.training.testFrom = nil
            m.training.testTo = nil
        }
        #expect(untested.section("test-accuracy").contains("trained without held-out test days"))
        #expect(!untested.contains("predictions on test days"))
    }

    var report: PatientReport { ReportFixture.report }

    @Test func doseSummaryGivesEachReasonOnceWithItsCount() {
        var report = ReportFixture.report
        let t = report.period.start
        func row(_ given: Double, _ suggested: Double?, _ reasons: [String], low: Bool = false) -> ReportDoseAudit.Row {
            .init(time: t, carbs: Carbohydrate(grams: 40), given: InsulinUnits(given), suggested: suggested.map(InsulinUnits.init),
                  formula: "", glucoseAfter2h: nil, lowAfter: low, reasons: reasons)
        }
        func coded(_ reason: String, _ code: String) -> ReportDoseAudit.Row {
            .init(time: t, carbs: nil, given: InsulinUnits(1), suggested: nil, formula: "", glucoseAfter2h: nil, lowAfter: false,
                  reasons: [reason], reasonCodes: [code])
        }
        // Before: a "no insulin" at a low (0 U) counted as a dose suggested, and as "less than given".
        var noInsulin = row(4, 0, ["glucose 41 below 70"])
        noInsulin.advice = .noInsulin
        report.doseAudit = ReportDoseAudit(rows: [row(4, 5, ["IOB high"]), row(4, 3, ["IOB high", "CGM stale"], low: true),
                                                  row(4, nil, ["CGM stale"]), row(4, nil, ["CGM stale"]), row(4, 4.02, []), noInsulin])
        let s = report.html.section("dose-summary")
        #expect(!s.contains("without logged carbohydrates"))
        #expect(s.contains("6 meal boluses audited: a dose suggested for 3, no insulin advised for 1 (glucose low or predicted low), "
                           + "no advice for 2 (data or settings refused)."), "\(s)")
        #expect(s.contains("Of the doses suggested: more than given for 1, less for 1, about the same (within 0.05 U) for 1."))
        #expect(s.contains("followed 1 of the 6 boluses"))
        #expect(report.html.section("dose-audit").contains("<td>no insulin</td>"))
        #expect(s.occurrences(of: "CGM stale") == 1 && s.occurrences(of: "IOB high") == 1)
        // Boluses without logged carbohydrates are said to be left out, with rows or without: a person
        // who never logs meals read "No meals or corrections in this period" after 24 boluses.
        report.doseAudit?.withoutCarbs = 24
        #expect(report.html.section("dose-summary").contains("24 boluses without logged carbohydrates (corrections, meals not logged) not audited"))
        report.doseAudit?.rows = []
        let none = report.html.section("dose-summary")
        #expect(none.contains("No meal boluses in this period.") && none.contains("24 boluses without logged carbohydrates"), "\(none)")
        #expect(s.contains("<td>CGM stale</td><td class=\"num\">3</td>") && s.contains("<td>IOB high</td><td class=\"num\">2</td>"))
        #expect(s.range(of: "CGM stale")!.lowerBound < s.range(of: "IOB high")!.lowerBound)
        // With codes, one kind of reason with different figures is one line, worded as the first.
        report.doseAudit = ReportDoseAudit(rows: [coded("glucose 41 below 70", "below_suspend"), coded("glucose 52 below 70", "below_suspend")])
        let coded = report.html.section("dose-summary")
        #expect(coded.contains("<td>glucose 41 below 70</td><td class=\"num\">2</td>") && !coded.contains("glucose 52"))
    }

    /// Before: "newest glucose reading (2026-01-05T11:30:00Z) is 60 minutes old" in a report on
    /// Madrid's clock, where every other time on the page reads an hour later.
    @Test func doseReasonsGiveTheirTimesOnTheReportsClock() {
        var log = DoseFixture.flatLog(through: 90)  // readings 10:00-11:30 UTC
        let bolus = DoseFixture.at(150)  // 12:30 UTC: the newest reading is an hour old
        log.carbs = [CarbIntake(time: bolus, amount: Carbohydrate(grams: 40))]
        log.boluses = [Bolus(time: bolus, dose: InsulinUnits(4))]
        let rows = DoseAudit.run(log: log, models: nil, settings: DoseFixture.checked())
        let madrid = ReportDoseAudit(audit: rows, settings: DoseFixture.checked(), clock: ReportClock(timeZone: TimeZone(identifier: "Europe/Madrid")!))
        // 11:30 UTC is 12:30 in Madrid in January (CET, UTC+1).
        #expect(madrid.rows.count == 1 && madrid.rows[0].reasons.contains { $0.hasPrefix("newest glucose reading (2026-01-05 12:30) is 60 minutes old") },
                "\(madrid.rows.map(\.reasons))")
        #expect(!madrid.rows[0].reasons.joined().contains("T11:30:00Z"))
    }

    /// Hunt AQ: 3 notes on Letter or 4 on A4 pushed page 1's strip onto page 2. By the notes' lines
    /// (140 characters each): up to 4 as drawn; up to 13 two columns and a lower AGP; beyond, the
    /// last week's strip alone (printed with Chromium by scripts/render-report.sh).
    @Test func manyNotesPrintPage1Tighter() throws {
        // 14 days, so that the strip has two weeks to show.
        let log = ReportFixture.data.log
        var report = try PatientReport(log: log, models: ReportFixture.models, period: ReportPeriod.resolve(log: log))
        #expect(report.days.count >= 14)
        let line = String(repeating: "x", count: 140)
        func page(_ notes: [String]) -> (crowding: PatientReport.Crowding, html: String) {
            report.notes = notes
            return (report.crowding, report.html)
        }
        let few = page([line, line + line + line])
        #expect(few.crowding == .spacious && few.html.contains("<div class=\"page\" id=\"agp-page\">") && !few.html.contains("notes many"))
        let more = page([line, line + "y"])  // 1 + 2 lines... and 2 more:
        #expect(more.crowding == .spacious)
        let crowded = page([line, line + "y", line + line + "y"])  // 1 + 2 + 3 lines
        #expect(crowded.crowding == .crowded && crowded.html.contains("class=\"page crowded\" id=\"agp-page\"") && crowded.html.contains("<div class=\"notes many\">"))
        let packed = page(Array(repeating: line + line, count: 7))  // 14 lines
        #expect(packed.crowding == .packed && packed.html.contains("class=\"page crowded packed\""))
        let strip = { (html: String) in html.components(separatedBy: "class=\"strip-day\"").count - 1 }
        #expect(strip(packed.html) == 7 && strip(crowded.html) == PatientReport.stripDays)
        #expect(packed.html.contains("The last 7 of \(report.days.count) days; every day in the appendix."))
    }

    /// Hunt AQ: a skipped bolus's reason printed the data file's whole path, folders named after the
    /// person included, and a recent low's time in UTC on a page on another clock.
    @Test func doseReasonsNameFilesWithoutFoldersAndLowsOnTheReportsClock() {
        var log = DoseFixture.flatLog(through: 90)  // readings 10:00-11:30 UTC
        let bolus = DoseFixture.at(85)
        log.carbs = [CarbIntake(time: bolus, amount: Carbohydrate(grams: 40))]
        log.boluses = [Bolus(time: bolus, dose: InsulinUnits(4))]
        log.skippedInsulin = [SkippedInsulin(kind: .bolus, time: DoseFixture.at(30),
                                             location: SourceLocation(file: "/clinic/Jane Doe (jane@example.org)/p.csv", line: 12, field: "value"))]
        let clock = ReportClock(timeZone: TimeZone(identifier: "America/New_York")!)
        let audit = ReportDoseAudit(audit: DoseAudit.run(log: log, models: nil, settings: DoseFixture.checked()), settings: DoseFixture.checked(), clock: clock)
        let reasons = audit.rows.flatMap(\.reasons).joined(separator: "\n")
        #expect(reasons.contains("a bolus at 2026-01-05 05:30 (p.csv:12 [value]) was skipped at import"), "\(reasons)")
        #expect(!reasons.contains("Jane") && !reasons.contains("/clinic"))
        // A kept twin in another file is named the same way.
        var twin = log.skippedInsulin[0]
        twin.conflictingAmount = 3
        twin.keptFrom = "/clinic/Jane Doe (jane@example.org)/q.csv"
        let renamed = DoseReason(.skippedInsulinRecord(twin, count: 1, durationMinutes: 300)).namingFiles(ReportErrorText.baseName)
        #expect(renamed.message(units: .mgdL).contains("(p.csv:12 [value]) is not in the log: q.csv holds another"), "\(renamed.message)")
        // The recent low, on the clock given (10:00 UTC is 05:00 in New York in January).
        let low = DoseNote.limitedByFormulaBelowTarget(requested: 2, formula: 1.5, glucose: 100, target: 110,
                                                       because: .recentLow(glucose: 65, at: DoseFixture.at(0)))
        #expect(low.description(units: .mgdL, time: clock.dateTime).contains("a reading of 65 mg/dL at 2026-01-05 05:00, below 70 mg/dL"), "\(low)")
        // So is the moment the models' inputs could not be computed at (code model_unavailable, as before).
        let incomplete = DoseNote.modelInputsIncomplete(at: DoseFixture.at(0))
        #expect(incomplete.code == "model_unavailable")
        #expect(incomplete.description(units: .mgdL, time: clock.dateTime) == "no model-based dose: the models' inputs cannot be computed at "
            + "2026-01-05 05:00 (glucose of the last hour incomplete); the standard formula's dose is shown")
        #expect(incomplete.description.contains("at 2026-01-05T10:00:00Z (glucose"))
    }

    /// Before: "CV 36.0% (target <= 36%: NOT met)" for a CV of 36.03: a verdict printed next to a
    /// rounded number is made on the number printed, on page 1 and in the appendix.
    @Test func targetVerdictsAgreeWithTheNumbersPrinted() {
        var report = ReportFixture.report
        report.metrics.cv = 36.03              // prints 36.0: met (<= 36)
        report.metrics.tir = 70.04             // prints 70.0: not met (> 70)
        report.metrics.tbrLevel2 = 0.96        // prints 1.0: not met (< 1)
        report.metrics.tbrLevel1 = 3.0 - 0.96  // below 70 in all 3.0: met (< 4)
        let html = report.html
        let summary = String(html[html.range(of: "<header id=\"summary\"")!.lowerBound..<html.range(of: "</header>")!.upperBound])
        #expect(summary.contains("CV 36.0% (target &lt;= 36%: met)"), "\(summary)")
        #expect(summary.contains("70.0% (target &gt; 70%: NOT met)"))
        #expect(summary.contains("below 54: 1.0% (target &lt; 1%: NOT met)"))
        let statistics = html.section("statistics"), appendix = html.section("metrics")
        #expect(statistics.contains("<td>Glucose variability (CV)</td><td class=\"num\">36.0%</td><td>&lt;= 36%</td><td class=\"ok\">"), "\(statistics)")
        #expect(statistics.contains("<td class=\"num\">1.0%</td><td>&lt; 1%</td><td class=\"bad\">"))
        #expect(appendix.contains("<td class=\"num\">36.0 %</td><td>&lt;= 36%</td><td class=\"ok\">"), "\(appendix)")
    }

    /// Before: "1 runs of 30-minute predictions below 70".
    @Test func oneRunOfPredictedLowsIsSingular() throws {
        var report = ReportFixture.report
        let h = try #require(report.chartHorizon)
        let lows = report.predictedEpisodes.filter { $0.kind == .low && $0.horizonMinutes == h }
        try #require(!lows.isEmpty, "the fixture's period has a predicted low")
        report.predictedEpisodes = [lows[0]]
        #expect(report.html.section("predicted-lows").contains(">1 run of \(h)-minute predictions below 70 mg/dL"))
        report.predictedEpisodes = []
        #expect(report.html.section("predicted-lows").contains(">0 runs of \(h)-minute predictions below 70 mg/dL"))
    }

    /// Before: a predicted low of 69.6 mg/dL read "70" in the table under "below 70 mg/dL", and a
    /// predicted high of 250.4 read "250" beside "above 250". A value beside its threshold gains a
    /// decimal, rounded away from the threshold; in mmol/L 69.96 reads 3.88 (3.8833), not 3.9.
    @Test func predictedLowsNeverReadAsTheThreshold() throws {
        var report = ReportFixture.report
        let h = try #require(report.chartHorizon)
        var low = try #require(report.predictedEpisodes.first { $0.kind == .low && $0.horizonMinutes == h })
        low.predicted = 69.6
        low.actualExtreme = 69.96
        var high = low
        high.kind = .high
        high.predicted = 250.04
        high.actualExtreme = 251
        report.predictedEpisodes = [low, high]
        let table = report.html.section("predicted-lows")
        #expect(table.contains("<td class=\"num\">69.6</td><td class=\"num\">69.9</td>"), "\(table)")
        let appendix = report.html.section("predicted-episodes")
        #expect(appendix.contains("<td class=\"num\">250.1</td>"), "\(appendix)")
        #expect(appendix.contains("<td class=\"num\">251</td>"))
        report.units = .mmolL
        #expect(report.html.section("predicted-lows").contains("<td class=\"num\">3.86</td><td class=\"num\">3.88</td>"))
        // A run past midnight gives its end's date too ("2026-01-10 23:50-00:40" read as one evening).
        low.start = Fixture.date("2026-01-10T23:50:00Z")
        low.end = Fixture.date("2026-01-11T00:40:00Z")
        report.predictedEpisodes = [low]
        report.clock = .utc
        #expect(report.html.section("predicted-lows").contains("2026-01-10 23:50-2026-01-11 00:40"), "\(report.html.section("predicted-lows"))")
        #expect(report.html.section("predicted-episodes").contains("<td>2026-01-10 23:50</td><td>2026-01-11 00:40</td>"))
    }
}

@Suite("Cohort index")
struct CohortIndexTests {
    static func entry(_ id: String, below54: Double, below70: Double, gri: Double, days: Double = 14, active: Double = 95,
                      sensorRuns: Int = 0, above250: Double = 0, above180: Double = 0) -> CohortReport.Entry {
        var e = CohortReport.Entry(report: ReportFixture.report, file: "")
        e.patient = try! PatientID(id)
        e.file = CohortReport.fileName(for: e.patient)
        e.below54 = below54; e.below70 = below70; e.gri = gri; e.days = days; e.percentActive = active
        e.above250 = above250; e.above180 = above180
        e.sensorLimitRuns = sensorRuns; e.sensorLimitPercent = sensorRuns > 0 ? 12.5 : 0
        return e
    }

    /// A patient whose id is `index` (a legal id): its page was written to `index.html` and then
    /// replaced by the cohort index, "Wrote 1 report" all the same. Its page now has a name that
    /// no id gives (`+` is in none), and the index links to it.
    @Test func aPatientCalledIndexDoesNotReplaceTheIndex() throws {
        #expect(CohortReport.fileName(for: try PatientID("index")) == "index+patient.html")
        #expect(CohortReport.fileName(for: try PatientID("INDEX")) == "INDEX+patient.html")
        #expect(CohortReport.fileName(for: try PatientID("index1")) == "index1.html")
        #expect(throws: (any Error).self) { try PatientID("index+patient") }
        let html = CohortReport(entries: [Self.entry("index", below54: 1, below70: 2, gri: 30)]).html
        #expect(html.contains("href=\"index+patient.html\"") && !html.contains("href=\"index.html\""))
    }

    @Test func sortedByTimeBelow54ThenGRIThenId() {
        // Hand-ordered: c (54% below 54), then a and b tie on 2.0% -> higher GRI (b 60) first,
        // then d and e tie on 0% and GRI 20 -> by id; f has no figure (NaN) and comes last.
        let entries = [Self.entry("e", below54: 0, below70: 1, gri: 20), Self.entry("a", below54: 2, below70: 5, gri: 40),
                       Self.entry("f", below54: .nan, below70: .nan, gri: .nan), Self.entry("c", below54: 54, below70: 60, gri: 100),
                       Self.entry("d", below54: 0, below70: 1, gri: 20), Self.entry("b", below54: 2, below70: 3, gri: 60)]
        let index = CohortReport(entries: entries)
        #expect(index.entries.map(\.patient.rawValue) == ["c", "b", "a", "d", "e", "f"])
        let html = index.html
        let positions = ["c", "b", "a", "d", "e", "f"].map { html.range(of: "href=\"\($0).html\"")!.lowerBound }
        #expect(positions == positions.sorted())
    }

    @Test func flagsNameWhatNeedsALook() {
        let risky = Self.entry("c", below54: 54, below70: 60, gri: 100, days: 6, active: 60, sensorRuns: 3)
        #expect(risky.flags() == ["below 54 54.0%", "below 70 60.0%", "data: 6.0 d, 60.0% active", "sensor limits: 3 runs, 12.5% of readings"])
        // The targets are strict: 1.0% below 54 is flagged, 0.9% is not; 4.0% below 70 is flagged.
        #expect(Self.entry("x", below54: 1.0, below70: 3.9, gri: 5).flags() == ["below 54 1.0%"])
        #expect(Self.entry("y", below54: 0.9, below70: 4.0, gri: 5).flags() == ["below 70 4.0%"])
        #expect(Self.entry("z", below54: 0.9, below70: 3.9, gri: 5).flags().isEmpty)
        let html = CohortReport(entries: [risky, Self.entry("z", below54: 0.9, below70: 3.9, gri: 5)]).html
        #expect(html.occurrences(of: "<tr class=\"flagged\">") == 1)
        #expect(html.contains("1 flagged"))
        #expect(CohortReport(entries: [risky], units: .mmolL).html.contains("below 3.0 54.0%; below 3.9 60.0%"))
    }

    /// A person always high (31.6% in range, 18.2% above 250) was a plain row below a well-kept one
    /// flagged for its 7 days of data: highs beyond the consensus targets flag a row too.
    @Test func highsBeyondTheirTargetsFlagTheRow() {
        let high = Self.entry("h", below54: 0, below70: 0, gri: 69.3, above250: 18.2, above180: 68.4)
        #expect(high.flags() == ["above 250 18.2%", "above 180 68.4%"])
        // Targets: under 5% above 250, under 25% above 180, judged as printed (4.96 prints 5.0: flagged).
        #expect(Self.entry("a", below54: 0, below70: 0, gri: 9, above250: 4.96, above180: 24.9).flags() == ["above 250 5.0%"])
        #expect(Self.entry("b", below54: 0, below70: 0, gri: 9, above250: 4.9, above180: 25).flags() == ["above 180 25.0%"])
        #expect(Self.entry("c", below54: 0, below70: 0, gri: 9, above250: 4.9, above180: 24.9).flags().isEmpty)
        #expect(CohortReport(entries: [high], units: .mmolL).html.contains("above 13.9 18.2%; above 10.0 68.4%"))
    }
}
