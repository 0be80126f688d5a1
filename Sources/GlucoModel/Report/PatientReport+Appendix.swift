import Foundation

/// The appendix after page 2: the full metrics, every day's chart with predictions, accuracy on
/// the report period, the error grids, every predicted low and high, the full dose audit and
/// the models (expressions, ARX coefficients, training windows): material for the care team
/// and researchers, kept off the two clinician pages.
extension PatientReport {
    var metricsSection: String {
        let rows: [[HTMLCell]] = metrics.rows(units: units).map { row in
            let value = row.value.isNaN ? "n/a" : formatNumber(row.value, decimals: row.decimals) + (row.unit.isEmpty ? "" : " " + row.unit)
            return [HTMLCell(row.label), .number(value), HTMLCell(row.target?.description ?? ""),
                    metText(row.target?.isMet(by: shown(row.value, row.decimals)))]
        }
        return HTML.section(id: "metrics", title: "CGM metrics (2019 consensus targets)",
                            HTML.table(header: ["Metric", "Value", "Target", "Met"], rows: rows))
    }

    var dailySection: String {
        var s = ""
        if let h = chartHorizon {
            s += HTML.paragraph("Solid blue: CGM glucose. Dashed orange: the evolved model's \(h)-minute predictions, drawn at the time they predict\(days.contains { !$0.bands.isEmpty } ? "; light orange band: their 80% prediction interval" : ""). Green band: \(units.range(70, 180)) \(units.rawValue). Orange triangles (bottom): carbohydrates, g. Blue triangles (top): boluses, U; purple: long-acting injections (U LA). Lilac spans: exercise.", cssClass: "muted")
        } else {
            s += HTML.paragraph("Solid blue: CGM glucose (no predictions for this period). Green band: \(units.range(70, 180)) \(units.rawValue). Orange triangles: carbohydrates, g. Blue triangles: boluses, U; purple: long-acting injections (U LA). Lilac spans: exercise.", cssClass: "muted")
        }
        s += "<div class=\"days\">\n"
        for day in days { s += "<div class=\"day\">\(day.svg(clock: clock, units: units))</div>\n" }
        return HTML.section(id: "daily", title: "Daily glucose", s + "</div>\n")
    }

    var accuracySection: String {
        let header = ["Horizon", "Model", "n", "RMSE", "MAE", "MARD", "Clarke A+B", "Parkes A+B"]
        var s = ""
        if accuracy.isEmpty {
            s += HTML.paragraph("No predictions with a measured reference in this period.", cssClass: "note")
        } else {
            let best = Dictionary(grouping: accuracy, by: \.horizonMinutes).mapValues { $0.map(\.metrics.rmse).filter(\.isFinite).min() }
            let rows: [[HTMLCell]] = accuracy.map { a in
                // Equal when shown: ties to the shown decimal are all marked best.
                let isBest = best[a.horizonMinutes].flatMap { $0 }.map { units.format($0, mgdLDecimals: 1) == units.format(a.metrics.rmse, mgdLDecimals: 1) } ?? false
                return ["\(a.horizonMinutes) min", HTMLCell(modelName(a.model)), .number("\(a.metrics.count)"),
                        HTMLCell(units.format(a.metrics.rmse, mgdLDecimals: 1), cssClass: isBest ? "num best" : "num"),
                        .number(units.format(a.metrics.mae, mgdLDecimals: 1)), .number(formatPercent(a.metrics.mard)),
                        .number(formatPercent(a.clarke.percentAB)), .number(formatPercent(a.parkes.percentAB))]
            }
            s += HTML.table(caption: "On this report's period, which may include days the models trained on (RMSE, MAE in \(units.rawValue); best RMSE per horizon in bold)", header: header, rows: rows)
        }
        let test = testMetrics
        if !test.isEmpty {
            let window = models.first.flatMap { m in m.training.testFrom.map { ($0, m.training.testTo) } }
            let when = window.map { " (\(clock.date($0.0)) to \($0.1.map(clock.date) ?? "end"))" } ?? ""
            let rows: [[HTMLCell]] = test.map { h, m in
                ["\(h) min", HTMLCell(modelName(m.model)), .number("\(m.n)"), .number(units.format(m.rmse, mgdLDecimals: 1)), .number(units.format(m.mae, mgdLDecimals: 1)),
                 .number(formatPercent(m.mard)), .number(formatPercent(m.clarkeAB)), .number(formatPercent(m.parkesAB))]
            }
            s += HTML.table(caption: "On the model files' own test days\(when), from training", header: header, rows: rows)
        }
        return HTML.section(id: "accuracy", title: "Prediction accuracy against the baselines", s)
    }

