import Foundation

/// A training run's research summary as one self-contained HTML page (inline SVG, no scripts,
/// no network): per horizon and model the test RMSE, MAE and Clarke A+B with their spread across
/// patients (median, min-max) and a dot per patient; predicted against measured traces of each
/// patient's first test day at the shortest horizon; and the Clarke and Parkes (type 1) grids of
/// every model with all patients' test predictions at the shortest horizon.
public struct ResearchSummary: Sendable {
    /// One patient's predictions at one horizon, as the trainer writes `predictions/<p>-h030.csv`.
    public struct Predictions: Sendable {
        public var patient: PatientID
        public var horizonMinutes: Int
        /// Test rows: target time, measured, and each model's prediction (mg/dL).
        public var rows: [(target: Date, reference: Double, models: [String: Double])]

        /// Parses the trainer's CSV (`issued_at,target_time,split,reference_mgdl,<model>...`; files of
        /// earlier runs, `time,split,reference,<model>...`, too), keeping the test rows with a
        /// measured reference; unreadable lines are skipped.
        public init(patient: PatientID, horizonMinutes: Int, csv: String) {
            self.patient = patient
            self.horizonMinutes = horizonMinutes
            // Line by line: only the test rows are split into fields (a long run's files are mostly
            // training and validation rows).
            var lines = csv.split(separator: "\n")[...]
            guard let first = lines.popFirst() else { rows = []; return }
            let header = first.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard let t = header.firstIndex(of: "target_time") ?? header.firstIndex(of: "time"), let s = header.firstIndex(of: "split"),
                  let r = header.firstIndex(of: "reference_mgdl") ?? header.firstIndex(of: "reference") else { rows = []; return }
            let modelColumns = header.indices.filter { $0 > r }
            rows = lines.compactMap { line in
                guard line.contains(",test,") || line.hasPrefix("test,") else { return nil }
                let f = line.split(separator: ",", omittingEmptySubsequences: false)
                guard f.count == header.count, f[s] == "test", let ref = Double(f[r]), ref.isFinite,
                      let when = TimestampParser.iso8601(String(f[t]))?.instant else { return nil }
                var models: [String: Double] = [:]
                for c in modelColumns { if let v = Double(f[c]), v.isFinite { models[header[c]] = v } }
                return (when, ref, models)
            }
        }
    }

    public var results: [ResultRow]
    public var predictions: [Predictions]
    public var units: GlucoseUnit

    public init(results: [ResultRow], predictions: [Predictions], units: GlucoseUnit = .mgdL) {
        self.results = results
        self.predictions = predictions
        self.units = units
    }

