import Foundation

/// Why a meal asked for below target is held to the formula's dose (docs/dosing.md, step 7).
public enum BelowTargetHold: Hashable, Sendable, Codable {
    /// Glucose below `midpoint` (mg/dL), midway between the suspend threshold and the target.
    case farBelow(midpoint: Double)
    /// The last 14 days' readings miss a consensus target for lows (percent below 70 and below 54 mg/dL).
    case lows(below70: Double, below54: Double)
    /// The last 14 days' readings cover `days` days, under `RecentLows.minimumDays`.
    case tooFewReadings(days: Double)
    /// A reading below 70 mg/dL in the last day (`RecentLows.lastLow`), the 14 days meeting the targets.
    case recentLow(glucose: Double, at: Date)
}

/// What the toolkit advises, in the manner of LoopKit's `InsulinCorrection`: a decision with
/// its reasons attached, never a bare number.
public enum DoseDecision: Hashable, Sendable, Codable {
    /// A bolus of `units` (already clamped, capped and rounded down to the pump increment;
    /// may be 0 when insulin on board covers the need).
    case bolus(units: Double, basis: DoseBasis)
    /// No insulin: glucose is, or is predicted to be, below the suspend threshold.
    /// Treat or watch for a low.
    case noInsulin(DoseRefusal)
    /// No dose at all: the data or the settings cannot support one (every reason found).
    case refused([DoseRefusal])

    /// The units to give, or nil when refused. `noInsulin` is 0 U.
    public var units: Double? {
        switch self {
        case let .bolus(units, _): return units
        case .noInsulin: return 0
        case .refused: return nil
        }
    }

    /// `bolus`, `no_insulin` or `refused`.
    public var kind: String {
        switch self {
        case .bolus: return "bolus"
        case .noInsulin: return "no_insulin"
        case .refused: return "refused"
        }
    }
}

/// Where a suggested bolus came from.
public enum DoseBasis: String, Hashable, Sendable, Codable {
    /// The model-based dose (`PredictedCurve` and `LoopDoseRule`).
    case model
    /// The standard bolus calculator (`StandardBolus`).
    case standardFormula = "standard_formula"
}

