import Foundation

/// One day of a report: the measured glucose, one horizon's predictions placed at their
/// target times, and the carbohydrates and boluses given, for a small chart.
public struct DailyTrace: Sendable {
    /// Midnight starting the day, on the report's clock.
    public var dayStart: Date
    public var dayEnd: Date
    public var glucose: [(time: Date, mgdL: Double)]
    public var predictions: [(time: Date, mgdL: Double)]
    public var predictionHorizon: Int?
    public var carbs: [(time: Date, amount: Carbohydrate)]
    public var boluses: [(time: Date, dose: InsulinUnits)]
    /// The predictions' 80% intervals at their target times (mg/dL), when the model has them.
    public var bands: [(time: Date, lower: Double, upper: Double)] = []
    /// Long-acting (basal) injections: a person on pens, drawn beside the boluses.
    public var injections: [(time: Date, dose: InsulinUnits)] = []
    /// Exercise sessions overlapping the day: their start and end, drawn as shaded spans.
    public var exercise: [(start: Date, end: Date)] = []

    /// Readings further apart than this are not joined by the line (a gap in the data).
    public static let maximumJoin: TimeInterval = 15 * 60

    /// A day sharing less than this with the period gets no chart (e.g. the 5 minutes after
    /// midnight a default period ends with), unless it is the period's only day.
    public static let minimumOverlap: TimeInterval = 3 * 3600

    /// One trace per calendar day (on `clock`) that overlaps `period` by at least
    /// `minimumOverlap`, each holding only what falls inside both the day and the period.
    /// `predictions` are `(target time, value)`.
    public static func split(log: PatientLog, predictions: [(time: Date, mgdL: Double)], horizon: Int?,
                             period: DateInterval, clock: ReportClock,
                             bands: [(time: Date, lower: Double, upper: Double)] = []) -> [DailyTrace] {
        var traces: [DailyTrace] = []
        var day = clock.startOfDay(period.start)
        // Each list in time order once, then each day's records found by binary search: filtering
        // every list for every day made a 10-year report 2.4 times slower per day than a year's (hunt AJ, stop 58).
        let glucose = inTimeOrder(log.glucose.filter { $0.source == .cgm }, \.time), predictions = inTimeOrder(predictions, \.time)
        let carbs = inTimeOrder(log.carbs, \.time), boluses = inTimeOrder(log.boluses, \.time)
        let bands = inTimeOrder(bands, \.time), injections = inTimeOrder(log.basalInjections, \.time)
        while day < period.end {
            let next = clock.nextDay(day)
            let overlap = min(next, period.end).timeIntervalSince(max(day, period.start))
            let only = day <= period.start && next >= period.end
            defer { day = next }
            guard overlap >= minimumOverlap || only else { continue }
            let lo = max(day, period.start), hi = min(next, period.end)
            traces.append(DailyTrace(
                dayStart: day, dayEnd: next,
                glucose: within(glucose, \.time, lo, hi).map { ($0.time, $0.value.mgdL) },
                predictions: Array(within(predictions, \.time, lo, hi)),
                predictionHorizon: horizon,
                carbs: within(carbs, \.time, lo, hi).map { ($0.time, $0.amount) },
                boluses: within(boluses, \.time, lo, hi).map { ($0.time, $0.dose) },
                bands: Array(within(bands, \.time, lo, hi)),
                injections: within(injections, \.time, lo, hi).map { ($0.time, $0.dose) },
                exercise: log.exercise.compactMap { e in
                    // Hunt D: exercise before a low was nowhere in the report. Clipped to the day and the period.
                    let start = max(e.time, day, period.start), end = min(e.time.addingTimeInterval(e.durationMinutes * 60), next, period.end)
                    return start < end ? (start, end) : nil
                }))
        }
        return traces
    }

    /// `items` in time order: as they are when they already are (a log's lists, predictions by
    /// time), else sorted, equal times keeping their order.
    static func inTimeOrder<T>(_ items: [T], _ time: (T) -> Date) -> [T] {
        guard zip(items, items.dropFirst()).contains(where: { time($0) > time($1) }) else { return items }
        return items.enumerated().sorted { (time($0.element), $0.offset) < (time($1.element), $1.offset) }.map(\.element)
    }

    /// The items of `sorted` (in time order) at or after `lo` and before `hi`.
    static func within<T>(_ sorted: [T], _ time: (T) -> Date, _ lo: Date, _ hi: Date) -> ArraySlice<T> {
        let start = PatientLog.firstIndex(sorted, atOrAfter: lo, time: time)
        return sorted[start..<max(start, PatientLog.firstIndex(sorted, atOrAfter: hi, time: time))]
    }

    func hours(_ t: Date) -> Double { t.timeIntervalSince(dayStart) / 3600 }

    /// Consecutive points split where they are more than `maximumJoin` apart.
    func runs(_ points: [(time: Date, mgdL: Double)]) -> [[(Double, Double)]] {
        Self.joined(points.filter { $0.mgdL.isFinite }, time: \.time).map { run in run.map { (hours($0.time), min($0.mgdL, 400)) } }
    }

    /// `items` (in time order) cut into runs wherever two neighbours are more than `maximumJoin`
    /// apart: the pieces a chart joins with one line each, leaving gaps in the data open.
    static func joined<T>(_ items: [T], time: (T) -> Date) -> [[T]] {
        var out: [[T]] = [], current: [T] = []
        for item in items {
            if let last = current.last, time(item).timeIntervalSince(time(last)) > maximumJoin { out.append(current); current = [] }
            current.append(item)
        }
        if !current.isEmpty { out.append(current) }
        return out
    }