    /// Reads `results.csv` and the `predictions/*.csv` of the shortest horizon (the traces and
    /// grids draw that one; the tables come from `results.csv`) of a trainer's output folder.
    public static func load(_ output: URL, units: GlucoseUnit = .mgdL) throws -> ResearchSummary {
        let results = ResultsTable.parse(try String(contentsOf: output.appendingPathComponent("results.csv"), encoding: .utf8))
        let folder = output.appendingPathComponent("predictions")
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasSuffix(".csv") }.sorted()
        // <patient>-h030.csv
        let files = names.compactMap { name -> (name: String, patient: PatientID, horizon: Int)? in
            let stem = String(name.dropLast(4))
            guard let dash = stem.range(of: "-h", options: .backwards), let h = Int(stem[dash.upperBound...]),
                  let patient = try? PatientID(String(stem[..<dash.lowerBound])) else { return nil }
            return (name, patient, h)
        }
        let shortest = files.map(\.horizon).min()
        var predictions: [Predictions] = []
        for file in files where file.horizon == shortest {
            guard let text = try? String(contentsOf: folder.appendingPathComponent(file.name), encoding: .utf8) else { continue }
            predictions.append(Predictions(patient: file.patient, horizonMinutes: file.horizon, csv: text))
        }
        return ResearchSummary(results: results, predictions: predictions, units: units)
    }

    /// The median (mean of the two middle values for an even count), min and max of `values`; NaN when empty.
    static func spread(_ values: [Double]) -> (median: Double, min: Double, max: Double) {
        let v = values.filter(\.isFinite).sorted()
        guard !v.isEmpty else { return (.nan, .nan, .nan) }
        let median = v.count % 2 == 1 ? v[v.count / 2] : (v[v.count / 2 - 1] + v[v.count / 2]) / 2
        return (median, v[0], v[v.count - 1])
    }

    var models: [String] {
        let present = Set(results.map(\.metrics.model))
        return ModelKind.allCases.map(\.rawValue).filter(present.contains)
    }

    /// Test metrics of `model` at horizon `h`, one per patient.
    func test(_ model: String, _ h: Int) -> [SplitMetrics] {
        results.filter { $0.horizonMinutes == h && $0.metrics.model == model && $0.metrics.split == "test" }.map(\.metrics)
    }

    public var html: String {
        let horizons = Set(results.map(\.horizonMinutes)).sorted()
        let patients = Set(results.map(\.patient)).count
        var s = "<header id=\"summary\">\n<h1>Research summary</h1>\n"
        s += HTML.paragraph("\(Plural.of(patients, "patient")), horizons \(horizons.map { "\($0)" }.joined(separator: ", ")) min; test days only. Glucose errors in \(units.rawValue).", cssClass: "period")
        s += "</header>\n"
        // A horizon longer than the test days hold (1440 min on one test day) has no test row.
        let scored = horizons.filter { h in models.contains { !test($0, h).isEmpty } }
        let unscored = horizons.filter { !scored.contains($0) }
        let none = unscored.isEmpty ? "" : HTML.paragraph(
            "No test row to score at \(unscored.map { "\($0)" }.joined(separator: ", ")) min: the test days hold no target that far ahead "
                + "of a prediction (a horizon as long as the test days, or a patient without test days).", cssClass: "note")
        s += HTML.section(id: "by-horizon", title: "Accuracy per horizon and model (median [min-max] across patients)",
                          none + (scored.isEmpty ? "" : horizonTable(scored) + rmseDots(scored)))
        s += HTML.section(id: "traces", title: "Predicted against measured", traces())
        s += HTML.section(id: "grids", title: "Error grids per model", grids())
        s += "<footer>Made by GlucoModel from results.csv and predictions/. Patients identified by pseudonymous ids only.</footer>\n"
        return ReportPage.wrap(title: "Research summary", body: s, landscape: true)
    }

    func horizonTable(_ horizons: [Int]) -> String {
        func cell(_ values: [Double], _ format: (Double) -> String) -> HTMLCell {
            let x = Self.spread(values)
            return .number(x.median.isNaN ? "-" : "\(format(x.median)) [\(format(x.min))-\(format(x.max))]")
        }
        let glucose = { (v: Double) in self.units.format(v, mgdLDecimals: 1) }
        var rows: [[HTMLCell]] = []
        for h in horizons {
            for model in models {
                let t = test(model, h)
                guard !t.isEmpty else { continue }
                rows.append(["\(h) min", HTMLCell(ModelKind(rawValue: model)?.displayName ?? model), .number("\(t.count)"),
                             cell(t.map(\.rmse), glucose), cell(t.map(\.mae), glucose),
                             cell(t.map(\.clarkeAB)) { formatNumber($0, decimals: 1) + "%" },
                             cell(t.map(\.parkesAB)) { formatNumber($0, decimals: 1) + "%" }])
            }
        }
        return HTML.table(header: ["Horizon", "Model", "Patients", "RMSE", "MAE", "Clarke A+B", "Parkes A+B"], rows: rows)
    }

    static let colours = ["ge": "#d95f02", "arx": "#1b9e77", "average": "#7570b3", "persistence": "#666666"]

    /// Test RMSE per patient (dots) and the median (bar) per horizon, one colour per model.
    func rmseDots(_ horizons: [Int]) -> String {
        guard !horizons.isEmpty else { return "" }
        let all = horizons.flatMap { h in models.flatMap { test($0, h).map(\.rmse) } }.filter(\.isFinite)
        let top = max(10, ((all.max() ?? 10) / 10).rounded(.up) * 10)
        var plot = SVGPlot(width: 760, height: 320, xRange: 0...Double(horizons.count), yRange: 0...top,
                           title: "Test RMSE per patient", xLabel: "Horizon", yLabel: "RMSE (\(units.rawValue))")
        plot.axes(xTicks: horizons.indices.map { Double($0) + 0.5 }, yTicks: stride(from: 0.0, through: top, by: top / 5).map { $0 },
                  xText: { "\(horizons[min(horizons.count - 1, max(0, Int($0)))]) min" }, yText: { self.units.format($0, mgdLDecimals: 1) })
        let width = 0.8 / Double(max(1, models.count))
        for (hi, h) in horizons.enumerated() {
            for (mi, model) in models.enumerated() {
                let x = Double(hi) + 0.1 + width * (Double(mi) + 0.5)
                let colour = Self.colours[model] ?? "#000"
                let values = test(model, h).map(\.rmse).filter(\.isFinite)
                for v in values { plot.circle(x, v, radius: 3, fill: colour) }
                let m = Self.spread(values).median
                if m.isFinite { plot.polyline([(x - width * 0.4, m), (x + width * 0.4, m)], stroke: colour, width: 2.5) }
            }
        }
        let legend = models.map { "<span style=\"color:\(Self.colours[$0] ?? "#000")\">\u{25CF} \(HTML.escape(ModelKind(rawValue: $0)?.displayName ?? $0))</span>" }
            .joined(separator: " &nbsp; ")
        return "<figure>\(plot.render())<figcaption>\(legend); a dot per patient, a bar at the median.</figcaption></figure>\n"
    }

    /// Each patient's first test day at the shortest horizon: measured, evolved and ARX.
    func traces() -> String {
        guard let h = predictions.filter({ !$0.rows.isEmpty }).map(\.horizonMinutes).min() else {
            return HTML.paragraph("No test predictions to draw.", cssClass: "note")
        }
        var s = "<div class=\"days\">\n"
        for p in predictions.filter({ $0.horizonMinutes == h }).sorted(by: { $0.patient < $1.patient }) {
            guard let first = p.rows.first?.target else { continue }
            let day = p.rows.filter { $0.target.timeIntervalSince(first) < 86_400 }
            func hours(_ t: Date) -> Double { t.timeIntervalSince(first) / 3600 }
            var plot = SVGPlot(width: 540, height: 220, xRange: 0...24, yRange: 0...400,
                               title: "\(p.patient.rawValue), \(h) min, first test day", xLabel: "Hours from the first test prediction", yLabel: units.rawValue)
            plot.axes(xTicks: stride(from: 0.0, through: 24, by: 3).map { $0 }, yTicks: [0, 70, 180, 250, 400], yText: { self.units.format($0) })
            plot.polygon([(0, 70), (24, 70), (24, 180), (0, 180)], fill: "#e5f5e0")
            // One line per run of predictions, open across a gap in the data (DailyTrace.maximumJoin).
            for run in DailyTrace.joined(day, time: \.target) {
                plot.polyline(run.map { (hours($0.target), min(400, $0.reference)) }, stroke: "#08306b", width: 1.6)
                for (model, dash) in [("arx", "2,2"), ("ge", "5,3")] {
                    let pts = run.compactMap { r in r.models[model].map { (hours(r.target), min(400, $0)) } }
                    if !pts.isEmpty { plot.polyline(pts, stroke: Self.colours[model]!, width: 1.2, dash: dash) }
                }
            }
            s += "<div class=\"day\">\(plot.render())</div>\n"
        }
        s += "</div>\n"
        return HTML.paragraph("Blue: measured CGM; dashed orange: evolved model; dotted green: ARX; at the time each prediction targets.", cssClass: "muted") + s
    }

    /// Clarke and Parkes grids of each model with all patients' test pairs at the shortest horizon.
    func grids() -> String {
        guard let h = predictions.filter({ !$0.rows.isEmpty }).map(\.horizonMinutes).min() else {
            return HTML.paragraph("No test predictions to place on the grids.", cssClass: "note")
        }
        let rows = predictions.filter { $0.horizonMinutes == h }.flatMap(\.rows)
        let drawn = rows.count > Self.maximumDrawnPairs
            ? " Each grid draws \(Self.maximumDrawnPairs) of them, evenly spaced in the files' order; the zone percentages count all."
            : ""
        var s = HTML.paragraph("All patients' test predictions at \(h) min (\(rows.count) pairs per model).\(drawn)", cssClass: "muted")
            + "<div class=\"charts\">\n"
        for model in models {
            let pairs = rows.compactMap { r in r.models[model].map { GlucosePair(reference: r.reference, prediction: $0) } }
            let name = ModelKind(rawValue: model)?.displayName ?? model
            for grid in [ErrorGrid.clarke, .parkesType1] {
                let counts = ZoneCounts(grid: grid, pairs: pairs)
                let shown = Self.evenlySpaced(pairs, atMost: Self.maximumDrawnPairs)
                s += "<figure>\(grid.svg(pairs: shown, width: 340, height: 340, units: units, title: "\(grid): \(name)"))"
                s += "<figcaption>\(HTML.escape("A \(formatPercent(counts.percent(.a))), A+B \(formatPercent(counts.percentAB))"))</figcaption></figure>\n"
            }
        }
        return s + "</div>\n"
    }

    /// The points a grid draws at most: a cohort's test pairs, drawn one circle each, made pages
    /// of tens of MB (37 MB for 50 patients of 30 days) that a browser hardly opens.
    public static let maximumDrawnPairs = 3000

    /// `items` when there are at most `n`, else `n` of them at evenly spaced positions (first kept).
    static func evenlySpaced<T>(_ items: [T], atMost n: Int) -> [T] {
        guard items.count > n, n > 0 else { return items }
        return (0..<n).map { items[$0 * items.count / n] }
    }

    /// Writes `html` atomically.
    public func write(to url: URL) throws {
        try AtomicTextFile.write(Data(html.utf8), to: url)
    }
}