    var errorGridSection: String {
        let limit = maximumDrawnPairs
        let drawn = gridPairs.count > limit ? " Each grid draws \(limit) of them, evenly spaced through the period; the zone percentages count all." : ""
        var s = HTML.paragraph(chartHorizon.map { "The evolved model's \($0)-minute predictions against the CGM reading at the predicted time (\(gridPairs.count) pairs).\(drawn)" }
                               ?? "No predictions in this period: the grids are empty.", cssClass: "muted")
        s += "<div class=\"charts\">\n"
        let shown = ResearchSummary.evenlySpaced(gridPairs, atMost: limit)
        for grid in [ErrorGrid.clarke, .parkesType1] {
            let counts = ZoneCounts(grid: grid, pairs: gridPairs)
            let zones = ErrorGridZone.allCases.map { "\($0) \(formatPercent(counts.percent($0)))" }.joined(separator: ", ")
            s += "<figure>\(grid.svg(pairs: shown, width: 460, height: 460, units: units))"
            s += "<figcaption>\(HTML.escape("\(grid): \(zones); A+B \(formatPercent(counts.percentAB))"))</figcaption></figure>\n"
        }
        return HTML.section(id: "error-grids", title: "Error grids", s + "</div>\n")
    }

    var episodeSection: String {
        // Without predictions, counts of zero would read as a period the model saw no low in.
        guard chartHorizon != nil else {
            return HTML.section(id: "predicted-episodes", title: "Predicted lows and highs",
                                HTML.paragraph("No predictions in this period (the note under the header says why): no predicted lows or highs to list.", cssClass: "note"))
        }
        let lows = predictedEpisodes.filter { $0.kind == .low }, highs = predictedEpisodes.filter { $0.kind == .high }
        var s = HTML.paragraph("Runs of the evolved model's predictions below \(glucose(PredictedEpisode.lowThreshold)) (lows) or above \(glucose(PredictedEpisode.highThreshold)) (highs), all horizons: \(Plural.of(lows.count, "low")) (\(lows.filter { $0.confirmed() == true }.count) seen in the CGM), \(Plural.of(highs.count, "high")) (\(highs.filter { $0.confirmed() == true }.count) seen in the CGM).", cssClass: "muted")
        if predictedEpisodes.isEmpty {
            s += HTML.paragraph("No predicted lows or highs in this period.")
        } else {
            // Every one: page 2 lists the latest lows and sends the reader here for the rest.
            let rows: [[HTMLCell]] = predictedEpisodes.map { e in
                let seen = e.confirmed()
                let threshold = e.kind == .low ? PredictedEpisode.lowThreshold : PredictedEpisode.highThreshold
                return [HTMLCell(e.kind == .low ? "low" : "high", cssClass: e.kind == .low ? "bad" : nil), "\(e.horizonMinutes) min",
                        HTMLCell(clock.dateTime(e.start)), HTMLCell(endTime(e.end, after: e.start)), HTMLCell(clock.time(e.issuedAt)),
                        .number(glucoseNumber(e.predicted, apartFrom: threshold)), .number(glucoseNumber(e.actualAtPredicted, apartFrom: threshold)),
                        .number(glucoseNumber(e.actualExtreme, apartFrom: threshold)), HTMLCell(seen.map { $0 ? "yes" : "no" } ?? "-")]
            }
            s += HTML.table(header: ["Kind", "Horizon", "From", "To", "First issued", "Predicted (\(units.rawValue))", "Measured at that time",
                                     "Measured lowest/highest", "Seen in CGM"], rows: rows)
        }
        return HTML.section(id: "predicted-episodes", title: "Predicted lows and highs", s)
    }

    var doseAuditSection: String {
        guard let audit = doseAudit else {
            return HTML.section(id: "dose-audit", title: "Dose audit", HTML.paragraph("No dose settings given: no dose audit."))
        }
        var s = audit.note.map { HTML.paragraph($0, cssClass: "muted") } ?? ""
        if let why = audit.withheldText {
            s += HTML.paragraph(why, cssClass: "note")
        } else if audit.rows.isEmpty {
            s += HTML.paragraph("No meal boluses in this period.")
        } else {
            let rows: [[HTMLCell]] = audit.rows.map { r in
                [HTMLCell(clock.dateTime(r.time)), .number(r.carbs.map { formatNumber($0.grams, decimals: 0) + " g" } ?? "-"),
                 .number(r.given.map { formatNumber($0.units, decimals: 1) + " U" } ?? "-"),
                 r.advice == .noInsulin ? HTMLCell("no insulin") : .number(r.suggested.map { formatNumber($0.units, decimals: 1) + " U" } ?? "-"),
                 HTMLCell(r.formula), .number(glucoseNumber(r.glucoseAfter2h?.mgdL)),
                 r.lowAfter ? HTMLCell("yes", cssClass: "bad") : "no", HTMLCell(r.reasons.joined(separator: "; "))]
            }
            s += HTML.table(header: ["Time", "Carbs", "Given", "Suggested", "Formula", "Glucose 2 h after (\(units.rawValue))", "Low after", "Reasons"], rows: rows)
        }
        return HTML.section(id: "dose-audit", title: "Dose audit", s)
    }