/// Facts about how a bolus was reached that a clinician should see; none of them stops a dose.
public enum DoseNote: Hashable, Sendable, Codable, CustomStringConvertible {
    /// No model was given, or none could predict at this moment: the formula's dose is given.
    case modelUnavailable(String)
    /// The models' inputs cannot be computed at the moment their features are read (the glucose of
    /// the hour before it incomplete): a `modelUnavailable` whose time is given on the output's clock.
    case modelInputsIncomplete(at: Date)
    /// The model for `horizon` minutes predicts `glucose` (mg/dL), the limit of what a model may
    /// predict: its inputs are beyond what it was trained on (code `model_unavailable`).
    case modelAtLimit(horizon: Int, glucose: Double)
    /// The dose asked for `requested` U, more than the maximum bolus.
    case clampedToMaxBolus(requested: Double, maxBolus: Double)
    /// The dose was lowered so that net insulin on board stays within the settings' max IOB.
    case limitedByMaxInsulinOnBoard(requested: Double, maxInsulinOnBoard: Double, onBoard: Double)
    /// Insulin on board covers the carbohydrates and the correction: the formula gives 0.
    case insulinOnBoardCovers(insulinOnBoard: Double, need: Double)
    /// The carbohydrates were eaten before the suggestion with no insulin yet (a meal eaten at a
    /// low, asked about again): the model-based dose was lowered to the formula's.
    case limitedByFormulaAfterMeal(requested: Double, formula: Double, minutesAgo: Double)
    /// A correction (no carbohydrates): the model-based dose of `requested` U, above the formula's,
    /// was lowered to it: on top of the insulin on board it would stack insulin.
    case limitedByFormulaCorrection(requested: Double, formula: Double, insulinOnBoard: Double)
    /// A meal asked for with glucose below target: the model-based dose of `requested` U, above the
    /// formula's, was lowered to it, `because` of how far below or of the person's recent lows.
    case limitedByFormulaBelowTarget(requested: Double, formula: Double, glucose: Double, target: Double, because: BelowTargetHold)
    /// The same meal: the model-based dose was raised to the formula's as it would have been at
    /// the meal (the glucose then, the insulin on board now).
    case raisedToFormulaAtMeal(requested: Double, formula: Double, glucoseAtMeal: Double, minutesAgo: Double)
    /// The same meal: the formula's dose at the meal would take the curve of the settings' effects
    /// (glucose now, carbohydrates still on board, insulin) below the suspend threshold, so the
    /// dose was raised only to `limit`, the most that keeps it above.
    case raiseLimitedBySuspend(formula: Double, limit: Double, threshold: Double)
    /// Carbohydrates eaten before the ask: the formula covers the `grams` of the `of` still to
    /// appear, with the glucose now, which holds those already absorbed (`formulaAllCarbs` U with all of them).
    case formulaCarbsStillToAppear(grams: Double, of: Double, minutesAgo: Double, formulaAllCarbs: Double)
    /// The insulin on board was stated by the person (the data has no insulin record), and counts
    /// as given at the moment of the suggestion.
    case insulinOnBoardStated(units: Double)
    /// Exercise logged during, or within `DoseAdvisor.exerciseReach` before, the moment: insulin acts
    /// more strongly then, which neither dose counts.
    case exerciseRecent(minutesAgo: Double, durationMinutes: Double)
    /// The formula's dose, suggested (no model, or `--method formula`), takes the curve of the
    /// settings' effects below the suspend threshold at `minute`: the insulin acts before the meal
    /// is absorbed (a fast insulin, a large meal). The model-based rule would not dose so.
    case formulaDosePredictedLow(dose: Double, lowest: Double, minute: Double, threshold: Double)
    /// The settings used are the data's suggestion (`dose --settings-from-data`), not the settings
    /// file's: `changes` says which and how (`SettingsEstimator.changes(from:to:units:)`).
    case settingsFromData(changes: String)
    /// Long-acting insulin of `units` U injected in the `hours` before the moment, more than
    /// `DoseAdvisor.longActingExcess` times the usual daily dose (`usual` U): a dose taken twice.
    /// Long-acting insulin counts on neither side of net insulin on board, so neither dose sees it.
    case longActingAboveUsual(units: Double, usual: Double, hours: Double)
    /// The model-based dose is 0 U: the curve without a bolus ends at `eventual` mg/dL, at or below
    /// the target (`LoopDoseRule.Outcome.noneNeeded`).
    case modelNoneNeeded(eventual: Double, target: Double)
    /// The model-based dose is 0 U: the curve without a bolus is at `glucose` at `minute`, below the
    /// target rising from the suspend threshold, `target` then (`LoopDoseRule.Outcome.belowTargetRise`).
    /// With carbohydrates, the suggestion asks to check again (`DoseSuggestion.recheckMinutes`).
    case belowTargetRise(minute: Double, glucose: Double, target: Double)
    /// The dose asked for, `requested` U, is less than the pump's smallest step, `increment` U:
    /// none is given (`DoseAdvisor.belowIncrement`).
    case belowIncrement(requested: Double, increment: Double)

    public var code: String {
        switch self {
        case .modelUnavailable, .modelAtLimit, .modelInputsIncomplete: return "model_unavailable"
        case .clampedToMaxBolus: return "clamped_to_max_bolus"
        case .limitedByMaxInsulinOnBoard: return "limited_by_max_iob"
        case .insulinOnBoardCovers: return "iob_covers_need"
        case .limitedByFormulaAfterMeal: return "limited_by_formula_after_meal"
        case .limitedByFormulaCorrection: return "limited_by_formula_correction"
        case .limitedByFormulaBelowTarget: return "limited_by_formula_below_target"
        case .raisedToFormulaAtMeal: return "raised_to_formula_at_meal"
        case .raiseLimitedBySuspend: return "raise_limited_by_suspend"
        case .insulinOnBoardStated: return "stated_iob"
        case .exerciseRecent: return "exercise_recent"
        case .formulaDosePredictedLow: return "formula_dose_predicted_low"
        case .formulaCarbsStillToAppear: return "formula_carbs_still_to_appear"
        case .settingsFromData: return "settings_from_data"
        case .longActingAboveUsual: return "long_acting_above_usual"
        case .modelNoneNeeded: return "none_needed"
        case .belowTargetRise: return "below_target_rise"
        case .belowIncrement: return "below_increment"
        }
    }

    public var description: String { description(units: .mgdL) }

