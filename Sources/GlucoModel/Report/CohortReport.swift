import Foundation

/// The cohort's index page: one row per patient report, linking to it, sorted by risk and
/// flagged, as clinic population views are read; and the patients that got no report, with why.
public struct CohortReport: Sendable {
    public struct Entry: Sendable {
        public var patient: PatientID
        /// The report's file name, relative to the index page.
        public var file: String
        public var period: DateInterval
        public var days: Double
        /// % of expected CGM readings present.
        public var percentActive: Double
        /// % of readings below 54 mg/dL, and below 70 (levels 1 and 2 together).
        public var below54: Double
        public var below70: Double
        /// % of readings above 250 mg/dL, and above 180 (levels 1 and 2 together).
        public var above250: Double = .nan
        public var above180: Double = .nan
        public var tir: Double
        public var gri: Double
        public var gmi: Double
        public var cv: Double
        /// Runs at the sensor's limits and flat lines in the period.
        public var sensorLimitRuns: Int
        public var sensorLimitPercent: Double
        /// The evolved model's test RMSE per horizon, from the model files (mg/dL).
        public var testRMSE: [Int: Double]
        /// Clarke A+B (%) of the evolved model's shortest-horizon predictions on the report period.
        public var clarkeAB: Double
        public var clarkeHorizon: Int?

        public init(report: PatientReport, file: String) {
            let m = report.metrics
            patient = report.patient
            self.file = file
            period = report.period
            days = m.days
            percentActive = m.percentActive
            below54 = m.tbrLevel2
            below70 = m.tbrLevel1 + m.tbrLevel2
            above250 = m.tarLevel2
            above180 = m.tarLevel1 + m.tarLevel2
            tir = m.tir
            gri = m.gri
            gmi = m.gmi
            cv = m.cv
            sensorLimitRuns = m.sensorLimitRuns.count
            sensorLimitPercent = m.sensorLimitPercent
            testRMSE = report.testRMSE
            clarkeAB = report.chartAccuracy?.clarke.percentAB ?? .nan
            clarkeHorizon = report.chartHorizon
        }

        /// Why the row needs a look, most urgent first: time below 54 >= 1% or below 70 >= 4%, above
        /// 250 >= 5% or above 180 >= 25% (consensus targets; a person always high, 31.6% in range,
        /// was an unflagged row), too little data (< 14 days or < 70% CGM active: figures less
        /// reliable), sensor-limit runs (lows or highs may be a stuck sensor).
        /// The thresholds are printed in `units`; each share is judged as printed (4.0% is flagged).
        public func flags(units: GlucoseUnit = .mgdL) -> [String] {
            var out: [String] = []
            func shown(_ v: Double) -> Double { printedValue(v, decimals: 1) }
            if shown(below54) >= 1 { out.append("below \(units.format(54)) \(formatPercent(below54))") }
            if shown(below70) >= 4 { out.append("below \(units.format(70)) \(formatPercent(below70))") }
            if shown(above250) >= 5 { out.append("above \(units.format(250)) \(formatPercent(above250))") }
            if shown(above180) >= 25 { out.append("above \(units.format(180)) \(formatPercent(above180))") }
            if days < 14 - 1e-9 || !(percentActive >= 70) {
                out.append("data: \(formatNumber(days, decimals: 1)) d, \(formatPercent(percentActive)) active")
            }
            if sensorLimitRuns > 0 { out.append("sensor limits: \(Plural.of(sensorLimitRuns, "run")), \(formatPercent(sensorLimitPercent)) of readings") }
            return out
        }
    }

    public var entries: [Entry]
    /// Patients without a report: (subject, reason).
    public var failures: [(subject: String, reason: String)]
    public var clock: ReportClock
    public var units: GlucoseUnit

    /// - Parameter entries: in any order; kept sorted by `riskOrder`.
    public init(entries: [Entry], failures: [(subject: String, reason: String)] = [], clock: ReportClock = .utc, units: GlucoseUnit = .mgdL) {
        self.entries = entries.sorted(by: Self.riskOrder)
        self.failures = failures
        self.clock = clock
        self.units = units
    }

    /// Highest risk first: time below 54 mg/dL (descending), then GRI (descending), then the
    /// patient id; an unknown (NaN) figure sorts as the lowest.
    public static func riskOrder(_ a: Entry, _ b: Entry) -> Bool {
        func key(_ v: Double) -> Double { v.isNaN ? -.infinity : v }
        if key(a.below54) != key(b.below54) { return key(a.below54) > key(b.below54) }
        if key(a.gri) != key(b.gri) { return key(a.gri) > key(b.gri) }
        return a.patient < b.patient
    }

    /// The file name of a patient's report in a cohort folder: `<patient>.html`, except for a
    /// patient whose id is `index` in any case (a legal id), whose page would replace the cohort's
    /// `index.html` (or, on a file system that ignores case, be replaced by it):
    /// `index+patient.html`, a name no other patient's page can have (`+` is in no id).
    public static func fileName(for patient: PatientID) -> String {
        patient.rawValue.lowercased() == "index" ? patient.rawValue + "+patient.html" : patient.rawValue + ".html"
    }

