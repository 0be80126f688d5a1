import Foundation

extension PatientReport {
    /// The report as one self-contained HTML page: inline CSS and SVG, no scripts, no network
    /// references; every text from data or model files is escaped (`HTML.escape`).
    ///
    /// Printed, it is two clinician pages and an appendix after a page break:
    /// - page 1 (`agp-page`), the international AGP one-pager: `summary`, `statistics`,
    ///   `time-in-ranges`, `agp`, `daily-profiles` (a week strip, lows in red);
    /// - page 2 (`predictions-page`): `test-accuracy` (test days only), `predicted-lows`,
    ///   `dose-summary`;
    /// - the appendix: `metrics`, `daily`, `accuracy`, `error-grids`, `predicted-episodes`,
    ///   `dose-audit`, `model`.
    public var html: String {
        let page = [Crowding.spacious: "page", .crowded: "page crowded", .packed: "page crowded packed"][crowding]!
        var body = "<div class=\"\(page)\" id=\"agp-page\">\n" + header
        body += "<div class=\"row\">\n" + statisticsSection + timeInRangesSection + "</div>\n"
        body += agpSection + dailyProfilesSection + "</div>\n"
        body += "<div class=\"page\" id=\"predictions-page\">\n"
        body += "<h1>Predictions and dose advice: patient \(HTML.escape(patient.rawValue))</h1>\n"
        body += testAccuracySection + predictedLowsSection + doseSummarySection
        body += "<footer>Made by GlucoModel from this patient's data and trained models. Patient identified by a pseudonymous id only. Predictions are made at each moment from the data up to that moment. Dose figures are advice for review, never an instruction. Not a medical device: check every figure against the clinical record.</footer>\n"
        body += "</div>\n<div class=\"appendix\">\n<h1>Appendix: details for the care team and researchers</h1>\n"
        body += metricsSection + dailySection + accuracySection + errorGridSection + episodeSection + doseAuditSection + settingsSection + modelSection
        body += "</div>\n"
        return ReportPage.wrap(title: "Glucose report \(patient.rawValue)", body: body, paper: paper)
    }

    func modelName(_ name: String) -> String {
        ModelKind(rawValue: name)?.displayName ?? name
    }

    func metText(_ met: Bool?) -> HTMLCell {
        switch met {
        case true?: return HTMLCell("\u{2713} met", cssClass: "ok")
        case false?: return HTMLCell("\u{2717} not met", cssClass: "bad")
        case nil: return ""
        }
    }

    /// `value` as the page prints it, with `decimals` decimals: a verdict printed next to a rounded
    /// number is made on that number, so that "CV 36.0% (target <= 36%)" reads met, never "NOT met"
    /// for a 36.03 the page does not show.
    func shown(_ value: Double, _ decimals: Int = 1) -> Double {
        printedValue(value, decimals: decimals)
    }

    /// A glucose in the report's unit with the unit: `142 mg/dL` / `7.9 mmol/L`.
    func glucose(_ mgdL: Double, _ mgdLDecimals: Int = 0) -> String { units.withUnit(mgdL, mgdLDecimals: mgdLDecimals) }

    /// A glucose number in the report's unit: `142` / `7.9`; `-` when unknown.
    func glucoseNumber(_ mgdL: Double?, _ mgdLDecimals: Int = 0) -> String {
        mgdL.map { units.format($0, mgdLDecimals: mgdLDecimals) } ?? "-"
    }

    /// The end of a run that began at `start`: its time, or its date and time when it ends on
    /// another day (a run from 23:50 to 00:40 read "14:35-03:25" on the start's date).
    func endTime(_ end: Date, after start: Date) -> String {
        clock.date(end) == clock.date(start) ? clock.time(end) : clock.dateTime(end)
    }

    /// A glucose beside a threshold, never printed as the threshold unless it is it: a predicted low
    /// of 69.6 reads `69.6`, not `70` below 70 (`GlucoseUnit.format(_:apartFrom:)`).
    func glucoseNumber(_ mgdL: Double?, apartFrom threshold: Double) -> String {
        mgdL.map { units.format($0, apartFrom: threshold) } ?? "-"
    }

    var periodText: String {
        "\(clock.dateTime(period.start)) to \(clock.dateTime(period.end)) (\(HTML.number(metrics.days)) days; times in \(clock.zoneName))"
    }

    /// The shortest horizon's test-day figures of the evolved model and each baseline, from the
    /// model file (never the report period, which may include training days).
    var headlineTest: [SplitMetrics] {
        guard let h = models.first?.horizonMinutes else { return [] }
        return testMetrics.filter { $0.horizonMinutes == h }.map(\.metrics)
    }

