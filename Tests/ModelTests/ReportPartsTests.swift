import Foundation
import Testing
@testable import GlucoModel

@Suite("Report parts")
struct ReportPartsTests: HandPredictions {
    @Test func escapesTheFiveSpecialCharacters() {
        #expect(HTML.escape("a<b>&\"c\"'d'") == "a&lt;b&gt;&amp;&quot;c&quot;&#39;d&#39;")
        #expect(HTML.escape("Ümlaut 5 mg/dL") == "Ümlaut 5 mg/dL")
    }

    @Test func predictedEpisodesAreRunsBelow70OrAbove250() {
        // Steps 0..8 (5 min apart): predictions 80, 65, 60, 72, 260, 255, 100, [gap: step 8] 69, 68.
        // By hand: low run at steps 1-2 (nadir 60 at step 2, measured 75 then; measured lowest 66);
        // high run at steps 4-5 (peak 260 at step 4, measured 240; measured highest 252);
        // steps 8-9 are low again but after a gap (step 7 missing), so a new run.
        let rows = [Self.row(0, 80, 90), Self.row(1, 65, 66), Self.row(2, 60, 75), Self.row(3, 72, 80),
                    Self.row(4, 260, 240), Self.row(5, 255, 252), Self.row(6, 100, 110),
                    Self.row(8, 69, nil), Self.row(9, 68, nil),
                    Self.row(2, 50, 75, model: "arx")]
        let episodes = PredictedEpisode.find(rows)
        #expect(episodes.count == 3)
        let low = episodes[0], high = episodes[1], late = episodes[2]
        #expect(low.kind == .low && low.start == Self.t0.addingTimeInterval(300) && low.end == Self.t0.addingTimeInterval(600))
        #expect(low.predicted == 60 && low.actualAtPredicted == 75 && low.actualExtreme == 66)
        #expect(low.issuedAt == Self.t0.addingTimeInterval(300 - 1800))
        #expect(low.confirmed() == true)
        #expect(high.kind == .high && high.predicted == 260 && high.actualAtPredicted == 240 && high.actualExtreme == 252)
        #expect(high.confirmed() == true)
        #expect(late.kind == .low && late.start == Self.t0.addingTimeInterval(2400) && late.predicted == 68)
        #expect(late.actualExtreme == nil && late.confirmed() == nil)
    }

    @Test func accuracyGroupsByHorizonThenModel() {
        // 30 min ge: errors +10, -10 -> RMSE 10, MAE 10; MARD = 100 * (10/100 + 10/200) / 2 = 7.5%.
        let rows = [Self.row(0, 110, 100), Self.row(0, 100, 100, model: "persistence"), Self.row(1, 190, 200),
                    Self.row(1, 200, 200, model: "persistence"), Self.row(2, 50, nil), Self.row(0, 90, 100, horizon: 60)]
        let acc = ReportAccuracy.from(rows)
        #expect(acc.map(\.horizonMinutes) == [30, 30, 60])
        #expect(acc.map(\.model) == ["ge", "persistence", "ge"])
        #expect(acc[0].metrics.count == 2)
        #expect(abs(acc[0].metrics.rmse - 10) < 1e-12 && abs(acc[0].metrics.mae - 10) < 1e-12)
        #expect(abs(acc[0].metrics.mard - 7.5) < 1e-12)
        // (100, 110) and (200, 190) are within 20%: Clarke zone A.
        #expect(acc[0].clarke[.a] == 2 && acc[0].clarke.percentAB == 100)
    }

