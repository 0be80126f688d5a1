import Foundation

/// The cohort's index page: one row per patient report, linking to it, with the headline
/// figures; and the patients that got no report, with why.
public struct CohortReport: Sendable {
    public struct Entry: Sendable {
        public var patient: PatientID
        /// The report's file name, relative to the index page.
        public var file: String
        public var period: DateInterval
        public var days: Double
        public var tir: Double
        public var gmi: Double
        public var cv: Double
        /// The evolved model's test RMSE per horizon, from the model files (mg/dL).
        public var testRMSE: [Int: Double]
        /// Clarke A+B (%) of the evolved model's shortest-horizon predictions on the report period.
        public var clarkeAB: Double
        public var clarkeHorizon: Int?

        public init(report: PatientReport, file: String) {
            patient = report.patient
            self.file = file
            period = report.period
            days = report.metrics.days
            tir = report.metrics.tir
            gmi = report.metrics.gmi
            cv = report.metrics.cv
            testRMSE = report.testRMSE
            clarkeAB = report.chartAccuracy?.clarke.percentAB ?? .nan
            clarkeHorizon = report.chartHorizon
        }
    }

    public var entries: [Entry]
    /// Patients without a report: (subject, reason).
    public var failures: [(subject: String, reason: String)]
    public var clock: ReportClock

    public init(entries: [Entry], failures: [(subject: String, reason: String)] = [], clock: ReportClock = .utc) {
        self.entries = entries.sorted { $0.patient < $1.patient }
        self.failures = failures
        self.clock = clock
    }

    /// The file name of a patient's report in a cohort folder: `<patient>.html`.
    public static func fileName(for patient: PatientID) -> String { patient.rawValue + ".html" }

    /// The index page: self-contained HTML, every text escaped, one relative link per patient.
    public var html: String {
        let horizons = Array(Set(entries.flatMap(\.testRMSE.keys))).sorted()
        var s = "<header id=\"summary\">\n<h1>Cohort glucose reports</h1>\n"
        s += HTML.paragraph("\(entries.count) patient reports; times in \(clock.zoneName). Test RMSE: the evolved model on its own test days (from training). Clarke A+B: the evolved model's shortest-horizon predictions on the report period.", cssClass: "period")
        s += "</header>\n"
        var table = "<table id=\"cohort\">\n<thead><tr><th>Patient</th><th>Period</th><th>Days</th><th>TIR</th><th>GMI</th><th>CV</th>"
        table += horizons.map { "<th>Test RMSE \($0) min</th>" }.joined() + "<th>Clarke A+B</th></tr></thead>\n<tbody>\n"
        for e in entries {
            table += "<tr><td><a href=\"\(HTML.escape(e.file))\">\(HTML.escape(e.patient.rawValue))</a></td>"
            let cells: [HTMLCell] = [
                HTMLCell("\(clock.date(e.period.start)) to \(clock.date(e.period.end))"),
                .number(HTML.number(e.days)),
                Self.marked(formatPercent(e.tir), e.tir > 70),
                .number(HTML.number(e.gmi) + "%"),
                Self.marked(formatPercent(e.cv), e.cv <= 36),
            ] + horizons.map { .number(HTML.number(e.testRMSE[$0])) }
                + [.number(formatPercent(e.clarkeAB) + (e.clarkeHorizon.map { " (\($0) min)" } ?? ""))]
            table += cells.map(\.html).joined() + "</tr>\n"
        }
        table += "</tbody></table>\n"
        s += HTML.section(id: "patients", title: "Patients", table)
        if !failures.isEmpty {
            s += HTML.section(id: "skipped", title: "No report",
                              "<ul>\n" + failures.map { "<li>\(HTML.escape("\($0.subject): \($0.reason)"))</li>\n" }.joined() + "</ul>\n")
        }
        s += "<footer>Made by GlucoModel. Patients identified by pseudonymous ids only.</footer>\n"
        return ReportPage.wrap(title: "Cohort glucose reports", body: s)
    }

    /// A value against its consensus target (TIR > 70%, CV <= 36%), marked in colour and with
    /// a sign (so it also reads in black and white).
    static func marked(_ text: String, _ met: Bool) -> HTMLCell {
        HTMLCell(text + (met ? " \u{2713}" : " \u{2717}"), cssClass: met ? "num ok" : "num bad")
    }

    public func write(to url: URL) throws {
        try Data(html.utf8).write(to: url, options: .atomic)
    }
}
