import Foundation

/// Suggests a meal or correction bolus (dosing.md), leaning low at every step.
///
/// 1. Refuse (`DoseDecision.refused`, every reason found) when the settings are missing, out of
///    their limits or another patient's, the models are another patient's, the carbohydrates are
///    outside 0-300 g, or the glucose is stale, future-dated or has a recent gap (`DoseGuards`).
/// 2. `noInsulin` when the newest glucose is below the suspend threshold, or when a model
///    predicts a value below it with no added insulin and the planned carbohydrates.
/// 3. The standard formula `carbs/ICR + (BG - target)/ISF - IOB` (`StandardBolus`), IOB with the
///    settings' insulin curve over the insulin delivered per grid step.
/// 4. The model-based dose (`ModelDoseSearch`) when the models pass their checks; else a note
///    says why and the formula's dose is suggested.
/// 5. The suggestion is `min(model-based, formula)`: a model may lower the formula's dose (when it
///    predicts glucose falling, or insulin on board still to act), never raise it. A personal
///    model learnt from retrospective data is not validated for giving more insulin than the
///    calculator a clinician set up; so the formula plus no extra is the cap.
///
/// The models' features are computed from the records dated at or before `at` only, on a grid
/// starting 24 h earlier (the insulin and carbohydrate kernels reach back 6 and 12 h), at the
/// grid point ending the step that holds `at` when that step has a glucose reading; otherwise at
/// the point before, with the insulin and carbohydrates of the unfinished step added to the row
/// as if given at that point (`FeatureSet.row(_:addingBolus:carbs:)`), so nothing logged is lost.
public enum DoseAdvisor {
    /// How far back the series is built for a suggestion.
    public static let historySpan: TimeInterval = 24 * 3600

    /// A suggestion from raw settings (checked here: a settings problem is a refusal).
    /// - Parameters:
    ///   - log: the patient's data; `at` is "now": a glucose reading dated after it is refused as
    ///     dated in the future. Other records after `at` are ignored.
    ///   - carbs: planned carbohydrates (g), 0 for a correction only.
    ///   - models: the patient's models, or nil for the standard formula only.
    public static func suggest(log: PatientLog, carbs: Double, at: Date, settings: DoseSettings,
                               models: ModelSet?) -> DoseSuggestion {
        suggest(log: log, carbs: carbs, at: at, settings: settings.checked(for: log.patient), models: models)
    }

    /// A suggestion from settings already checked (e.g. once for a whole audit).
    public static func suggest(log: PatientLog, carbs: Double, at: Date, settings: CheckedDoseSettings,
                               models: ModelSet?) -> DoseSuggestion {
        let checked: Result<CheckedDoseSettings, DoseRefusal> = settings.patient == log.patient
            ? .success(settings) : .failure(.wrongPatient(expected: log.patient, found: settings.patient, source: "settings"))
        return suggest(log: log, carbs: carbs, at: at, settings: checked, models: models)
    }