    var header: String {
        var items: [String] = []
        func met(_ m: Bool?) -> String { m.map { $0 ? "met" : "NOT met" } ?? "n/a" }
        let ranges = units.consensusRanges
        let lowTotal = metrics.tbrLevel1 + metrics.tbrLevel2
        items.append("Time in range \(ranges[2]) \(units.rawValue): \(formatPercent(metrics.tir)) (target > 70%: \(met(metrics.tir.isNaN ? nil : shown(metrics.tir) > 70)))")
        items.append("Time below \(units.format(70)) \(units.rawValue): \(formatPercent(lowTotal)) (target < 4%: \(met(lowTotal.isNaN ? nil : shown(lowTotal) < 4))); below \(units.format(54)): \(formatPercent(metrics.tbrLevel2)) (target < 1%: \(met(metrics.tbrLevel2.isNaN ? nil : shown(metrics.tbrLevel2) < 1))); hypo episodes: \(metrics.hypoLevel1.count)")
        items.append("Mean glucose \(glucose(metrics.mean)), GMI \(HTML.number(metrics.gmi, 1))%, CV \(HTML.number(metrics.cv))% (target <= 36%: \(met(metrics.cv.isNaN ? nil : shown(metrics.cv) <= 36)))")
        let test = headlineTest
        if let h = models.first?.horizonMinutes, let ge = test.first(where: { $0.model == Self.evolvedModel }) {
            let others = test.filter { $0.model != Self.evolvedModel }.map { "\(modelName($0.model)) \(units.format($0.rmse, mgdLDecimals: 1))" }
            items.append("\(h)-min predictions on test days: RMSE \(glucose(ge.rmse, 1)) (\(others.joined(separator: ", "))); Clarke A+B \(formatPercent(ge.clarkeAB))")
        } else if let m = models.first, m.training.testFrom != nil {
            items.append("\(m.horizonMinutes)-min predictions on test days: none could be scored"
                         + (testMetrics.isEmpty ? " (page 2 says why)" : " (page 2 gives the longer horizons' figures)"))
        }
        var s = "<header id=\"summary\">\n<h1>Glucose report: patient \(HTML.escape(patient.rawValue))</h1>\n"
        s += HTML.paragraph("Period: " + periodText, cssClass: "period")
        s += "<ul class=\"glance\">\n" + items.map { "<li>\(HTML.escape($0))</li>\n" }.joined() + "</ul>\n"
        let flagged = sensorLimitFlag + notes.map { HTML.paragraph($0, cssClass: "note") }.joined()
        if !flagged.isEmpty {
            s += "<div class=\"notes\(crowding == .spacious ? "" : " many")\">\n" + flagged + "</div>\n"
        }
        return s + "</header>\n"
    }

    /// How full the header's notes make page 1, by the lines they take printed at full width (about
    /// 140 characters a line at 9.5 px, on A4 and Letter alike). Up to 4 lines page 1 is printed as
    /// drawn; beyond, the notes go in two columns and the AGP is drawn lower (50 mm); beyond 13 lines
    /// (the 5 notes of hunt AQ's patient), lower still (44 mm), and the strip shows the last week
    /// alone. Hunt AQ: with 3 notes on Letter or 4 on A4, the strip spilled onto page 2 and the
    /// clinician view took three pages. Measured by printing with Chromium: each tier holds page 1
    /// on Letter up to 21 lines of notes (7 notes of 3 lines; scripts/render-report.sh).
    enum Crowding: Equatable { case spacious, crowded, packed }

    var crowding: Crowding {
        let lines = ([sensorLimitText].compactMap { $0 } + notes).map { ($0.count + 139) / 140 }.reduce(0, +)
        return lines <= 4 ? .spacious : lines <= 13 ? .crowded : .packed
    }

    /// The header's warning when the CGM sat at its limits or flat-lined in the period.
    var sensorLimitFlag: String {
        sensorLimitText.map { "<p class=\"note flag\" id=\"sensor-limits\">\(HTML.escape($0))</p>\n" } ?? ""
    }

