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

    /// Readings further apart than this are not joined by the line (a gap in the data).
    public static let maximumJoin: TimeInterval = 15 * 60

    /// One trace per calendar day (on `clock`) that overlaps `period`, each holding only what
    /// falls inside both the day and the period. `predictions` are `(target time, value)`.
    public static func split(log: PatientLog, predictions: [(time: Date, mgdL: Double)], horizon: Int?,
                             period: DateInterval, clock: ReportClock) -> [DailyTrace] {
        var traces: [DailyTrace] = []
        var day = clock.startOfDay(period.start)
        func inside(_ t: Date, _ lo: Date, _ hi: Date) -> Bool { t >= lo && t < hi && t >= period.start && t < period.end }
        while day < period.end {
            let next = clock.nextDay(day)
            traces.append(DailyTrace(
                dayStart: day, dayEnd: next,
                glucose: log.glucose.filter { $0.source == .cgm && inside($0.time, day, next) }.map { ($0.time, $0.value.mgdL) },
                predictions: predictions.filter { inside($0.time, day, next) },
                predictionHorizon: horizon,
                carbs: log.carbs.filter { inside($0.time, day, next) }.map { ($0.time, $0.amount) },
                boluses: log.boluses.filter { inside($0.time, day, next) }.map { ($0.time, $0.dose) }))
            day = next
        }
        return traces
    }

    func hours(_ t: Date) -> Double { t.timeIntervalSince(dayStart) / 3600 }

    /// Consecutive points split where they are more than `maximumJoin` apart.
    func runs(_ points: [(time: Date, mgdL: Double)]) -> [[(Double, Double)]] {
        var out: [[(Double, Double)]] = [], current: [(Double, Double)] = []
        var last: Date?
        for p in points where p.mgdL.isFinite {
            if let l = last, p.time.timeIntervalSince(l) > Self.maximumJoin, !current.isEmpty { out.append(current); current = [] }
            current.append((hours(p.time), min(p.mgdL, 400)))
            last = p.time
        }
        if !current.isEmpty { out.append(current) }
        return out
    }

    /// A small chart: 70-180 mg/dL band, glucose line, predictions dashed, carbohydrates as
    /// orange triangles at the bottom (grams) and boluses as blue triangles at the top (units).
    /// Values above 400 mg/dL are drawn at 400.
    public func svg(clock: ReportClock, width: Double = 540, height: Double = 210) -> String {
        let span = max(1, dayEnd.timeIntervalSince(dayStart) / 3600)
        var plot = SVGPlot(width: width, height: height, xRange: 0...span, yRange: 0...400,
                           title: clock.dayLabel(dayStart), xLabel: "", yLabel: "mg/dL")
        plot.axes(xTicks: stride(from: 0.0, through: span, by: 3).map { $0 }, yTicks: [0, 70, 180, 250, 400])
        plot.polygon([(0, 70), (span, 70), (span, 180), (0, 180)], fill: "#e3f4e1")
        for run in runs(glucose) { plot.polyline(run, stroke: "#08306b", width: 1.5) }
        for run in runs(predictions) { plot.polyline(run, stroke: "#d95f02", width: 1.3, dash: "4,3") }
        if glucose.isEmpty {
            plot.body.append("<text x=\"\(SVGPlot.n(plot.px(span / 2)))\" y=\"\(SVGPlot.n(plot.py(220)))\" text-anchor=\"middle\" fill=\"#777\">no readings</text>")
        }
        func marker(_ t: Date, _ text: String, y: Double, down: Bool, colour: String) {
            let x = plot.px(hours(t)), yy = plot.py(y)
            let tip = down ? yy + 6 : yy - 6
            plot.body.append("<polygon points=\"\(SVGPlot.n(x - 4)),\(SVGPlot.n(yy)) \(SVGPlot.n(x + 4)),\(SVGPlot.n(yy)) \(SVGPlot.n(x)),\(SVGPlot.n(tip))\" fill=\"\(colour)\"/>")
            let ty = down ? yy - 3 : yy + 10
            plot.body.append("<text x=\"\(SVGPlot.n(x))\" y=\"\(SVGPlot.n(ty))\" text-anchor=\"middle\" font-size=\"9\" fill=\"\(colour)\">\(HTML.escape(text))</text>")
        }
        for c in carbs { marker(c.time, formatNumber(c.amount.grams, decimals: 0) + "g", y: 14, down: false, colour: "#b35806") }
        for b in boluses { marker(b.time, formatNumber(b.dose.units, decimals: 1) + "U", y: 378, down: true, colour: "#2166ac") }
        return plot.render()
    }
}
