import Foundation

/// Writing HTML text safely: every text that comes from data, files or models goes through
/// `escape`; markup is only ever built from literals in this folder.
public enum HTML {
    /// Escapes `&`, `<`, `>`, `"` and `'`, so the text is inert both as element content and
    /// inside a quoted attribute value.
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for c in text.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// A table: a header row and body rows of text cells (escaped here), in a box that scrolls
    /// sideways when the table is wider than the screen (a phone: `ReportPage.css`).
    static func table(id: String? = nil, caption: String? = nil, header: [String], rows: [[HTMLCell]]) -> String {
        var s = "<div class=\"table-wrap\"><table" + (id.map { " id=\"\(escape($0))\"" } ?? "") + ">\n"
        if let caption { s += "<caption>\(escape(caption))</caption>\n" }
        s += "<thead><tr>" + header.map { "<th>\(escape($0))</th>" }.joined() + "</tr></thead>\n<tbody>\n"
        for row in rows {
            s += "<tr>" + row.map(\.html).joined() + "</tr>\n"
        }
        return s + "</tbody></table></div>\n"
    }

    static func paragraph(_ text: String, cssClass: String? = nil) -> String {
        "<p" + (cssClass.map { " class=\"\(escape($0))\"" } ?? "") + ">\(escape(text))</p>\n"
    }

    /// A section with an id and a level-2 heading around already-built markup.
    static func section(id: String, title: String, _ body: String) -> String {
        "<section id=\"\(escape(id))\">\n<h2>\(escape(title))</h2>\n\(body)</section>\n"
    }

    /// `12.3`, or `n/a` for NaN (see `formatNumber`).
    static func number(_ v: Double, _ decimals: Int = 1) -> String { formatNumber(v, decimals: decimals) }

    static func number(_ v: Double?, _ decimals: Int = 1) -> String { v.map { formatNumber($0, decimals: decimals) } ?? "-" }
}

/// One table cell: text (escaped when written) and an optional CSS class.
struct HTMLCell: ExpressibleByStringInterpolation {
    var text: String
    var cssClass: String?

    init(_ text: String, cssClass: String? = nil) { self.text = text; self.cssClass = cssClass }
    init(stringLiteral value: String) { self.init(value) }
    init(stringInterpolation: DefaultStringInterpolation) { self.init(String(stringInterpolation: stringInterpolation)) }

    /// A right-aligned number cell.
    static func number(_ text: String) -> HTMLCell { HTMLCell(text, cssClass: "num") }

    var html: String {
        "<td" + (cssClass.map { " class=\"\(HTML.escape($0))\"" } ?? "") + ">\(HTML.escape(text))</td>"
    }
}

/// Dates and times as a report shows them, on one time zone's clock (never the machine's
/// locale): `2026-01-15 13:05`.
public struct ReportClock: Sendable {
    public let timeZone: TimeZone
    let calendar: Calendar

    public init(timeZone: TimeZone) {
        self.timeZone = timeZone
        var c = Calendar(identifier: .gregorian)
        c.timeZone = timeZone
        calendar = c
    }

    public static let utc = ReportClock(timeZone: TimeZone(identifier: "UTC")!)

    func parts(_ d: Date) -> DateComponents {
        calendar.dateComponents([.year, .month, .day, .hour, .minute, .weekday], from: d)
    }

    func two(_ v: Int?) -> String { String(format: "%02d", v ?? 0) }

    /// `2026-01-15`
    public func date(_ d: Date) -> String {
        let p = parts(d)
        return "\(String(format: "%04d", p.year ?? 0))-\(two(p.month))-\(two(p.day))"
    }

    /// `13:05`; in the hour the clock shows twice (going back), with the offset that tells the two
    /// apart, `02:10 (+02:00)` then `02:10 (+01:00)` (hunt D: a predicted low "from 02:10, first
    /// issued 02:40" read as issued after its target).
    public func time(_ d: Date) -> String {
        let p = parts(d)
        let text = "\(two(p.hour)):\(two(p.minute))"
        let same = [-3600.0, -1800, 1800, 3600].contains { shift in
            let q = parts(d.addingTimeInterval(shift))
            return q.day == p.day && q.hour == p.hour && q.minute == p.minute
        }
        return same ? text + " (\(timeZone.offsetText(at: d)))" : text
    }

    /// `2026-01-15 13:05`
    public func dateTime(_ d: Date) -> String { date(d) + " " + time(d) }

    /// `Thu 2026-01-15`
    public func dayLabel(_ d: Date) -> String {
        let names = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let w = parts(d).weekday ?? 1
        return names[(w - 1 + 7) % 7] + " " + date(d)
    }

    /// `Thu 01-15` (month-day), for small panels.
    public func shortDayLabel(_ d: Date) -> String {
        let p = parts(d)
        return String(dayLabel(d).prefix(3)) + " \(two(p.month))-\(two(p.day))"
    }

    public func startOfDay(_ d: Date) -> Date { calendar.startOfDay(for: d) }

    /// The local clock's hours `hours` of the day starting at `dayStart`, each with the hours
    /// elapsed since that midnight: a chart's axis is elapsed time (a 25-hour day is 25 hours
    /// wide), its ticks read the clock (after the clock goes back at 03:00, local 06:00 is 7 hours
    /// in). An hour the clock skips is its next time; 24 is the next midnight.
    func clockHours(_ hours: [Int], dayStart: Date) -> [(hour: Int, elapsed: Double)] {
        hours.compactMap { h in
            let t = h >= 24 ? nextDay(dayStart) : calendar.date(bySettingHour: h, minute: 0, second: 0, of: dayStart)
            return t.map { (h, $0.timeIntervalSince(dayStart) / 3600) }
        }
    }

    /// The start of the next day (23 or 25 hours later across a daylight-saving change).
    public func nextDay(_ dayStart: Date) -> Date {
        calendar.date(byAdding: .day, value: 1, to: dayStart) ?? dayStart.addingTimeInterval(86_400)
    }

    /// A short name of the zone for headers: `UTC`, `Europe/Madrid`.
    public var zoneName: String { timeZone.identifier == "GMT" ? "UTC" : timeZone.identifier }
}