    var sensorLimitText: String? {
        let runs = sensorLimitRuns
        guard !runs.isEmpty else { return nil }
        let hours = runs.reduce(0) { $0 + $1.duration } / 3600
        var text = "Sensor limits: \(Plural.of(runs.count, "run")) of CGM readings at the sensor's floor or ceiling or flat-lined "
            + "(\(formatNumber(hours, decimals: 1)) h, \(formatPercent(metrics.sensorLimitPercent)) of readings). "
            + "They are counted in the statistics below (check them: a stuck sensor reads as a low or a high), "
            + (keepSensorLimits ? "and scored in the prediction accuracy." : "but left out of the prediction accuracy.")
        let longest = runs.max { $0.duration < $1.duration }!
        text += " Longest: " + longest.describe(clock: clock, units: units) + "."
        return text
    }

    /// Page 1's statistics and targets, as the AGP report lists them.
    var statisticsSection: String {
        let ranges = units.consensusRanges
        func row(_ label: String, _ value: String, _ target: String, _ met: Bool?) -> [HTMLCell] {
            [HTMLCell(label), .number(value), HTMLCell(target), metText(met)]
        }
        let m = metrics
        let rows: [[HTMLCell]] = [
            row("Days / CGM active", "\(HTML.number(m.days)) d / \(formatPercent(m.percentActive))", ">= 14 d, >= 70%",
                m.days.isNaN ? nil : shown(m.days) >= 14 && shown(m.percentActive) >= 70),
            row("Mean glucose", glucose(m.mean), "", nil),
            row("GMI", HTML.number(m.gmi, 1) + "%", "", nil),
            row("Glucose variability (CV)", formatPercent(m.cv), "<= 36%", m.cv.isNaN ? nil : shown(m.cv) <= 36),
            row("Very low \(ranges[0])", formatPercent(m.tbrLevel2), "< 1%", m.tbrLevel2.isNaN ? nil : shown(m.tbrLevel2) < 1),
            row("Low \(ranges[1])", formatPercent(m.tbrLevel1), "< 4% (with very low)", m.tbrLevel2.isNaN ? nil : shown(m.tbrLevel1 + m.tbrLevel2) < 4),
            row("In range \(ranges[2])", formatPercent(m.tir), "> 70%", m.tir.isNaN ? nil : shown(m.tir) > 70),
            row("High \(ranges[3])", formatPercent(m.tarLevel1), "< 25% (with very high)", m.tarLevel1.isNaN ? nil : shown(m.tarLevel1 + m.tarLevel2) < 25),
            row("Very high \(ranges[4])", formatPercent(m.tarLevel2), "< 5%", m.tarLevel2.isNaN ? nil : shown(m.tarLevel2) < 5),
            row("GRI (risk index)", HTML.number(m.gri), "lower is better", nil),
        ]
        return HTML.section(id: "statistics", title: "Statistics and targets (glucose in \(units.rawValue))",
                            HTML.table(header: ["", "Value", "Target", "Met"], rows: rows))
    }

    var timeInRangesSection: String {
        HTML.section(id: "time-in-ranges", title: "Time in ranges",
                     "<figure>\(TimeInRangeBar(metrics: metrics, units: units).svg())</figure>\n"
                     + HTML.paragraph("Share of the \(metrics.readingsPresent) CGM readings in each range (\(units.rawValue)).", cssClass: "muted"))
    }

    var agpSection: String {
        HTML.section(id: "agp", title: "Ambulatory glucose profile (AGP)",
                     "<figure>\(agp.svg(width: 720, height: 300, units: units))</figure>\n"
                     + HTML.paragraph("All days folded onto one day: median (bold line), 25-75% (dark band) and 5-95% (light band) of the readings per \(agp.binMinutes) minutes, smoothed over the neighbouring half hour each side; green band: target \(units.range(70, 180)) \(units.rawValue); lines at \(units.format(54)), \(units.format(70)), \(units.format(180)) and \(units.format(250)).", cssClass: "muted"))
    }

    /// At most this many days in page 1's strip (the consensus period): the latest ones.
    static let stripDays = 14

    var dailyProfilesSection: String {
        let shown = days.suffix(crowding == .packed ? 7 : Self.stripDays)
        var s = "<div class=\"week\">\n"
        for day in shown { s += "<div class=\"strip-day\">\(day.stripSVG(clock: clock))</div>\n" }
        s += "</div>\n"
        let more = days.count > shown.count ? " The last \(shown.count) of \(days.count) days; every day in the appendix." : ""
        s += HTML.paragraph("Each day midnight to midnight; green band \(units.range(70, 180)) \(units.rawValue); red: below \(units.format(70)) \(units.rawValue).\(more)", cssClass: "muted")
        return HTML.section(id: "daily-profiles", title: "Daily glucose profiles", s)
    }
}