    /// The message with its glucose values in `units` (`dose --units mmol/L` converts every glucose)
    /// and its times by `time` (ISO 8601 UTC by default; the text output and the report give their clock).
    public func description(units: GlucoseUnit, time: ((Date) -> String)? = nil) -> String {
        let time = time ?? { $0.iso8601 }
        func g(_ mgdL: Double) -> String { units == .mgdL ? String(format: "%.0f mg/dL", mgdL) : units.withUnit(mgdL) }
        // Below a threshold it would print as: with the decimals that tell them apart (as `DoseRefusal`'s).
        func below(_ mgdL: Double, _ threshold: Double) -> String {
            g(mgdL) == g(threshold) ? units.format(mgdL, apartFrom: threshold) + " " + units.rawValue : g(mgdL)
        }
        switch self {
        case let .modelUnavailable(why): return "no model-based dose: \(why); the standard formula's dose is shown"
        case let .modelInputsIncomplete(at):
            return DoseNote.modelUnavailable("the models' inputs cannot be computed at \(time(at)) (glucose of the last hour incomplete)")
                .description(units: units, time: time)
        case let .modelAtLimit(h, p):
            return DoseNote.modelUnavailable("the \(h)-minute model predicts \(g(p)), the limit of what a model may predict: "
                                             + "its inputs are beyond what it was trained on").description(units: units, time: time)
        case let .clampedToMaxBolus(r, m): return String(format: "%.2f U requested, clamped to the maximum bolus %.2f U", r, m)
        case let .limitedByMaxInsulinOnBoard(r, m, iob):
            return String(format: "%.2f U requested, lowered so that net insulin on board (now %.2f U) stays within the max IOB %.2f U", r, iob, m)
        case let .modelNoneNeeded(eventual, target):
            return "no bolus needed: without one the predicted glucose ends at \(g(eventual)), at or below the target \(g(target))"
        case let .belowTargetRise(minute, glucose, target):
            return String(format: "no bolus now: without one glucose is predicted at %@ in %.0f minutes, below the target %@ rising from the "
                          + "suspend threshold (a bolus would take it further below before the meal shows)", below(glucose, target), minute, g(target))
        case let .belowIncrement(requested, increment):
            return String(format: "%.3f U requested, less than the pump's smallest step of %.2f U: none given", requested, increment)
        case let .insulinOnBoardCovers(iob, need):
            return String(format: "insulin on board %.2f U covers the %.2f U needed for carbohydrates and correction", iob, need)
        case let .limitedByFormulaAfterMeal(r, f, ago):
            return String(format: "%.2f U requested, lowered to the formula's with the glucose now, %.2f U: the carbohydrates were eaten %.0f min ago with no insulin, and a rise the models extrapolate from them is the meal the formula covers", r, f, ago)
        case let .limitedByFormulaCorrection(r, f, iob):
            return String(format: "%.2f U requested, lowered to %.2f U, the formula's and the carbohydrates' own insulin (insulin on board %.2f U): a correction never goes beyond the formula's, since the models see glucose still rising from a meal whose bolus has yet to bring it down, and a dose on top stacks insulin", r, f, iob)
        case let .limitedByFormulaBelowTarget(r, f, glucose, target, why):
            let because: String
            var shownGlucose = below(glucose, target)
            switch why {
            case let .farBelow(midpoint):
                // Both with the decimals that tell them apart where they would print alike (91.6 below a
                // midpoint of 92 read "glucose 92 mg/dL ... and below 92 mg/dL"; review of stop 57).
                var shown = g(midpoint)
                if shown == shownGlucose {
                    shownGlucose = units.format(glucose, apartFrom: midpoint) + " " + units.rawValue
                    shown = units.format(midpoint, apartFrom: glucose) + " " + units.rawValue
                }
                because = "and below \(shown), midway between the suspend threshold and the target"
            case let .lows(below70, below54):
                because = String(format: "and the last 14 days' readings miss a consensus target for lows (%.1f%% below %@, target under 4%%; %.1f%% below %@, under 1%%)",
                                 below70, g(70), below54, g(54))
            case let .recentLow(low, at):
                because = "and the last day had a reading of \(g(low)) at \(time(at)), below \(g(70)) (a low makes the next more likely)"
            case let .tooFewReadings(days):
                because = String(format: "and the last 14 days' readings cover %.1f days, too few to tell that lows are rare (the consensus asks for 70%%: 9.8 days)", days)
            }
            return String(format: "%.2f U requested, lowered to the formula's %.2f U: glucose %@ is below the target %@, %@; the rise the models see from there is mostly the meal itself, which people eat when glucose is low", r, f, shownGlucose, g(target), because)
        case let .raisedToFormulaAtMeal(r, f, glucose, ago):
            return String(format: "%.2f U requested, raised to %.2f U, the formula's for the meal eaten %.0f min ago at its glucose then (%@) less the insulin on board now: the models never saw a meal without its insulin", r, f, ago, g(glucose))
        case let .raiseLimitedBySuspend(f, limit, threshold):
            return String(format: "%.2f U, the formula's at the meal, would take glucose below the suspend threshold (%@) by the settings' effects of the carbohydrates still on board and the insulin: raised only to %.2f U, the most that keeps it above", f, g(threshold), limit)
        case let .exerciseRecent(ago, duration):
            let end = ago - duration
            return String(format: "exercise logged %.0f min ago, for %.0f min (%@): insulin acts more strongly during and for hours after exercise, and neither the formula nor the models count it; consider less insulin", ago, duration, end >= 0 ? String(format: "ended %.0f min ago", end) : "still going")
        case let .formulaDosePredictedLow(dose, lowest, minute, threshold):
            return String(format: "with the formula's %.2f U, the settings' insulin and carbohydrate curves predict %@ at %.0f min, below the suspend threshold (%@): the insulin acts before the meal is absorbed; consider part of the dose now and the rest later in the meal", dose, below(DoseAdvisor.shown(lowest), threshold), minute, g(threshold))
        case let .formulaCarbsStillToAppear(grams, total, ago, all):
            return String(format: "the formula covers %.0f g of the %.0f g eaten %.0f min ago, those still to appear by the carbohydrate curve, and corrects the glucose now, which holds the rest; with all of them it would be %.2f U and count the absorbed part twice", grams, total, ago, all)
        case let .settingsFromData(changes):
            return "the settings used are the data's suggestion, not the settings file's (--settings-from-data; "
                + "glucomodel-predict settings shows the evidence): \(changes)"
        case let .longActingAboveUsual(u, usual, hours):
            return String(format: "long-acting insulin injected in the last %.0f h: %.1f U, %.1f times the usual daily dose (%.1f U): "
                          + "if a dose was taken twice, glucose may fall for a day or more, which neither dose counts; check for lows",
                          hours, u, u / usual, usual)
        case let .insulinOnBoardStated(u):
            return String(format: "insulin on board %.2f U as stated (the data has no insulin records), counted as given now: all its effect still to come", u)
        }
    }
}

