import Foundation

extension PatientReport {
    /// Page 2: every horizon's accuracy on the model files' test days (days the models never
    /// trained or were selected on), the evolved model against each baseline.
    var testAccuracySection: String {
        let byHorizon = Dictionary(grouping: testMetrics, by: \.horizonMinutes)
        let window = models.first.flatMap { m in m.training.testFrom.map { ($0, m.training.testTo) } }
        let when = window.map { "\(clock.date($0.0)) to \($0.1.map(clock.date) ?? "end")" } ?? "the held-out days"
        guard !byHorizon.isEmpty else {
            // Why: a clinician reads "no figures" as "never tested" otherwise.
            let why = window == nil
                ? "The models were trained without held-out test days, so there are no test-day figures."
                : "No test-day figures: the test days (\(when)) had no row that could be scored (fewer than "
                    + "\(PatientTrainer.minimumRows.test) rows with a reading at the horizon: test days too short, "
                    + "or their readings missing or at the sensor's limits)."
            return HTML.section(id: "test-accuracy", title: "Prediction accuracy on test days", HTML.paragraph(why, cssClass: "note"))
        }
        let baselines = [ModelKind.arx, .average, .persistence].map(\.rawValue)
        var rows: [[HTMLCell]] = []
        for h in byHorizon.keys.sorted() {
            let all = byHorizon[h]!.map(\.metrics)
            guard let ge = all.first(where: { $0.model == Self.evolvedModel }) else { continue }
            let best = all.map(\.rmse).filter(\.isFinite).min()
            func rmseCell(_ m: SplitMetrics?) -> HTMLCell {
                guard let m else { return .number("-") }
                let text = units.format(m.rmse, mgdLDecimals: 1)
                return HTMLCell(text, cssClass: best.map { units.format($0, mgdLDecimals: 1) == text } == true ? "num best" : "num")
            }
            rows.append(["\(h) min", .number("\(ge.n)"), rmseCell(ge)]
                        + baselines.map { name in rmseCell(all.first { $0.model == name }) }
                        + [.number(units.format(ge.mae, mgdLDecimals: 1)), .number(formatPercent(ge.clarkeAB)), .number(formatPercent(ge.parkesAB))])
        }
        let horizons = Plural.list(byHorizon.keys.sorted().map(String.init))
        var s = HTML.paragraph("Each model's error predicting the CGM reading \(horizons) minutes ahead on the test days (\(when)), which no model was trained or selected on. RMSE and MAE in \(units.rawValue); the lowest RMSE per horizon in bold. Baselines: ARX (a linear model of the same inputs), average (mean of the last 2 h), persistence (the last reading).", cssClass: "muted")
        s += HTML.table(header: ["Horizon", "n", "RMSE evolved", "RMSE ARX", "RMSE average", "RMSE persistence", "MAE evolved", "Clarke A+B", "Parkes A+B"], rows: rows)
        return HTML.section(id: "test-accuracy", title: "Prediction accuracy on test days", s)
    }

    /// At most this many predicted lows are listed on page 2 (the latest; all in the appendix).
    static let lowRows = 10

    /// Page 2: the shortest horizon's predicted lows in the period and whether the CGM confirmed them.
    var predictedLowsSection: String {
        guard let h = chartHorizon else {
            return HTML.section(id: "predicted-lows", title: "Predicted lows",
                                HTML.paragraph("No predictions for this period.", cssClass: "note"))
        }
        let lows = predictedEpisodes.filter { $0.kind == .low && $0.horizonMinutes == h }
        let confirmed = lows.count(where: { $0.confirmed() == true }), missed = lows.count(where: { $0.confirmed() == false })
        let threshold = units.format(PredictedEpisode.lowThreshold)
        var s = HTML.paragraph("\(Plural.of(lows.count, "run")) of \(h)-minute predictions below \(threshold) \(units.rawValue) in this period: \(confirmed) confirmed by the CGM (a reading below \(threshold) during the run), \(missed) not confirmed, \(lows.count - confirmed - missed) without CGM readings. CGM hypo episodes (below \(threshold) for 15 min or more): \(metrics.hypoLevel1.count).", cssClass: "glance-line")
        if !lows.isEmpty {
            let rows: [[HTMLCell]] = lows.suffix(Self.lowRows).map { e in
                let seen = e.confirmed()
                return [HTMLCell(clock.dateTime(e.start) + "-" + endTime(e.end, after: e.start)), HTMLCell(clock.time(e.issuedAt)),
                        .number(glucoseNumber(e.predicted, apartFrom: PredictedEpisode.lowThreshold)),
                        .number(glucoseNumber(e.actualExtreme, apartFrom: PredictedEpisode.lowThreshold)),
                        HTMLCell(seen.map { $0 ? "yes" : "no" } ?? "-", cssClass: seen == true ? "bad" : nil)]
            }
            s += HTML.table(caption: lows.count > Self.lowRows ? "The latest \(Self.lowRows); every one in the appendix" : nil,
                            header: ["Predicted low (target times)", "First predicted at", "Lowest predicted (\(units.rawValue))",
                                     "Lowest measured (\(units.rawValue))", "CGM confirmed"], rows: rows)
        }
        return HTML.section(id: "predicted-lows", title: "Predicted lows (\(h) minutes ahead)", s)
    }