    static func suggest(log: PatientLog, carbs: Double, at: Date, settings checked: Result<CheckedDoseSettings, DoseRefusal>,
                        models: ModelSet?) -> DoseSuggestion {
        let models = models.flatMap { $0.models.isEmpty ? nil : $0 }
        var out = DoseSuggestion(patient: log.patient, at: at, decision: .refused([]), reasons: [], carbs: carbs,
                                 predictions: [])
        var refusals: [DoseRefusal] = []
        var settings: CheckedDoseSettings?
        switch checked {
        case let .success(s): settings = s
        case let .failure(r): refusals.append(r)
        }
        out.settings = settings
        if let models, models.patient != log.patient {
            refusals.append(.wrongPatient(expected: log.patient, found: models.patient, source: "models"))
        }
        if let r = DoseGuards.carbRefusal(carbs) { refusals.append(r) }
        let (newest, glucoseRefusals) = DoseGuards.glucoseRefusals(log.glucose, at: at)
        refusals += glucoseRefusals
        out.glucose = newest?.value.mgdL
        out.glucoseTime = newest?.time
        guard refusals.isEmpty, let settings, let glucose = out.glucose else {
            return finish(out, .refused(refusals), notes: [])
        }

        let history = log.recorded(through: at)
        var options = models?.seriesOptions ?? SeriesOptions(insulinModel: settings.insulin)
        options.start = at.addingTimeInterval(-historySpan)
        options.end = at
        let series = PatientSeries(log: history, options: options)
        let t = series.count - 1
        // The model features at the point ending the step that holds `at` when that step has its
        // glucose reading; else (a reading not yet due) at the previous point, with the insulin
        // and carbohydrates of the unfinished step carried into the row as if given there.
        var featurePoint = t, carriedInsulin = 0.0, carriedCarbs = 0.0
        if series.glucoseFlags[t] != .measured, t > 0 {
            featurePoint = t - 1
            carriedInsulin = series.insulin[t]
            carriedCarbs = series.carbs[t]
        }
        out.featureTime = series.time(at: featurePoint)
        let iob = insulinOnBoard(series, at: t, model: settings.insulin)
        out.insulinOnBoard = iob
        let standard = StandardBolus(carbs: carbs, glucose: glucose, insulinOnBoard: iob, settings: settings)
        out.standard = standard

        if glucose < settings.suspendThreshold {
            return finish(out, .noInsulin(.belowSuspend(glucose: glucose, threshold: settings.suspendThreshold)), notes: [])
        }
        var notes: [DoseNote] = []
        var search: ModelDoseSearch?
        if let models {
            let horizons = models.horizons.compactMap { h -> ModelDoseSearch.Horizon? in
                let model = models.models[h]!
                return model.features.row(series, at: featurePoint).map {
                    ModelDoseSearch.Horizon(model: model, row: model.features.row($0, addingBolus: carriedInsulin, carbs: carriedCarbs))
                }
            }
            if horizons.count == models.horizons.count {
                search = ModelDoseSearch(horizons: horizons, carbs: carbs, settings: settings)
            } else {
                notes.append(.modelUnavailable("the models' inputs cannot be computed at \(series.time(at: featurePoint).iso8601) (glucose of the last hour incomplete)"))
            }
        } else {
            notes.append(.modelUnavailable("no model given"))
        }
        if let search {
            switch search.run() {
            case let .predictedLow(h, p):
                out.predictions = curve(search, dose: 0)
                return finish(out, .noInsulin(.predictedBelowSuspend(horizonMinutes: h, predicted: p,
                                                                      threshold: settings.suspendThreshold)), notes: [])
            case let .untrusted(note): notes.append(note)
            case let .dose(units, limited) where !limited && units >= settings.maxBolus - settings.bolusIncrement / 2:
                notes.append(.modelSaturated(maxBolus: settings.maxBolus))
            case let .dose(units, limited):
                out.modelDose = units
                if limited { notes.append(.limitedBySuspendThreshold(units: units)) }
            }
        }
        if standard.unclamped > settings.maxBolus {
            notes.append(.clampedToMaxBolus(requested: standard.unclamped, maxBolus: settings.maxBolus))
        }
        if standard.unclamped <= 0, iob > 0 {
            notes.append(.insulinOnBoardCovers(insulinOnBoard: iob, need: standard.carbDose + standard.correctionDose))
        }
        var decision = DoseDecision.bolus(units: standard.dose, basis: .standardFormula)
        if let m = out.modelDose {
            if m > standard.dose { notes.append(.cappedByFormula(model: m, formula: standard.dose)) }
            else { decision = .bolus(units: m, basis: .model) }
        }
        if let search { out.predictions = curve(search, dose: decision.units ?? 0) }
        return finish(out, decision, notes: notes)
    }

    /// Insulin on board at grid point `t`: `sum_j insulin[j] * R((t - j) * step)` with the
    /// settings' curve `R` (equal to `series.insulinOnBoard[t]` when the series was built with it).
    public static func insulinOnBoard(_ series: PatientSeries, at t: Int, model: ExponentialInsulinModel) -> Double {
        guard t >= 0, t < series.count else { return 0 }
        let stepMinutes = series.step / 60
        let reach = Int((model.durationMinutes / stepMinutes).rounded(.up))
        var sum = 0.0
        for j in max(0, t - reach)...t where series.insulin[j] != 0 {
            sum += series.insulin[j] * model.fractionRemaining(after: Double(t - j) * stepMinutes)
        }
        return sum
    }

    static func curve(_ search: ModelDoseSearch, dose: Double) -> [PredictedGlucose] {
        let zero = search.predictions(bolus: 0), at = search.predictions(bolus: dose)
        // A horizon whose model gives no finite value is left out: a shown "nan" reads as a number.
        return search.horizons.indices.filter { zero[$0].isFinite && at[$0].isFinite }.map {
            PredictedGlucose(horizonMinutes: search.horizons[$0].model.horizonMinutes, atZeroDose: zero[$0], atSuggestedDose: at[$0])
        }
    }

    static func finish(_ suggestion: DoseSuggestion, _ decision: DoseDecision, notes: [DoseNote]) -> DoseSuggestion {
        var s = suggestion
        s.decision = decision
        var reasons: [DoseReason] = []
        switch decision {
        case let .refused(list): reasons = list.map { DoseReason(code: $0.code, message: $0.description) }
        case let .noInsulin(r): reasons = [DoseReason(code: r.code, message: r.description)]
        case .bolus: break
        }
        s.reasons = reasons + notes.map { DoseReason(code: $0.code, message: $0.description) }
        return s
    }
}