/// A reason code with its message, as printed and written to JSON (`code` and `message` only).
public struct DoseReason: Hashable, Sendable, Codable {
    public var code: String
    /// The message, glucose in mg/dL.
    public var message: String
    /// The refusal or note the reason stands for: its message can be given in another unit.
    var refusal: DoseRefusal?
    var note: DoseNote?

    public init(code: String, message: String) { self.code = code; self.message = message }

    init(_ refusal: DoseRefusal) {
        self.init(code: refusal.code, message: refusal.description)
        self.refusal = refusal
    }

    init(_ note: DoseNote) {
        self.init(code: note.code, message: note.description)
        self.note = note
    }

    /// The reason with every file it names given by `name` (the report names a file without its
    /// folders, which are often named after the person).
    public func namingFiles(_ name: (String) -> String) -> DoseReason {
        guard case let .skippedInsulinRecord(skipped, count, duration) = refusal else { return self }
        var renamed = skipped
        renamed.location.file = name(skipped.location.file)
        renamed.keptFrom = skipped.keptFrom.map(name)
        return DoseReason(.skippedInsulinRecord(renamed, count: count, durationMinutes: duration))
    }

    /// The message with its glucose values in `units` and its times by `time` (ISO 8601 UTC by default).
    public func message(units: GlucoseUnit, time: ((Date) -> String)? = nil) -> String {
        refusal?.description(units: units, time: time) ?? note?.description(units: units, time: time) ?? message
    }

    enum CodingKeys: String, CodingKey { case code, message }
}

/// Predicted glucose at one horizon with no added insulin and at the suggested dose
/// (both with the planned carbohydrates).
public struct PredictedGlucose: Hashable, Sendable, Codable {
    public var horizonMinutes: Int
    public var atZeroDose: Double
    public var atSuggestedDose: Double
}