    @Test func periodIsTheLastDaysOfTheData() throws {
        var log = PatientLog(patient: Self.patient)
        let first = Fixture.date("2026-01-01T00:00:00Z"), last = Fixture.date("2026-01-20T12:00:00Z")
        log.glucose = [GlucoseReading(time: first, value: .mgdL(100)), GlucoseReading(time: last, value: .mgdL(120))]
        // End: newest reading + 5 min; start: 14 days (14 * 86400 s) earlier.
        let p = try ReportPeriod.resolve(log: log)
        #expect(p.end == Fixture.date("2026-01-20T12:05:00Z"))
        #expect(p.start == Fixture.date("2026-01-06T12:05:00Z"))
        // 30 days would start before the data: the first reading.
        #expect(try ReportPeriod.resolve(log: log, days: 30).start == first)
        let from = Fixture.date("2026-01-10T00:00:00Z"), to = Fixture.date("2026-01-12T00:00:00Z")
        #expect(try ReportPeriod.resolve(log: log, from: from, to: to) == DateInterval(start: from, end: to))
        #expect(throws: ReportError.emptyPeriod(Self.patient, from: to, to: from)) { try ReportPeriod.resolve(log: log, from: to, to: from) }
        // On the clock the times were typed on (hunt AQ: a midnight typed in New York read 05:00Z).
        let york = TimeZone(identifier: "America/New_York")!
        let typed = ReportError.emptyPeriod(Self.patient, from: to, to: from, timeZone: york)
        #expect(throws: typed) { try ReportPeriod.resolve(log: log, from: to, to: from, timeZone: york) }
        #expect(typed.description.contains("(from \(to.iso8601(in: york)) is not before") && to.iso8601(in: york).hasSuffix("-05:00"), "\(typed)")
        #expect(throws: ReportError.noGlucose(Self.patient)) { try ReportPeriod.resolve(log: PatientLog(patient: Self.patient)) }
        // Ten years (3,660 days) at most: 1990 to 9999 ran for ten minutes (hunt H, stop 51).
        let tenYears = from.addingTimeInterval(3_660 * 86_400)
        #expect(try ReportPeriod.resolve(log: log, from: from, to: tenYears).duration == 3_660 * 86_400)
        let far = tenYears.addingTimeInterval(1)
        #expect(throws: ReportError.periodTooLong(Self.patient, from: from, to: far)) { try ReportPeriod.resolve(log: log, from: from, to: far) }
    }

    @Test func parsesCommandLineTimes() {
        let madrid = TimeZone(identifier: "Europe/Madrid")!
        // Madrid is UTC+1 in January: local midnight is 23:00 UTC the day before.
        #expect(ReportPeriod.parseTime("2026-01-15", timeZone: madrid) == Fixture.date("2026-01-14T23:00:00Z"))
        #expect(ReportPeriod.parseTime("2026-07-15T08:30", timeZone: madrid) == Fixture.date("2026-07-15T06:30:00Z"))
        #expect(ReportPeriod.parseTime("2026-01-15T08:00:00Z", timeZone: madrid) == Fixture.date("2026-01-15T08:00:00Z"))
        #expect(ReportPeriod.parseTime("15/01/2026", timeZone: madrid) == nil)
    }

