/// Day/month order for formats whose dates are ambiguous (LibreView, hand-written CSV).
public enum DateOrder: String, Sendable, Codable, CaseIterable {
    case dayMonthYear = "dmy"
    case monthDayYear = "mdy"
}

/// What every numeric date of a file proves about its day/month order, gathered row by row
/// (a first pass over the date column: constant memory, whatever the file's length).
///
/// Only a field above 12 proves an order (it cannot be a month); a 12-hour clock does not, since
/// day-first locales write it too (en-AU, en-IN: `13-02-2026 08:00 AM`). The file's order is the
/// one its rows prove; rows proving both orders contradict each other, and rows proving neither
/// leave it open: both are errors asking for the date order option.
struct DateOrderEvidence {
    /// A row that proves an order: its line and its date as written.
    typealias Witness = (line: Int, text: String)

    /// Rows with a numeric date.
    private(set) var dated = 0
    /// The first row that can only be day-first, and the first that can only be month-first.
    private(set) var dayFirst: Witness?, monthFirst: Witness?

    /// Whether further rows can change the verdict (false once both orders are proven).
    var open: Bool { dayFirst == nil || monthFirst == nil }

    /// Counts a row's date; `text` (the date as written) is read only for a row that proves an order.
    mutating func add(_ date: AmbiguousDate, line: Int, text: () -> String) {
        dated += 1
        switch date.impliedOrder {
        case .dayMonthYear? where dayFirst == nil: dayFirst = (line, text())
        case .monthDayYear? where monthFirst == nil: monthFirst = (line, text())
        default: break
        }
    }

    /// The order the rows prove, or `undecided` (the date order option) when rows with dates prove
    /// neither or both, or the error: `error(message)` places it (the file and column). A file whose
    /// rows prove one order is read in it whatever the option (hunt AI, stop 57: `import-data
    /// --date-order mdy` stored a day-first export's 5-12 January as May to December).
    func order(column: String, undecided: DateOrder? = nil, _ error: (String) -> InputError) throws -> DateOrder {
        if (dayFirst == nil) == (monthFirst == nil), dated > 0, let undecided { return undecided }
        switch (dayFirst, monthFirst) {
        case (_?, nil): return .dayMonthYear
        case (nil, _?): return .monthDayYear
        case let (d?, m?):
            throw error("the dates prove both orders: line \(d.line) '\(d.text.prefix(40))' can only be day-month and "
                        + "line \(m.line) '\(m.text.prefix(40))' only month-day; set the date order option (dmy or mdy)")
        case (nil, nil):
            throw error(dated == 0
                        ? "no row has a date in the \(column) column (a header and no data?)"
                        : "every date reads both as day-month and month-day; set the date order option (dmy or mdy)")
        }
    }
}