/// One dose suggestion with everything it was computed from, so that a clinician can audit it.
public struct DoseSuggestion: Hashable, Sendable {
    public var patient: PatientID
    /// The moment of the suggestion ("now").
    public var at: Date
    /// The dose asked for: model-based (default) or the formula's.
    public var method: DoseMethod
    public var decision: DoseDecision
    /// Every refusal and note, in order, as codes and messages.
    public var reasons: [DoseReason]
    /// Planned carbohydrates (g).
    public var carbs: Double
    /// When the carbohydrates were eaten, if before `at` (a meal eaten at a low and asked about
    /// again): they are in the log from then on, and no insulin has covered them.
    public var carbsTime: Date?
    /// The newest glucose reading at or before `at`, and its time.
    public var glucose: Double?
    public var glucoseTime: Date?
    /// Net insulin on board at `at` (U): boluses plus delivered minus scheduled basal.
    public var insulinOnBoard: Double?
    /// Where the scheduled basal came from (settings, the data's programmed basal, or none).
    public var basalScheduleSource: NetInsulin.ScheduleSource?
    /// The insulin on board the person stated, for data without insulin records (then `insulinOnBoard`).
    public var statedInsulinOnBoard: Double?
    /// The settings used, when they passed their checks.
    public var settings: CheckedDoseSettings?
    /// The standard formula's parts and dose.
    public var standard: StandardBolus?
    /// The model-based dose (clamped and rounded), when a model could predict.
    public var modelDose: Double?
    /// The grid point the model features were computed at (the end of the step holding `at`).
    public var featureTime: Date?
    /// The predicted curve the dose was chosen on, when one was made.
    public var curve: PredictedCurve?
    /// Predicted glucose per model horizon (or hourly without a model), no bolus vs the dose.
    public var predictions: [PredictedGlucose]
    /// For a refusal for the CGM's readings alone (a gap, a stale reading): when it may be lifted if
    /// the CGM reads on (`DoseGuards.askAgain`).
    public var askAgainAt: Date?

    public init(patient: PatientID, at: Date, method: DoseMethod = .model, decision: DoseDecision, reasons: [DoseReason],
                carbs: Double, predictions: [PredictedGlucose]) {
        self.patient = patient; self.at = at; self.method = method; self.decision = decision
        self.reasons = reasons; self.carbs = carbs; self.predictions = predictions
    }

    /// The refusal and note codes.
    public var reasonCodes: [String] { reasons.map(\.code) }

    /// How long to wait before asking again with the same carbohydrates, when a meal gets no
    /// insulin because glucose is, or is predicted to be, low: eat (the meal treats the low),
    /// check glucose again after `DoseAdvisor.recheckMinutes` and ask again with the carbohydrates
    /// not yet covered and the time they were eaten (`carbsTime`: this suggestion's `at`, or its own
    /// `carbsTime`) (the clinical "treat, recheck in 15 minutes, then take the meal insulin").
    /// Nil for every other decision, and for a correction with no carbohydrates.
    /// For a refusal for the CGM's readings alone, the minutes until `askAgainAt`, with or without
    /// carbohydrates: eat, and ask again then with them and `carbsTime`.
    public var recheckMinutes: Int? {
        if case .noInsulin = decision, carbs > 0 { return DoseAdvisor.recheckMinutes }
        // No bolus yet for a meal whose rise the curve shows after a dip (at the threshold, with glucose
        // to rise: without a recheck the meal went uncovered; hunt BN, stop 63).
        if case let .bolus(units, _) = decision, units == 0, carbs > 0, reasons.contains(where: { $0.code == "below_target_rise" }) {
            return DoseAdvisor.recheckMinutes
        }
        if case .refused = decision, let again = askAgainAt { return max(1, Int((again.timeIntervalSince(at) / 60).rounded(.up))) }
        return nil
    }

    /// The formula's dose as `--method formula` would give it: within the max IOB, clamped and
    /// rounded (`DoseAdvisor.formulaUnits`), and 0 with glucose below the suspend threshold now or
    /// predicted so, where neither method gives insulin (hunt AC, stop 55: a low shown beside "2.85 U", and a max IOB of
    /// 1 U beside the formula's 2.15). Nil when the formula was not worked out (a refusal).
    public var formulaUnits: Double? {
        guard let standard else { return nil }
        if case .noInsulin = decision { return 0 }  // neither method gives insulin then
        return DoseAdvisor.formulaUnits(standard, iob: insulinOnBoard ?? 0, settings: settings)
    }

    /// Whether the suggested bolus is the model-based one.
    public var modelUsed: Bool {
        if case .bolus(_, .model) = decision { return true }
        return false
    }
}