    @Test func timeInRangeBarHeightsAreProportional() {
        // 10 readings: one < 54, one 54-69, six 70-180, one 181-250, one > 250 -> 10/10/60/10/10%.
        // Bar 210 px tall, bottom at y = 240: segments 21, 21, 126, 21, 21 px, drawn bottom-up,
        // so the in-range segment spans y = 240 - 42 - 126 = 72 to 198.
        let values: [Double] = [40, 60, 100, 110, 120, 130, 140, 150, 200, 300]
        let readings = values.enumerated().map { GlucoseReading(time: Self.t0.addingTimeInterval(Double($0.offset) * 300), value: .mgdL($0.element)) }
        let bar = TimeInRangeBar(metrics: CGMMetrics(readings: readings))
        #expect(bar.segments.map(\.percent) == [10, 10, 60, 10, 10])
        let svg = bar.svg()
        #expect(svg.occurrences(of: "width=\"50.0\" height=\"21.0\"") == 4)
        #expect(svg.contains("x=\"20.0\" y=\"72.0\" width=\"50.0\" height=\"126.0\" fill=\"#33a02c\""))
        for colour in ["#8b0000", "#e31a1c", "#33a02c", "#f2c500", "#ff7f00"] { #expect(svg.contains(colour)) }
        #expect(svg.contains("60.0%"))
    }

    @Test func dailyTracesCoverEachCalendarDayOfThePeriod() {
        // 2026-01-15 12:00 to 2026-01-17 06:00 UTC touches three UTC days.
        var log = PatientLog(patient: Self.patient)
        let times = ["2026-01-15T11:00:00Z", "2026-01-15T13:00:00Z", "2026-01-16T00:00:00Z", "2026-01-17T05:55:00Z", "2026-01-17T07:00:00Z"]
        log.glucose = times.map { GlucoseReading(time: Fixture.date($0), value: .mgdL(100)) }
        log.carbs = [CarbIntake(time: Fixture.date("2026-01-16T08:00:00Z"), amount: Carbohydrate(grams: 50))]
        let period = DateInterval(start: Fixture.date("2026-01-15T12:00:00Z"), end: Fixture.date("2026-01-17T06:00:00Z"))
        let days = DailyTrace.split(log: log, predictions: [], horizon: nil, period: period, clock: .utc)
        #expect(days.count == 3)
        #expect(days.map(\.glucose.count) == [1, 1, 1])
        #expect(days.map(\.carbs.count) == [0, 1, 0])
        #expect(days[1].dayStart == Fixture.date("2026-01-16T00:00:00Z"))
        let svg = days[1].svg(clock: .utc)
        #expect(svg.contains("Fri 2026-01-16"))
        #expect(svg.contains(">50g<"))
        // The same period ending at 01:00 on the 17th: that day shares only 1 h and gets no chart.
        let short = DateInterval(start: period.start, end: Fixture.date("2026-01-17T01:00:00Z"))
        #expect(DailyTrace.split(log: log, predictions: [], horizon: nil, period: short, clock: .utc).count == 2)
        // A period of one hour on one day still gets its chart.
        let hour = DateInterval(start: period.start, duration: 3600)
        #expect(DailyTrace.split(log: log, predictions: [], horizon: nil, period: hour, clock: .utc).count == 1)
    }

    /// Ten small meals a day drew labels over each other ("0.8U" and "0.6U" 12.5 px apart read
    /// "1.0.5U"): a label that would overlap its neighbour goes a line further in.
    /// Hunt D: on the 25-hour day the clock goes back (Europe/Madrid, 2026-10-25, 03:00 -> 02:00),
    /// the daily chart's ticks counted elapsed hours, so everything after 02:00 read an hour late
    /// (a 14:15 lunch at 15:15). The ticks now read the clock at their elapsed places.
    @Test func dailyChartTicksReadTheClockOnA25HourDay() throws {
        let clock = ReportClock(timeZone: TimeZone(identifier: "Europe/Madrid")!)
        let day = Fixture.date("2026-10-24T22:00:00Z")  // local midnight of the 25th (+02:00)
        #expect(clock.nextDay(day).timeIntervalSince(day) == 25 * 3600)
        let ticks = clock.clockHours([0, 3, 6, 12, 24], dayStart: day)
        #expect(ticks.map(\.hour) == [0, 3, 6, 12, 24] && ticks.map(\.elapsed) == [0, 4, 7, 13, 25])
        // Spring: 2026-03-29 has 23 hours (02:00 -> 03:00): local 03:00 is 2 hours in.
        let spring = Fixture.date("2026-03-28T23:00:00Z")
        #expect(clock.clockHours([3, 24], dayStart: spring).map(\.elapsed) == [2, 23])
        // The chart: a lunch logged at 14:15 local (13:15 UTC) lies 2.25/3 of the way from tick 12 to tick 15.
        var log = PatientLog(patient: try PatientID("p_dst"))
        log.glucose = stride(from: 0.0, to: 25 * 3600, by: 300).map { GlucoseReading(time: day.addingTimeInterval($0), value: .mgdL(120)) }
        log.carbs = [CarbIntake(time: Fixture.date("2026-10-25T13:15:00Z"), amount: Carbohydrate(grams: 74))]
        let trace = try #require(DailyTrace.split(log: log, predictions: [], horizon: nil, period: DateInterval(start: day, duration: 25 * 3600),
                                                  clock: clock).first)
        let svg = trace.svg(clock: clock)
        func tickX(_ label: String) throws -> Double {
            let m = try #require(svg.firstMatch(of: try Regex("<text x=\"([0-9.]+)\" y=\"[0-9.]+\"[^>]*>\(label)</text>")))
            return Double(String(try #require(m.output[1].substring)))!
        }
        let meal = try #require(svg.firstMatch(of: try Regex("<text x=\"([0-9.]+)\"[^>]*>74g</text>")))
        let x = Double(String(try #require(meal.output[1].substring)))!
        let hour = 12 + 3 * (x - (try tickX("12"))) / ((try tickX("15")) - (try tickX("12")))
        #expect(abs(hour - 14.25) < 0.02, "the 14:15 meal reads \(hour)")
    }

    /// Hunt D: a person's long-acting injections and exercise were nowhere in the report.
    /// Hunt D: on the night the clock goes back, the predicted-lows table read "from 02:10 ...
    /// first issued 02:40": the repeated hour's times need their offsets.
    @Test func theRepeatedHourGivesItsOffset() {
        let clock = ReportClock(timeZone: TimeZone(identifier: "Europe/Madrid")!)
        // 2026-10-25: 03:00 +02:00 (01:00 UTC) becomes 02:00 +01:00.
        #expect(clock.time(Fixture.date("2026-10-25T00:10:00Z")) == "02:10 (+02:00)")
        #expect(clock.time(Fixture.date("2026-10-25T01:10:00Z")) == "02:10 (+01:00)")
        #expect(clock.time(Fixture.date("2026-10-24T23:10:00Z")) == "01:10")
        #expect(clock.time(Fixture.date("2026-10-25T02:10:00Z")) == "03:10")
        #expect(clock.dateTime(Fixture.date("2026-10-25T01:10:00Z")) == "2026-10-25 02:10 (+01:00)")
        #expect(ReportClock.utc.time(Fixture.date("2026-10-25T01:10:00Z")) == "01:10")
    }

    @Test func dailyChartsDrawLongActingInjectionsAndExercise() throws {
        let day = Fixture.date("2026-01-05T00:00:00Z")
        var log = PatientLog(patient: try PatientID("p_pen"))
        log.glucose = stride(from: 0.0, to: 86_400, by: 300).map { GlucoseReading(time: day.addingTimeInterval($0), value: .mgdL(120)) }
        log.basalInjections = [BasalInjection(time: day.addingTimeInterval(22 * 3600), dose: InsulinUnits(21))]
        log.boluses = [Bolus(time: day.addingTimeInterval(8 * 3600), dose: InsulinUnits(4))]
        // 18:00-18:45, and one from 23:30 running past midnight (clipped to the day).
        log.exercise = [ExerciseSession(time: day.addingTimeInterval(18 * 3600), intensity: 5, durationMinutes: 45),
                        ExerciseSession(time: day.addingTimeInterval(23.5 * 3600), intensity: 5, durationMinutes: 60)]
        let trace = try #require(DailyTrace.split(log: log, predictions: [], horizon: nil, period: DateInterval(start: day, duration: 86_400),
                                                  clock: .utc).first)
        #expect(trace.injections.map(\.dose.units) == [21] && trace.exercise.count == 2)
        #expect(trace.exercise[1].end == day.addingTimeInterval(86_400))
        let svg = trace.svg(clock: .utc)
        #expect(svg.contains(">21.0U LA</text>") && svg.contains(">4.0U</text>"))
        #expect(svg.occurrences(of: "fill=\"#d9d2e9\"") == 2)
    }

    @Test func markerLabelsDoNotOverlap() throws {
        // By hand, widths 26: x 100 on line 0 (ends 113); 110 starts at 97, before 113: line 1 (ends
        // 123); 130 starts at 117, after 113: line 0 (ends 143); 135 starts at 122, before 143 and 123:
        // line 2; 200 starts at 187: line 0.
        let lines = DailyTrace.labelLines([(100, 26), (110, 26), (130, 26), (135, 26), (200, 26)])
        #expect(lines == [0, 1, 0, 2, 0])
        // A fourth line is not made: the label shares the line whose last label ends first.
        #expect(DailyTrace.labelLines([(100, 26), (101, 26), (102, 26), (103, 26)]) == [0, 1, 2, 0])
        // In a chart: 10 boluses an hour apart in one morning, each label "0.8U" (26 px) where an
        // hour is 540/24 = 22.5 px minus the margins: no two labels on one line overlap.
        var log = PatientLog(patient: Self.patient)
        let day = Fixture.date("2026-01-16T00:00:00Z")
        log.glucose = [GlucoseReading(time: day.addingTimeInterval(3600), value: .mgdL(110))]
        log.boluses = (0..<10).map { Bolus(time: day.addingTimeInterval(Double(6 + $0) * 3600), dose: InsulinUnits(0.8)) }
        let period = DateInterval(start: day, duration: 86_400)
        let svg = try #require(DailyTrace.split(log: log, predictions: [], horizon: nil, period: period, clock: .utc).first).svg(clock: .utc)
        let pattern = try Regex(#"<text x="([0-9.]+)" y="([0-9.]+)"[^>]*>0.8U<"#)
        let labels = svg.matches(of: pattern).map { (x: Double($0.output[1].substring!)!, y: Double($0.output[2].substring!)!) }
        #expect(labels.count == 10)
        for (i, a) in labels.enumerated() {
            for b in labels[(i + 1)...] where a.y == b.y { #expect(abs(a.x - b.x) >= DailyTrace.labelWidth("0.8U"), "\(a) \(b)") }
        }
        #expect(Set(labels.map(\.y)).count == 2)
    }

    @Test func dailyTracesDrawThePredictionIntervalUnderTheLines() throws {
        var log = PatientLog(patient: Self.patient)
        log.glucose = ["2026-01-16T12:00:00Z", "2026-01-16T12:05:00Z"].map { GlucoseReading(time: Fixture.date($0), value: .mgdL(110)) }
        let period = DateInterval(start: Fixture.date("2026-01-16T00:00:00Z"), end: Fixture.date("2026-01-17T00:00:00Z"))
        // Two joined band points at 12:00 and 12:05, and one alone at 18:00 (more than 15 min later).
        let bands = [(Fixture.date("2026-01-16T12:00:00Z"), 90.0, 130.0), (Fixture.date("2026-01-16T12:05:00Z"), 95.0, 135.0),
                     (Fixture.date("2026-01-16T18:00:00Z"), 100.0, 150.0)]
        let day = try #require(DailyTrace.split(log: log, predictions: [], horizon: 30, period: period, clock: .utc, bands: bands).first)
        #expect(day.bands.count == 3)
        let svg = day.svg(clock: .utc)
        let polygons = svg.components(separatedBy: "<polygon points=\"").dropFirst().filter { $0.contains("fill=\"#fdd9b5\"") }
        #expect(polygons.count == 2)
        // Upper bounds forward, then lower bounds back: 130, 135, 95, 90 mg/dL, so y rises, then falls.
        let ys = polygons[0].prefix { $0 != "\"" }.split(separator: " ").map { Double($0.split(separator: ",")[1])! }
        #expect(ys.count == 4)
        #expect(ys[1] < ys[0] && ys[2] > ys[1] && ys[3] > ys[2])
        // Drawn before (under) the glucose line.
        let band = try #require(svg.range(of: "#fdd9b5")), line = try #require(svg.range(of: "#08306b"))
        #expect(band.lowerBound < line.lowerBound)
        #expect(!DailyTrace.split(log: log, predictions: [], horizon: 30, period: period, clock: .utc)[0].svg(clock: .utc).contains("#fdd9b5"))
    }
}