    /// Page 2: the dose audit in counts, each reason given once with how often it applied.
    var doseSummarySection: String {
        guard let audit = doseAudit else {
            return HTML.section(id: "dose-summary", title: "Dose advice", HTML.paragraph("No dose settings given: no dose advice."))
        }
        if let why = audit.withheldText {
            return HTML.section(id: "dose-summary", title: "Dose advice", HTML.paragraph(why, cssClass: "note"))
        }
        var s = audit.note.map { HTML.paragraph($0, cssClass: "muted") } ?? ""
        let rows = audit.rows
        let notAudited = DoseAudit.notAuditedNote(audit.withoutCarbs).map { HTML.paragraph($0 + ".", cssClass: "note") } ?? ""
        guard !rows.isEmpty else {
            return HTML.section(id: "dose-summary", title: "Dose advice", s + HTML.paragraph("No meal boluses in this period.") + notAudited)
        }
        // "More" and "less" compare doses only: "no insulin" is advice to treat or watch a low, not a dose of 0 U.
        let suggested = rows.filter { $0.advice == .dose && $0.suggested != nil }
        let noInsulin = rows.count(where: { $0.advice == .noInsulin })
        let refused = rows.count(where: { $0.advice == .refused })
        let higher = suggested.count(where: { r in r.given.map { r.suggested!.units > $0.units + 0.05 } ?? false })
        let lower = suggested.count(where: { r in r.given.map { r.suggested!.units < $0.units - 0.05 } ?? false })
        let lows = rows.count(where: \.lowAfter)
        s += "<ul class=\"glance\">\n"
        s += "<li>\(Plural.of(rows.count, "meal bolus", plural: "meal boluses")) audited: a dose suggested for \(suggested.count), "
            + "no insulin advised for \(noInsulin) (glucose low or predicted low), no advice for \(refused) (data or settings refused).</li>\n"
        s += "<li>Of the doses suggested: more than given for \(higher), less for \(lower), about the same (within 0.05 U) for \(suggested.count - higher - lower).</li>\n"
        s += "<li>A low (below \(HTML.escape(glucose(70)))) followed \(lows) of the \(rows.count == 1 ? "1 bolus" : "\(rows.count) boluses").</li>\n</ul>\n"
        s += notAudited
        // Each kind of reason once (by code when known, else by its text), with the first
        // bolus's wording as the example and how many boluses it applied to.
        var counts: [String: Int] = [:], example: [String: String] = [:], order: [String] = []
        for row in rows {
            for (i, message) in row.reasons.enumerated() {
                let key = i < row.reasonCodes.count ? row.reasonCodes[i] : message
                if counts[key] == nil { order.append(key); example[key] = message }
                counts[key, default: 0] += 1
            }
        }
        if !order.isEmpty {
            let table: [[HTMLCell]] = order.enumerated().sorted { (-counts[$0.1]!, $0.0) < (-counts[$1.1]!, $1.0) }.map(\.1)
                .map { [HTMLCell(example[$0]!), .number("\(counts[$0]!)")] }
            s += HTML.table(caption: "Reasons (each kind once, worded as for its first bolus, with the number of boluses it applied to)",
                            header: ["Reason", "Boluses"], rows: table)
        }
        return HTML.section(id: "dose-summary", title: "Dose advice (summary; every bolus in the appendix)", s)
    }
}