    /// The ARX model with 4 significant digits per coefficient: `12.3 + 1.021 * G0 - 0.0412 * G1 ...`.
    static func readable(_ arx: ARXModel) -> String {
        var s = String(format: "%.4g", arx.intercept)
        for (name, c) in zip(arx.featureNames, arx.coefficients) where c != 0 {
            s += (c < 0 ? " - " : " + ") + String(format: "%.4g", abs(c)) + " * " + name
        }
        return s
    }

    /// The model's answer to a bolus and a meal given now (`ModelResponse`), with a warning when
    /// its median answer has the wrong sign.
    func responseItem(_ r: ModelResponse) -> String {
        func change(_ mgdL: Double) -> String {
            (mgdL > 0 ? "+" : mgdL < 0 ? "\u{2212}" : "") + units.withUnit(abs(mgdL), mgdLDecimals: 1)
        }
        func percent(_ share: Double) -> String { formatNumber(100 * share, decimals: 0) + "%" }
        var text = "1 U of insulin given now: \(change(r.insulin)) at \(r.horizonMinutes) minutes, the median over "
            + "\(r.moments) moments of this period; it raises the prediction at \(percent(r.insulinRaises)) of them. "
            + "10 g of carbohydrate eaten now: \(change(r.carbs)); it lowers the prediction at \(percent(r.carbsLower)) of them."
        var item = "<dt>Response to a dose</dt><dd>" + HTML.escape(text)
        if !r.hasTheBodysSigns {
            let insulinWrong = r.insulin > ModelResponse.tolerance, mealWrong = r.carbs < -ModelResponse.tolerance
            text = "This model answers " + (insulinWrong && mealWrong ? "insulin and a meal" : insulinWrong ? "insulin" : "a meal")
                + " the wrong way round at most moments (likely because meals and their boluses came together in its training data): "
                + "read its predictions after a bolus or a meal with care. Suggested doses take what a bolus and a meal do from the dose settings, not from the model."
            item += "<p class=\"note\">" + HTML.escape(text) + "</p>"
        }
        return item + "</dd>\n"
    }

    var modelSection: String {
        var s = HTML.paragraph("Prediction = base + intercept + slope x expression, clamped to 10-600 mg/dL (models compute in mg/dL whatever the report's unit). Variables: G0 the latest glucose (mg/dL), G1...G11 the glucose 5...55 min before; IOB insulin on board (U), IA insulin activity (U/min), INS insulin already given that acts within the horizon (U); COB carbohydrates on board (g), RA their rate of appearance (g/min), CARB carbohydrates already eaten that appear within the horizon (g); CARB1, CARB2... and INS1, INS2... the same as CARB and INS through curves at other speeds (the model file's features), so that the model can follow this person's own absorption; EX exercise intensity, HR heart rate. All are known at the moment of prediction.", cssClass: "muted")
        for m in models {
            let w = m.training
            var items: [(String, String)] = [
                ("Expression", m.slope == 0 ? "(none: the base alone)" : m.expression),
                ("Selection", m.selection),
                ("Base", m.base == .arx ? "ARX (linear autoregressive model with exogenous inputs)" : "none"),
                ("Scaling", "intercept \(formatNumber(m.intercept, decimals: 4)), slope \(formatNumber(m.slope, decimals: 4))"),
                ("Inputs used", m.inputsUsed.sorted().joined(separator: ", ")),
                ("Grammar", "\(m.grammar.name) (hash \(m.grammar.hash))"),
                ("Evolution", "fitness \(m.fitness.rawValue), population \(m.evolution.populationSize)"
                    + (m.searches.map { " shared by \($0) searches (the model is their mean)" } ?? "")
                    + ", \(Plural.of(m.evolution.generations, "generation")), seed \(m.seed)"),
                ("Training", "\(clock.date(w.trainFrom)) to \(clock.date(w.trainTo)); validation \(clock.date(w.validationFrom)) to \(clock.date(w.validationTo))"
                    + (w.testFrom.map { "; test \(clock.date($0)) to \(w.testTo.map(clock.date) ?? "end")" } ?? "")),
            ]
            if m.base == .arx { items.insert(("ARX base", Self.readable(m.arx)), at: 3) }
            s += "<h3>\(m.horizonMinutes)-minute model</h3>\n<dl class=\"model\">\n"
            for (key, value) in items {
                let code = key == "Expression" || key == "ARX base"
                s += "<dt>\(HTML.escape(key))</dt><dd>" + (code ? "<code>\(HTML.escape(value))</code>" : HTML.escape(value)) + "</dd>\n"
            }
            if let r = responses[m.horizonMinutes] { s += responseItem(r) }
            s += "</dl>\n"
        }
        return HTML.section(id: "model", title: "The models", s)
    }
}