    /// A small chart: 70-180 mg/dL band, glucose line, predictions dashed, carbohydrates as
    /// orange triangles at the bottom (grams) and boluses as blue triangles at the top (units).
    /// Values above 400 mg/dL are drawn at 400. The glucose axis is labelled in `units`.
    public func svg(clock: ReportClock, width: Double = 540, height: Double = 210, units: GlucoseUnit = .mgdL) -> String {
        let span = max(1, dayEnd.timeIntervalSince(dayStart) / 3600)
        var plot = SVGPlot(width: width, height: height, xRange: 0...span, yRange: 0...400,
                           title: clock.dayLabel(dayStart), xLabel: "", yLabel: units.rawValue)
        // Ticks on the local clock, placed by elapsed time (hunt D: on the 25-hour day of the
        // clock going back, ticks of elapsed hours drew a 14:15 lunch at "15:15").
        let ticks = clock.clockHours(Array(stride(from: 0, through: 24, by: 3)), dayStart: dayStart)
        let labels = Dictionary(ticks.map { ($0.elapsed, "\($0.hour)") }, uniquingKeysWith: { a, _ in a })
        plot.axes(xTicks: ticks.map(\.elapsed), yTicks: [0, 70, 180, 250, 400], xText: { labels[$0] ?? "" }, yText: { units.format($0) })
        plot.polygon([(0, 70), (span, 70), (span, 180), (0, 180)], fill: "#e3f4e1")
        // The 80% interval of the predictions: upper bounds forward, lower bounds back, per run.
        for (upper, lower) in zip(runs(bands.map { ($0.time, $0.upper) }), runs(bands.map { ($0.time, $0.lower) })) {
            plot.polygon(upper + lower.reversed(), fill: "#fdd9b5")
        }
        for e in exercise { plot.polygon([(hours(e.start), 0), (hours(e.end), 0), (hours(e.end), 400), (hours(e.start), 400)], fill: "#d9d2e9") }
        for run in runs(glucose) { plot.polyline(run, stroke: "#08306b", width: 1.5) }
        for run in runs(predictions) { plot.polyline(run, stroke: "#d95f02", width: 1.3, dash: "4,3") }
        if glucose.isEmpty {
            plot.body.append("<text x=\"\(SVGPlot.n(plot.px(span / 2)))\" y=\"\(SVGPlot.n(plot.py(220)))\" text-anchor=\"middle\" fill=\"#777\">no readings</text>")
        }
        // Markers sit inside the plot box (it clips): carbohydrates point up from the bottom
        // edge with their grams above; boluses point down from the top edge with their units below.
        // A label that would overlap its neighbour's moves a line further in (`labelLines`): ten
        // small meals a day drew "0.8U" over "0.6U" as "1.0.5U".
        func markers(_ items: [(time: Date, text: String, colour: String)], up: Bool) {
            let n = SVGPlot.n
            let xs = items.map { plot.px(hours($0.time)) }
            let lines = Self.labelLines(xs.enumerated().map { ($1, Self.labelWidth(items[$0].text)) })
            for (i, item) in items.enumerated() {
                let x = xs[i]
                let base = up ? plot.py(0) - 2 : plot.py(400) + 2
                let tip = up ? base - 7 : base + 7
                plot.body.append("<polygon points=\"\(n(x - 4)),\(n(base)) \(n(x + 4)),\(n(base)) \(n(x)),\(n(tip))\" fill=\"\(item.colour)\"/>")
                let shift = Double(lines[i]) * Self.labelLineHeight
                let ty = up ? tip - 3 - shift : tip + 10 + shift
                plot.body.append("<text x=\"\(n(x))\" y=\"\(n(ty))\" text-anchor=\"middle\" font-size=\"10\" fill=\"\(item.colour)\" stroke=\"white\" stroke-width=\"3\" paint-order=\"stroke\">\(HTML.escape(item.text))</text>")
            }
        }
        markers(carbs.sorted { $0.time < $1.time }.map { ($0.time, formatNumber($0.amount.grams, decimals: 0) + "g", "#b35806") }, up: true)
        let insulin = boluses.map { ($0.time, formatNumber($0.dose.units, decimals: 1) + "U", "#2166ac") }
            + injections.map { ($0.time, formatNumber($0.dose.units, decimals: 1) + "U LA", "#762a83") }
        markers(insulin.sorted { $0.0 < $1.0 }, up: false)
        return plot.render()
    }

    /// Lines between two labels' baselines (font size 10).
    static let labelLineHeight = 11.0
    /// At most this many lines of labels: beyond, a label shares the line whose last label ends first.
    static let labelLineCount = 3

    /// The width a label takes at font size 10 (about 6 px a character, with a pixel's margin each side).
    static func labelWidth(_ text: String) -> Double { Double(text.count) * 6 + 2 }

    /// For labels centred at `x` with `width` (in x order), the line each goes on (0 at the marker):
    /// the first line where it clears the last label placed there.
    static func labelLines(_ labels: [(x: Double, width: Double)]) -> [Int] {
        var ends = [Double](repeating: -.infinity, count: labelLineCount)
        return labels.map { label in
            let start = label.x - label.width / 2
            let line = ends.firstIndex { $0 <= start } ?? ends.indices.min { ends[$0] < ends[$1] }!
            ends[line] = label.x + label.width / 2
            return line
        }
    }
}