    /// The index page: self-contained HTML, every text escaped, one relative link per patient.
    public var html: String {
        let horizons = Array(Set(entries.flatMap(\.testRMSE.keys))).sorted()
        let r = units.consensusRanges
        var s = "<header id=\"summary\">\n<h1>Cohort glucose reports</h1>\n"
        s += HTML.paragraph("\(entries.count) patient reports, highest risk first (time below \(units.format(54)) \(units.rawValue), then GRI); \(entries.count(where: { !$0.flags().isEmpty })) flagged. Times in \(clock.zoneName). Test RMSE: the evolved model on its own test days (from training), \(units.rawValue). Clarke A+B: the evolved model's shortest-horizon predictions on the report period.", cssClass: "period")
        s += "</header>\n"
        var table = "<div class=\"table-wrap\"><table id=\"cohort\">\n<thead><tr><th>Patient</th><th>Flags</th><th>Below \(HTML.escape(units.format(54)))</th><th>Below \(HTML.escape(units.format(70)))</th>"
        table += "<th>TIR \(HTML.escape(r[2]))</th><th>GRI</th><th>Days</th><th>CGM active</th><th>GMI</th><th>CV</th><th>Period</th>"
        table += horizons.map { "<th>Test RMSE \($0) min</th>" }.joined() + "<th>Clarke A+B</th></tr></thead>\n<tbody>\n"
        for e in entries {
            let flags = e.flags(units: units)
            table += "<tr\(flags.isEmpty ? "" : " class=\"flagged\"")><td><a href=\"\(HTML.escape(e.file))\">\(HTML.escape(e.patient.rawValue))</a></td>"
            let cells: [HTMLCell] = [
                HTMLCell(flags.isEmpty ? "" : "\u{26A0} " + flags.joined(separator: "; "), cssClass: flags.isEmpty ? nil : "bad"),
                Self.marked(formatPercent(e.below54), e.below54 < 1),
                Self.marked(formatPercent(e.below70), e.below70 < 4),
                Self.marked(formatPercent(e.tir), e.tir > 70),
                .number(HTML.number(e.gri)),
                .number(HTML.number(e.days)),
                .number(formatPercent(e.percentActive)),
                .number(HTML.number(e.gmi) + "%"),
                Self.marked(formatPercent(e.cv), e.cv <= 36),
                HTMLCell("\(clock.date(e.period.start)) to \(clock.date(e.period.end))"),
            ] + horizons.map { h in .number(e.testRMSE[h].map { units.format($0, mgdLDecimals: 1) } ?? "-") }
                + [.number(formatPercent(e.clarkeAB) + (e.clarkeHorizon.map { " (\($0) min)" } ?? ""))]
            table += cells.map(\.html).joined() + "</tr>\n"
        }
        table += "</tbody></table></div>\n"
        // Before the table: a patient without a report (no model: training failed, often for a CGM
        // at its floor) may be the one to see first.
        if !failures.isEmpty {
            s += HTML.section(id: "skipped", title: "No report",
                              "<ul>\n" + failures.map { "<li>\(HTML.escape("\($0.subject): \($0.reason)"))</li>\n" }.joined() + "</ul>\n")
        }
        s += HTML.section(id: "patients", title: "Patients", table)
        s += "<footer>Made by GlucoModel. Patients identified by pseudonymous ids only.</footer>\n"
        return ReportPage.wrap(title: "Cohort glucose reports", body: s, landscape: true)
    }

    /// Why a patient with data has no report: no model (its training was skipped or failed), with
    /// its time below 54 and 70 over `period` of `log`, which need no model: of its CGM readings,
    /// as the reports' (finger sticks, taken to confirm lows, doubled time below 54: hunt BW).
    public static func noModelReason(log: PatientLog, period: DateInterval?, units: GlucoseUnit) -> String {
        let readings = log.cgmReadings.filter { period?.contains($0.time) ?? true }
        var reason = "no trained model (its training was skipped or failed: the training run says why)"
        if readings.isEmpty, log.fingerStickCount > 0 {
            reason += "; no CGM readings, only \(Plural.of(log.fingerStickCount, "finger-stick reading")), which the CGM figures do not count"
        } else if !readings.isEmpty {
            let m = CGMMetrics(readings: readings)
            reason += "; its CGM over the report's days: \(formatPercent(m.tbrLevel2)) of readings below \(units.format(54)) "
                + "\(units.rawValue), \(formatPercent(m.tbrLevel1 + m.tbrLevel2)) below \(units.format(70))"
        }
        return reason
    }

    /// A value against its consensus target, marked in colour and with a sign (so it also reads
    /// in black and white).
    static func marked(_ text: String, _ met: Bool) -> HTMLCell {
        HTMLCell(text + (met ? " \u{2713}" : " \u{2717}"), cssClass: met ? "num ok" : "num bad")
    }

    public func write(to url: URL) throws {
        try AtomicTextFile.write(Data(html.utf8), to: url)
    }
}
