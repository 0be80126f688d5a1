import Foundation

/// Which dose a suggestion gives: the model-based dose (the default) or the standard formula.
/// Both are always computed and shown.
public enum DoseMethod: String, Sendable, Codable, CaseIterable {
    case model
    case formula
}

/// Suggests a meal or correction bolus. The steps, numbered as docs/dosing.md ("How a suggestion
/// is made") numbers them, and as the comments below cite them:
///
/// 1. Refuse (`DoseDecision.refused`, every reason found) when the settings are missing, out of
///    their limits or another patient's, the models are another patient's, the carbohydrates are
///    outside 0-300 g, or the glucose is stale, future-dated or has a recent gap (`DoseGuards`).
/// 2. `noInsulin` when glucose now is below the suspend threshold.
/// 3. Net insulin on board (`NetInsulin`): boluses plus delivered minus scheduled basal, the
///    schedule from the settings or else the data's programmed basal (the suggestion says which).
/// 4. The standard formula `carbs/ICR + (BG - target)/ISF - netIOB` (`StandardBolus`).
/// 5. The predicted curve (`PredictedCurve`): the evolved models' own trajectory (their
///    predictions with no new meal or bolus), the planned meal's and bolus's effects, and what
///    insulin and carbohydrates on board still have to do, to the end of insulin action; with no
///    usable model, the effects alone.
/// 6. `noInsulin` when any point of the curve without a bolus is below the suspend threshold, or
///    the lower bound of a model's 80% interval at its horizon (the curve without a bolus there,
///    minus the model's half-width for the glucose now) is (docs/accuracy.md, "Prediction
///    intervals": a low that is possible, not only likely); else Loop's rule (`LoopDoseRule`)
///    gives the model-based dose.
/// 7. Both doses are capped so net insulin on board stays within the optional max IOB, clamped to
///    `[0, maxBolus]` and rounded down to the increment.
/// 8. The suggestion is the model-based dose (`method: .model`, the default) or the formula's;
///    with no usable model, the formula's, with the reason.
/// 9. Carbohydrates eaten before the ask (`carbsTime`) join the log at that time.
///
/// The models' features are computed from the records dated at or before `at` only, on a grid
/// starting 24 h earlier, at the grid point ending the step that holds `at` when that step has a
/// glucose reading; otherwise at the newest of the `maximumAnchorSteps` points before it that has
/// one, with the insulin and carbohydrates given since added to the row as if given at that point
/// (`FeatureSet.row(_:addingBolus:carbs:)`).
public enum DoseAdvisor {
    /// How far back the series is built for a suggestion (insulin acts up to 24 h in the settings'
    /// limits; the carbohydrate curve's tail is shorter).
    public static let historySpan: TimeInterval = 24 * 3600

    /// How far before `at` a suggestion reads the records: its series' `historySpan`, and an hour
    /// for the grid step before it and the basal rate in force at its start; and the 14 days of
    /// `RecentLows`, whose time below range decides whether a meal asked for below target is held
    /// to the formula's dose (step 7).
    public static let memory: TimeInterval = max(historySpan + 3600, RecentLows.period)

    /// How far back a long-acting dose taken twice is looked for, and by how much the injections
    /// there must pass the usual daily dose (`longActingAboveUsual`): a person on two doses a day
    /// takes each about 12 hours apart, half the daily dose each; a nightly dose taken again the next
    /// morning ("did I take it last night?") is 12-14 hours after it (12 h until stop 61: a retake
    /// 12.5 h later was not noted).
    public static let longActingReach: TimeInterval = 14 * 3600
    public static let longActingExcess = 1.5

    /// The note that the long-acting insulin of the last `longActingReach` passes the usual daily
    /// dose (the median of the days before it, `SettingsEstimator.Injections.dailyDose`) by
    /// `longActingExcess` times: a dose taken twice (hunt BA, stop 60: 18 U of glargine twice 50
    /// minutes apart, and a bedtime correction suggested beside it without a word). Nil otherwise,
    /// and when the days before hold no injection.
    static func longActingAboveUsual(_ log: PatientLog, at: Date, timeZone: TimeZone) -> DoseNote? {
        let since = at.addingTimeInterval(-longActingReach)
        let recent = log.basalInjections.filter { $0.time > since && $0.time <= at }.map(\.dose.units).reduce(0, +)
        guard recent > 0, let first = log.basalInjections.first?.time, first <= since,
              let usual = SettingsEstimator.Injections.dailyDose(log.basalInjections, from: first, to: since, timeZone: timeZone),
              usual > 0, recent > longActingExcess * usual else { return nil }
        return .longActingAboveUsual(units: recent, usual: usual, hours: longActingReach / 3600)
    }

    /// The records a suggestion at `at` reads from `log`: those recorded through `at` (before it,
    /// when not `inclusive`) of `PatientLog.since(_:)` of `at - memory`, so that a suggestion in a
    /// long history costs 14 days of it. The whole log through `at` when that window holds no glucose
    /// reading (the refusal then names the newest reading, however old).
    public static func history(_ log: PatientLog, at: Date, inclusive: Bool = true) -> PatientLog {
        // The window by binary search (`PatientLog.window`): an audit asks once per meal of a long history.
        let window = log.window(from: at.addingTimeInterval(-memory), before: at.addingTimeInterval(1)).recorded(through: at, inclusive: inclusive)
        return window.glucose.isEmpty ? log.before(at.addingTimeInterval(1)).recorded(through: at, inclusive: inclusive) : window
    }

    /// Minutes after which a meal that got no insulin for a low should be asked about again
    /// (`DoseSuggestion.recheckMinutes`): the 15 minutes of the "rule of 15" for treating a low.
    public static let recheckMinutes = 15

    /// A suggestion from raw settings (checked here: a settings problem is a refusal).
    /// - Parameters:
    ///   - log: the patient's data; `at` is "now": a glucose reading dated after it is refused as
    ///     dated in the future. Other records after `at` are ignored.
    ///   - carbs: planned carbohydrates (g), 0 for a correction only.
    ///   - carbsTime: when the carbohydrates were eaten, if before `at` (a meal eaten at a low,
    ///     asked about again: `DoseSuggestion.recheckMinutes`). They join the log at that time (the
    ///     models' inputs and the carbohydrates on board hold them), the formula covers them in
    ///     full, and the model-based dose lies between the formula's at the meal and the formula's
    ///     now (`eatenMealDose`): the models learned from logs in which a meal's insulin comes with
    ///     it, so a meal on board with none is outside what they saw. Nil: eaten now.
    ///   - models: the patient's models, or nil for the standard formula only.
    ///   - timeZone: where the settings' basal schedule times are local.
    ///   - statedInsulinOnBoard: the insulin on board (U) as the person knows it (a pen's memory),
    ///     for data without any insulin record (a CGM-only export), which is refused without it
    ///     (`DoseGuards.insulinRecordsRefusal`). It counts as given at `at` (its effect still all
    ///     to come: the timing is unknown, the total is not) and a note says so.
    /// - Parameter refusing: a refusal of the settings found before (`SettingsEstimate.unitRefusal`),
    ///   refused with the others.
    public static func suggest(log: PatientLog, carbs: Double, carbsTime: Date? = nil, at: Date, settings: DoseSettings,
                               models: ModelSet?, method: DoseMethod = .model, timeZone: TimeZone = .gmt,
                               statedInsulinOnBoard: Double? = nil, refusing: DoseRefusal? = nil) -> DoseSuggestion {
        suggest(log: log, carbs: carbs, carbsTime: carbsTime, at: at, settings: refusing.map { .failure($0) } ?? settings.checked(for: log.patient),
                models: models, method: method, timeZone: timeZone, statedInsulinOnBoard: statedInsulinOnBoard)
    }

    /// A suggestion from settings already checked (e.g. once for a whole audit).
    public static func suggest(log: PatientLog, carbs: Double, carbsTime: Date? = nil, at: Date, settings: CheckedDoseSettings,
                               models: ModelSet?, method: DoseMethod = .model, timeZone: TimeZone = .gmt,
                               statedInsulinOnBoard: Double? = nil) -> DoseSuggestion {
        suggest(log: log, carbs: carbs, carbsTime: carbsTime, at: at, settings: checked(settings, for: log.patient), models: models,
                method: method, timeZone: timeZone, statedInsulinOnBoard: statedInsulinOnBoard)
    }

    /// `settings`, or the refusal for settings of another patient than `patient`'s.
    static func checked(_ settings: CheckedDoseSettings, for patient: PatientID) -> Result<CheckedDoseSettings, DoseRefusal> {
        settings.patient == patient ? .success(settings) : .failure(.wrongPatient(expected: patient, found: settings.patient, source: "settings"))
    }

    /// - Parameter insulinRecordedAt: an insulin record of the data at `at` that `log` leaves out (the
    ///   bolus `DoseAudit` replays): the records go on to the moment (`insulinRecordsEndRefusal`).
    static func suggest(log: PatientLog, carbs: Double, carbsTime: Date?, at: Date, settings checked: Result<CheckedDoseSettings, DoseRefusal>,
                        models: ModelSet?, method: DoseMethod, timeZone: TimeZone, statedInsulinOnBoard stated: Double?,
                        insulinRecordedAt: Bool = false) -> DoseSuggestion {
        let models = models.flatMap { $0.models.isEmpty ? nil : $0 }
        var out = DoseSuggestion(patient: log.patient, at: at, method: method, decision: .refused([]), reasons: [],
                                 carbs: carbs, predictions: [])
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
        if let r = DoseGuards.carbsTimeRefusal(carbsTime, at: at) { refusals.append(r) }
        let duration = (settings?.insulin ?? SeriesOptions().insulinModel).durationMinutes
        if let r = DoseGuards.insulinRecordsRefusal(log, statedInsulinOnBoard: stated, durationMinutes: duration) { refusals.append(r) }
        if !insulinRecordedAt, let r = DoseGuards.insulinRecordsEndRefusal(log, at: at, target: settings?.target) { refusals.append(r) }
        if let r = DoseGuards.skippedInsulinRefusal(log, at: at, durationMinutes: duration) { refusals.append(r) }
        if stated == nil, let r = DoseGuards.recordsGapRefusal(log, at: at, durationMinutes: duration) { refusals.append(r) }
        if let settings, let r = DoseGuards.unknownScheduleRefusal(log, schedule: settings.basalSchedule, at: at, durationMinutes: duration) {
            refusals.append(r)
        }
        if let r = DoseGuards.twinRecordRefusal(log, at: at, durationMinutes: duration) { refusals.append(r) }
        if let r = DoseGuards.loggedMealRefusal(log, carbs: carbs, carbsTime: carbsTime, at: at) { refusals.append(r) }
        // Carbohydrates eaten before `at` are in the log from then on; eaten at `at`, they are planned.
        let eaten = carbsTime.flatMap { $0 < at && carbs > 0 ? $0 : nil }
        out.carbsTime = eaten
        let (newest, glucoseRefusals) = DoseGuards.glucoseRefusals(log.glucose, at: at)
        refusals += glucoseRefusals
        if let r = DoseGuards.glucoseAheadRefusal(log, at: at, window: duration * 60) { refusals.append(r) }
        out.glucose = newest?.value.mgdL
        out.glucoseTime = newest?.time
        guard refusals.isEmpty, let settings, let glucose = out.glucose else {
            out.askAgainAt = DoseGuards.askAgain(after: refusals, readings: log.glucose, at: at)
            return finish(out, .refused(refusals), notes: [])
        }

        var history = log.recorded(through: at)
        if let eaten {
            // In time order, as the data's own records are; a meal already logged at that instant is the one kept.
            history.carbs = PatientLog.firstAtEachInstant(history.carbs + [CarbIntake(time: eaten, amount: Carbohydrate(grams: carbs))])
        }
        var options = models?.seriesOptions ?? SeriesOptions(insulinModel: settings.insulin)
        options.start = at.addingTimeInterval(-historySpan)
        options.end = at
        let series = PatientSeries(log: history, options: options)
        let t = series.count - 1
        let net = NetInsulin(log: history, series: series, schedule: settings.basalSchedule, timeZone: timeZone,
                             dualShare: options.dualBolusImmediateShare, at: at)
        let iob = net.onBoard(at: t, model: settings.insulin).units + (stated ?? 0)
        out.insulinOnBoard = iob
        out.basalScheduleSource = net.source
        out.statedInsulinOnBoard = stated
        let standard = StandardBolus(carbs: carbs, glucose: glucose, insulinOnBoard: iob, settings: settings)
        // Carbohydrates eaten before the ask: the formula covers those still to appear (the
        // carbohydrate curve) and corrects the glucose now, which holds those already absorbed. With
        // all of them and the glucose now it counted the absorbed part twice (hunt L, stop 52: child_001
        // below 54 mg/dL for three hours); with the glucose at the meal it missed a rise not the meal's
        // (child_003, 70.8% below 54). docs/insilico.md, "The formula at the meal".
        let formula = eaten.map {
            StandardBolus(carbs: carbs * options.carbModel.fractionRemaining(after: at.timeIntervalSince($0) / 60), glucose: glucose,
                          insulinOnBoard: iob, settings: settings)
        } ?? standard
        out.standard = formula
        // A long-acting dose taken twice is said with "no insulin" too: the low it brings comes back for a day (review BB).
        let longActing = longActingAboveUsual(history, at: at, timeZone: timeZone)
        let noInsulinNotes = longActing.map { [$0] } ?? []
        if glucose < settings.suspendThreshold {
            return finish(out, .noInsulin(.belowSuspend(glucose: glucose, threshold: settings.suspendThreshold)), notes: noInsulinNotes)
        }
        if net.source == .settings, !history.basalRates.isEmpty, let none = try? BasalSchedule([.init(start: "00:00", unitsPerHour: 0)]) {
            // The net insulin on board had the file no schedule (the pump's programme in the data:
            // the file may be out of date with it), and the programme's own delivery weighted alike.
            func onBoard(_ log: PatientLog, _ schedule: BasalSchedule?) -> Double {
                NetInsulin(log: log, series: series, schedule: schedule, timeZone: timeZone,
                           dualShare: options.dualBolusImmediateShare, at: at).onBoard(at: t, model: settings.insulin).units
            }
            var programmeOnly = PatientLog(patient: history.patient)
            programmeOnly.basalRates = history.basalRates
            if let r = DoseGuards.basalScheduleRefusal(settingsIOB: iob, programmeIOB: onBoard(history, nil),
                                                       programmeOnBoard: onBoard(programmeOnly, none),
                                                       insulinSensitivity: settings.insulinSensitivity) {
                // No dose beside the refusal: the formula's was built on the insulin on board it rejects
                // (hunt AC, stop 55: the 10 U maximum bolus shown for 40 g at 91 mg/dL).
                out.standard = nil
                return finish(out, .refused([r]), notes: [])
            }
        }

        var notes: [DoseNote] = []
        if let stated { notes.append(.insulinOnBoardStated(units: stated)) }
        if let eaten, formula != standard {
            notes.append(.formulaCarbsStillToAppear(grams: formula.carbDose * settings.carbRatio, of: carbs,
                                                    minutesAgo: at.timeIntervalSince(eaten) / 60, formulaAllCarbs: standard.dose))
        }
        // Exercise during or in the hours before the ask: insulin then acts more strongly, which
        // neither the formula nor the models count (hunt D: a dose 21 minutes into a logged session
        // said nothing of it). Of several, the one that ends last: a day-long session still going
        // was named by a shorter one started since, "ended 5 min ago" (hunt BW, stop 64).
        func end(_ s: ExerciseSession) -> Date { s.time.addingTimeInterval(s.durationMinutes * 60) }
        if let session = history.exercise.filter({ $0.time <= at && end($0) >= at.addingTimeInterval(-Self.exerciseReach) })
            .max(by: { (end($0), $0.time) < (end($1), $1.time) }) {
            notes.append(.exerciseRecent(minutesAgo: at.timeIntervalSince(session.time) / 60, durationMinutes: session.durationMinutes))
        }
        if let longActing { notes.append(longActing) }
        let effects = effects(glucose: glucose, settings: settings, series: series, net: net, carbModel: options.carbModel,
                              stated: stated ?? 0)
        var anchors = trajectory(models, history: history, series: series, at: at, notes: &notes)
        anchors.points = withUnseenEffects(anchors.points, models: models, effects: effects)
        out.featureTime = anchors.featureTime
        let curve = PredictedCurve(effects: effects, anchors: anchors.points, plannedCarbs: Carbohydrate(grams: eaten == nil ? carbs : 0))
        guard curve.isFinite else {
            // A model value that is not finite (never a dose on it): the formula with the reason.
            notes.append(.modelUnavailable("a model predicts a non-finite value"))
            return finish(out, formulaDecision(formula, iob: iob, settings: settings, notes: &notes), notes: notes)
        }
        out.curve = curve
        let rule = LoopDoseRule(suspendThreshold: .mgdL(settings.suspendThreshold), target: .mgdL(settings.target),
                                insulinSensitivity: settings.insulinSensitivity, insulin: settings.insulin)
        let outcome = rule.apply(to: curve)
        // Carbohydrates eaten before the ask with no insulin (step 9): the models never saw such a
        // meal, and the fall they learned after every meal came from its insulin. Whether a low is
        // coming is then judged by the settings' effects alone, the glucose now and the carbohydrates
        // and insulin on board (hunt V: a breakfast asked 25 minutes late was "no insulin" at 143
        // mg/dL and again up to 452, the models predicting 35; the child's glucose reached 510).
        // Only while the meal shows: glucose now at or above what it was at the meal. Fallen since (exercise,
        // insulin from before), or with no reading at the meal, the models' fall may be real, and their
        // guards stand (the second review: 60 g eaten 105 minutes before, 230 then 85 mg/dL falling 3
        // a minute, got 1 U where the formula gave 0).
        let effectsAlone = PredictedCurve(effects: effects, anchors: [], plannedCarbs: Carbohydrate(grams: 0))
        let mealShows = eaten.flatMap { readingAtMeal($0, log: history) }.map { glucose >= $0.value.mgdL } ?? false
        if case let .predictedLow(minute, low) = mealShows ? rule.apply(to: effectsAlone) : outcome {
            out.predictions = horizons(curve, anchors: anchors.points, dose: 0)
            return finish(out, .noInsulin(.predictedBelowSuspend(horizonMinutes: Int(minute.rounded()), predicted: shown(low.mgdL),
                                                                  threshold: settings.suspendThreshold)), notes: noInsulinNotes)
        }
        if !mealShows, let models, let low = possibleLow(models, anchors: anchors.points, curve: curve, glucose: glucose,
                                                           threshold: settings.suspendThreshold) {
            out.predictions = horizons(curve, anchors: anchors.points, dose: 0)
            return finish(out, .noInsulin(.possibleLowBelowSuspend(horizonMinutes: low.horizon, lower: low.lower,
                                                                    threshold: settings.suspendThreshold)), notes: noInsulinNotes)
        }
        if !anchors.points.isEmpty {
            var asked: Double
            switch outcome {
            case let .dose(units, _): asked = units.units
            case .noneNeeded, .predictedLow, .belowTargetRise: asked = 0  // a predicted low: returned above, or the models' after a meal eaten (step 9)
            }
            if let eaten {
                asked = eatenMealDose(asked, carbs: carbs, eaten: eaten, at: at, standard: standard, log: history, iob: iob,
                                      settings: settings, effectsAlone: effectsAlone, notes: &notes)
            }
            // A correction (no carbohydrates): at most the formula's. After a meal's bolus the models
            // see glucose rising with the meal and ask for insulin on top of the bolus about to
            // bring it down (hunt D: corrections of 1.5-5 U 0-114 minutes after a bolus with 1.5-7.4
            // U on board, the formula's 0-1 U; in simulation 12 of 19 went below 70 mg/dL, 1 of 19
            // with the formula's dose). Not at meals: in the closed-loop trial the rule at meals
            // lowered time in range for both patients it changed (child_010 62.2 -> 59.4%, below 54
            // 2.2 -> 4.2%: 0 U for 18 g, high, then a larger dose).
            // With a few grams the same: at most the formula's and the grams' own insulin (hunt V: with
            // 9.2 U on board at 216 mg/dL, 0 g gave 0 U and 1 g 3.5 U, the stacked correction the
            // rule stops). At a meal the bound is far above any dose the trials saw the models ask.
            let allowed = standard.dose + (eaten == nil ? carbs / settings.carbRatio : 0)
            if eaten == nil, asked > allowed + 1e-9 {
                // Said only when it lowers the dose the pump gives ("0.25 U requested, lowered to 0.25 U"
                // said nothing; hunt AC, stop 55).
                if StandardBolus.deliverable(asked, settings: settings) > StandardBolus.deliverable(allowed, settings: settings) {
                    notes.append(.limitedByFormulaCorrection(requested: asked, formula: allowed, insulinOnBoard: iob))
                }
                asked = allowed
            }
            // A meal asked for with glucose below target: at most the formula's, which lowers the meal's
            // dose by the glucose below target. The models learned from logs in which glucose that low was
            // followed by food, and the rise they extrapolate is the meal the curve already holds (hunt
            // AA, stop 55: 96 g at 78 mg/dL got 4.8 U where the formula gave 3.5, and glucose fell to 34;
            // in closed loop over 8 patients the median time below 70 went 14.55 -> 6.95%; docs/insilico.md,
            // "Meals asked below target").
            // Below by more than half a mg/dL: a reading of 6.1 mmol/L (109.9 mg/dL) is at a target of
            // 110, as its person reads it (hunt AD, stop 56: "6.1 mmol/L is below the target 6.1").
            // Just below target (at or above the midpoint of the suspend threshold and the target), only
            // for a person whose last 14 days miss a consensus target for lows or are too few to tell:
            // held for everyone, adolescents without lows lost 8-10 points in range to breakfasts at
            // 105-119 mg/dL (target 120) dosed the formula's (stop 56's trial), while the children
            // whose lows it stopped had 12-58% of their history below 70 (docs/insilico.md, "Meals
            // asked just below target").
            if eaten == nil, carbs > 0, glucose < settings.target - 0.5, asked > standard.dose + 1e-9,
               let why = belowTargetHold(glucose: glucose, settings: settings, log: history, at: at) {
                if StandardBolus.deliverable(asked, settings: settings) > standard.dose {
                    notes.append(.limitedByFormulaBelowTarget(requested: asked, formula: standard.dose, glucose: glucose,
                                                              target: settings.target, because: why))
                }
                asked = standard.dose
            }
            out.modelDose = capped(asked, iob: iob, settings: settings, notes: &notes)
            // Why the rule gave none, when nothing after it raised the dose: a bolus of 0 U said nothing
            // (hunt BN, stop 63: 40 g at exactly the suspend threshold of 70 mg/dL got 0 U, without a
            // reason or a recheck, where 71 got the formula's 1.20 U and 69 "eat, check again in 15
            // minutes").
            if method == .model, out.modelDose == 0 {
                switch outcome {
                case let .noneNeeded(eventual): notes.append(.modelNoneNeeded(eventual: eventual.mgdL, target: settings.target))
                case let .belowTargetRise(minute, low, target):
                    notes.append(.belowTargetRise(minute: minute, glucose: low.mgdL, target: target.mgdL))
                // The rule's own ask below the pump's step (a limit after it that lowered the dose says so itself).
                case let .dose(units, _): if let note = belowIncrement(units.units, iob: iob, settings: settings) { notes.append(note) }
                case .predictedLow: break
                }
            }
        }
        var decision: DoseDecision
        if method == .model, let m = out.modelDose {
            decision = .bolus(units: m, basis: .model)
        } else {
            decision = formulaDecision(formula, iob: iob, settings: settings, notes: &notes)
            // The formula knows no curve: say when its dose, by the settings' own effects, goes low
            // (hunt E, stop 51: 8.8 U for 80 g with insulin peaking at 29 minutes, 38.7 mg/dL at 80).
            if let units = decision.units, units > 0 {
                // The settings' effects alone, as the note says: the curve with the models' trajectory
                // fired it on re-asks where the models' fall after an unbolused meal, not the dose's
                // timing, went low (hunt L, stop 52).
                let alone = PredictedCurve(effects: effects, anchors: [], plannedCarbs: Carbohydrate(grams: eaten == nil ? carbs : 0))
                let path = alone.glucose(bolus: InsulinUnits(units)).map(\.mgdL)
                if let i = path.indices.min(by: { path[$0] < path[$1] }), path[i] < settings.suspendThreshold {
                    notes.append(.formulaDosePredictedLow(dose: units, lowest: path[i], minute: curve.minutes[i],
                                                          threshold: settings.suspendThreshold))
                }
            }
        }
        out.predictions = horizons(curve, anchors: anchors.points, dose: decision.units ?? 0)
        return finish(out, decision, notes: notes)
    }

    /// Why a meal asked for at `glucose`, below target, is held to the formula's dose, or nil when
    /// the model's dose stands: glucose below the midpoint of the suspend threshold and the target,
    /// or a person whose readings of the last 14 days (`RecentLows`) miss a consensus target for
    /// lows or cover too little of them to tell, or whose last day had a reading below 70.
    static func belowTargetHold(glucose: Double, settings: CheckedDoseSettings, log: PatientLog, at: Date) -> BelowTargetHold? {
        let midpoint = (settings.suspendThreshold + settings.target) / 2
        if glucose < midpoint { return .farBelow(midpoint: midpoint) }
        guard let lows = RecentLows(log, at: at) else { return .tooFewReadings(days: 0) }
        if lows.lowsAreRare {
            // A low in the last day: lows beget lows, and 14 days meet the targets for days after
            // lows begin (4% is 13 hours below 70; the review of stop 57).
            guard let low = lows.lastLow else { return nil }
            return .recentLow(glucose: low.value.mgdL, at: low.time)
        }
        return lows.coveredDays < RecentLows.minimumDays ? .tooFewReadings(days: lows.coveredDays)
            : .lows(below70: lows.below70, below54: lows.below54)
    }

    /// The model-based dose for carbohydrates eaten before the ask with no insulin (dosing.md
    /// step 9), within two formula doses: at most the formula's now (`limited_by_formula_after_meal`),
    /// and at least the formula's as it would have been at the meal, with the glucose of then and
    /// the insulin on board now (`raised_to_formula_at_meal`). The models learned from meals whose
    /// insulin came with them: a meal on board without it is outside what they saw, and they can
    /// see more need than the meal (the rise it causes, counted twice) or less (a fall the meal's
    /// insulin caused in every meal they saw). No floor when there is no reading within
    /// `DoseGuards.maximumGlucoseAge` before the meal. The floor never lifts the dose beyond what
    /// keeps every point of `effectsAlone` at or above the suspend threshold
    /// (`raise_limited_by_suspend`): the curve of the glucose now and what the settings say the
    /// carbohydrates still on board and the insulin will do, without the models (whose fall is
    /// what the floor distrusts). A meal eaten hours ago has mostly appeared by now; the formula
    /// at the meal covers all of it, and given now it would take glucose low.
    static func eatenMealDose(_ asked: Double, carbs: Double, eaten: Date, at: Date, standard: StandardBolus, log: PatientLog, iob: Double,
                              settings: CheckedDoseSettings, effectsAlone: PredictedCurve, notes: inout [DoseNote]) -> Double {
        let ago = at.timeIntervalSince(eaten) / 60
        let ceiling = max(0, standard.unclamped)
        if asked > ceiling {
            notes.append(.limitedByFormulaAfterMeal(requested: asked, formula: ceiling, minutesAgo: ago))
            return ceiling
        }
        guard let then = readingAtMeal(eaten, log: log) else { return asked }
        let atMeal = StandardBolus(carbs: carbs, glucose: then.value.mgdL, insulinOnBoard: iob, settings: settings)
        // The meal's own insulin, and less when it was eaten below target; never a correction up
        // (hunt V: a snack asked 27 minutes late at 262 mg/dL was raised from 4.11 to 13.15 U, the
        // formula's full correction, more than the formula now; glucose then fell to 11 mg/dL; on
        // time the models' 6.55 U stood). The floor is for the low the meal was eaten at.
        let floor = min(ceiling, max(0, atMeal.carbDose + min(0, atMeal.correctionDose) - atMeal.insulinOnBoard))
        guard asked < floor else { return asked }
        let suspend = GlucoseValue(mgdL: settings.suspendThreshold)
        let keepsAboveSuspend: Double
        switch LoopDoseRule(suspendThreshold: suspend, target: suspend, insulinSensitivity: settings.insulinSensitivity,
                            insulin: settings.insulin).apply(to: effectsAlone) {
        case let .dose(units, _): keepsAboveSuspend = units.units
        case .noneNeeded, .predictedLow, .belowTargetRise: keepsAboveSuspend = 0
        }
        let raised = min(floor, max(asked, keepsAboveSuspend))
        if raised > asked {
            notes.append(.raisedToFormulaAtMeal(requested: asked, formula: floor, glucoseAtMeal: then.value.mgdL, minutesAgo: ago))
        }
        if raised < floor {
            // The limit as the pump can give it (rounded down), as the dose beside it is: "raised only to
            // 1.20 U" beside a bolus of 1.15 U read as a contradiction (hunt AC, stop 55).
            notes.append(.raiseLimitedBySuspend(formula: floor, limit: StandardBolus.deliverable(raised, settings: settings),
                                                threshold: settings.suspendThreshold))
        }
        return raised
    }

    /// The glucose when carbohydrates were eaten at `eaten`: the newest reading at or before it, nil
    /// when none is within `DoseGuards.maximumGlucoseAge` before it. The formula at the meal is
    /// made with it (the floor), and whether the meal shows is judged against it (step 6).
    static func readingAtMeal(_ eaten: Date, log: PatientLog) -> GlucoseReading? {
        guard let then = log.glucose.last(where: { $0.time <= eaten }),
              eaten.timeIntervalSince(then.time) < DoseGuards.maximumGlucoseAge else { return nil }
        return then
    }

    /// The first model horizon whose 80% interval, around the curve without a bolus at that
    /// minute, reaches below `threshold`: `(horizon, lower bound)`; nil when none does or the
    /// models have no intervals.
    static func possibleLow(_ models: ModelSet, anchors: [(minutes: Double, glucose: GlucoseValue)], curve: PredictedCurve,
                            glucose: Double, threshold: Double) -> (horizon: Int, lower: Double)? {
        guard anchors.count == models.horizons.count else { return nil }
        for (h, anchor) in zip(models.horizons, anchors) {
            // The calibrated half-width of the glucose now's band, not the adaptive one `predict`
            // writes: the closed-loop trial judged this guard with it (docs/dosing.md).
            guard let intervals = models.models[h]?.intervals, !intervals.bands.isEmpty else { continue }
            let lower = curve.glucose(bolus: InsulinUnits(0), atMinute: anchor.minutes).mgdL - intervals.band(for: glucose).halfWidth80
            if lower < threshold { return (h, lower) }
        }
        return nil
    }

    /// The formula's bolus, within max IOB, with its notes.
    static func formulaDecision(_ standard: StandardBolus, iob: Double, settings: CheckedDoseSettings,
                                notes: inout [DoseNote]) -> DoseDecision {
        if standard.unclamped <= 0, iob > 0 {
            notes.append(.insulinOnBoardCovers(insulinOnBoard: iob, need: standard.carbDose + standard.correctionDose))
        }
        let units = capped(standard.unclamped, iob: iob, settings: settings, notes: &notes)
        if units == 0, let note = belowIncrement(standard.unclamped, iob: iob, settings: settings) { notes.append(note) }
        return .bolus(units: units, basis: .standardFormula)
    }

    /// Why a dose asked for is 0 U when the pump's smallest step is more than it (after the max
    /// IOB): 0.03 U asked with an increment of 0.05 U gave "bolus 0.00 U" with no reason.
    static func belowIncrement(_ units: Double, iob: Double, settings: CheckedDoseSettings) -> DoseNote? {
        let u = settings.maxInsulinOnBoard.map { min(units, $0 - iob) } ?? units
        guard u > 1e-9, StandardBolus.deliverable(u, settings: settings) == 0 else { return nil }
        return .belowIncrement(requested: u, increment: settings.bolusIncrement)
    }

    /// The formula's deliverable dose for a suggestion's numbers (what `--method formula` gives).
    public static func formulaUnits(_ standard: StandardBolus, iob: Double, settings: CheckedDoseSettings?) -> Double {
        guard let settings else { return standard.dose }
        var ignored: [DoseNote] = []
        return capped(standard.unclamped, iob: iob, settings: settings, notes: &ignored)
    }

    /// `units` within the max IOB (net insulin on board after the dose) and `[0, maxBolus]`,
    /// rounded down to the increment.
    static func capped(_ units: Double, iob: Double, settings: CheckedDoseSettings, notes: inout [DoseNote]) -> Double {
        var u = units
        if let maxIOB = settings.maxInsulinOnBoard, u > maxIOB - iob {
            notes.append(.limitedByMaxInsulinOnBoard(requested: u, maxInsulinOnBoard: maxIOB, onBoard: iob))
            u = maxIOB - iob
        }
        if u > settings.maxBolus { notes.append(.clampedToMaxBolus(requested: u, maxBolus: settings.maxBolus)) }
        return StandardBolus.deliverable(u, settings: settings)
    }

    /// How many grid steps before `at`'s the models' inputs may be read (`trajectory`).
    static let maximumAnchorSteps = 3

    /// The models' predictions with no new meal or bolus, as `(minutes after at, glucose)`;
    /// empty (with a note) when there is no model, `history` has no records of an input a model
    /// reads (`ModelSet.missingInput(in:)`, what `predict` refuses) or its inputs cannot be computed.
    static func trajectory(_ models: ModelSet?, history: PatientLog, series: PatientSeries, at: Date,
                           notes: inout [DoseNote]) -> (points: [(minutes: Double, glucose: GlucoseValue)], featureTime: Date?) {
        guard let models else { notes.append(.modelUnavailable("no model given")); return ([], nil) }
        for h in models.horizons {
            if let problem = models.models[h]?.doseAnchorProblem {
                notes.append(.modelUnavailable("the \(h)-minute model \(problem), so it does not advise insulin"))
                return ([], nil)
            }
        }
        // A CGM-only export read by a model fitted with insulin: its inputs say no insulin was
        // given, where the log only lacks the records.
        if let missing = models.missingInput(in: history) {
            notes.append(.modelUnavailable("\(missing)"))
            return ([], nil)
        }
        // The models read their inputs at the newest step with a reading, up to three steps before
        // `at`'s (the step ending at or after `at`): a reading less than 15 minutes old (older is
        // stale) is at most three steps back. A CGM recording every 15 minutes is often two or
        // three behind; a 5-minute CGM is at most two, or refused for a gap. Insulin and
        // carbohydrates logged after that step are carried into its inputs.
        let t = series.count - 1
        var featurePoint = t, carriedInsulin = 0.0, carriedCarbs = 0.0
        while featurePoint > 0, t - featurePoint < maximumAnchorSteps, series.glucoseFlags[featurePoint] != .measured {
            carriedInsulin += series.insulin[featurePoint]
            carriedCarbs += series.carbs[featurePoint]
            featurePoint -= 1
        }
        let featureTime = series.time(at: featurePoint)
        var points: [(minutes: Double, glucose: GlucoseValue)] = []
        for h in models.horizons {
            guard let model = models.models[h], let row = model.features.row(series, at: featurePoint) else {
                notes.append(.modelInputsIncomplete(at: featureTime))
                return ([], featureTime)
            }
            let prediction = model.prediction(row: model.asTrained(model.features.row(row, addingBolus: carriedInsulin, carbs: carriedCarbs)))
            // The evolved expression beyond what it was fitted on: the model's answer is its ARX
            // base's alone, not the model that was validated. Not a basis for insulin either.
            if prediction.baseAlone {
                notes.append(.modelUnavailable("the \(h)-minute model's expression is not finite or beyond the range of its "
                                               + "training days at these inputs"))
                return ([], featureTime)
            }
            let p = prediction.glucose
            // A prediction at the edge of what a model may predict (10 or 600 mg/dL): not a basis for insulin.
            if GlucoseModel.isAtLimit(p) {
                notes.append(.modelAtLimit(horizon: h, glucose: p))
                return ([], featureTime)
            }
            let minutes = featureTime.addingTimeInterval(Double(h) * 60).timeIntervalSince(at) / 60
            points.append((minutes, GlucoseValue(mgdL: p)))
        }
        return (points, featureTime)
    }

    /// The models' trajectory with the effects their inputs cannot show: models fitted on data
    /// without insulin records (a CGM-only export, `GlucoseModel.trainedWithout`) read insulin as
    /// none, as they were fitted (`GlucoseModel.asTrained`), so the insulin on board (recorded, or
    /// stated with `--insulin-on-board`) acts on their anchors by the settings' curve,
    /// `- ISF (I(0) - I(m))`, as it does after the longest horizon; likewise carbohydrates on board
    /// for models fitted without carbohydrate records, `+ ISF/ICR (Q(0) - Q(m))`. Without this the
    /// curve counted only the share still on board after the longest horizon (hunt AC, stop 55: 3 U
    /// stated, 40 g at a flat 160 mg/dL: 1.1 U where the formula and the effects alone gave 0, and
    /// glucose near 55 mg/dL if the statement was right).
    static func withUnseenEffects(_ points: [(minutes: Double, glucose: GlucoseValue)], models: ModelSet?,
                                  effects e: PredictedCurve.Effects) -> [(minutes: Double, glucose: GlucoseValue)] {
        // The points are the models' in horizon order (`trajectory`): each gets its own model's unseen effects.
        guard let models, points.count == models.horizons.count else { return points }
        let isf = e.insulinSensitivity, perGram = isf / e.carbRatio
        let i0 = e.insulinOnBoard(0).units, q0 = e.carbsOnBoard(0).grams
        return zip(models.horizons, points).map { h, point in
            let (m, g) = point
            let noInsulin = models.models[h]?.trainedWithout(.insulin) ?? false
            let noCarbs = models.models[h]?.trainedWithout(.carbohydrate) ?? false
            var value = g.mgdL
            if noInsulin { value -= isf * (i0 - e.insulinOnBoard(max(0, m)).units) }
            if noCarbs { value += perGram * (q0 - e.carbsOnBoard(max(0, m)).grams) }
            return (m, GlucoseValue(mgdL: value))
        }
    }

    /// The curve's inputs: glucose now, the settings' ISF and ICR and insulin curve, the net
    /// insulin (with the `stated` units, as if given now) and the carbohydrates still on board at
    /// each future minute.
    static func effects(glucose: Double, settings: CheckedDoseSettings, series: PatientSeries, net: NetInsulin,
                        carbModel: BatemanCarbModel, stated: Double) -> PredictedCurve.Effects {
        let t = series.count - 1, stepMinutes = series.step / 60
        let insulin = settings.insulin
        let carbReach = Int((PatientSeries.horizon(carbModel) / stepMinutes).rounded(.up))
        let meals = (max(0, t - carbReach)...max(0, t)).filter { series.carbs[$0] != 0 }.map {
            (grams: series.carbs[$0], ago: Double(t - $0) * stepMinutes)
        }
        return PredictedCurve.Effects(
            glucose: .mgdL(glucose), insulinSensitivity: settings.insulinSensitivity, carbRatio: settings.carbRatio,
            insulin: insulin, carbs: carbModel,
            insulinOnBoard: { tau in
                InsulinUnits(net.onBoard(at: t, minutesAhead: tau, model: insulin).units + stated * insulin.fractionRemaining(after: tau))
            },
            carbsOnBoard: { tau in Carbohydrate(grams: meals.reduce(0) { $0 + $1.grams * carbModel.fractionRemaining(after: $1.ago + tau) }) })
    }

    /// Predicted glucose at each model horizon (or, with no model, every hour) with no bolus and
    /// with `dose`, both with the planned carbohydrates.
    static func horizons(_ curve: PredictedCurve, anchors: [(minutes: Double, glucose: GlucoseValue)], dose: Double) -> [PredictedGlucose] {
        let minutes = anchors.isEmpty ? stride(from: 60.0, through: curve.minutes.last ?? 0, by: 60).map { $0 } : anchors.map(\.minutes)
        return minutes.map { m in
            PredictedGlucose(horizonMinutes: Int(m.rounded()), atZeroDose: shown(curve.glucose(bolus: InsulinUnits(0), atMinute: m).mgdL),
                             atSuggestedDose: shown(curve.glucose(bolus: InsulinUnits(dose), atMinute: m).mgdL))
        }
    }

    /// A predicted glucose as shown (text, JSON, reasons): within the models' plausible range
    /// (`GlucoseModel.plausibleRange`, 10-600 mg/dL), as their own predictions are. The curve of
    /// effects has no floor: 10 U stated on board predicted -303 mg/dL. The decisions compare the
    /// curve itself with the suspend threshold and the target, both inside that range.
    static func shown(_ mgdL: Double) -> Double {
        min(GlucoseModel.plausibleRange.upperBound, max(GlucoseModel.plausibleRange.lowerBound, mgdL))
    }

    /// How long after exercise ends a dose is noted as after exercise.
    public static let exerciseReach: TimeInterval = 2 * 3600

    static func finish(_ suggestion: DoseSuggestion, _ decision: DoseDecision, notes: [DoseNote]) -> DoseSuggestion {
        var s = suggestion
        s.decision = decision
        var reasons: [DoseReason] = []
        switch decision {
        case let .refused(list): reasons = list.map(DoseReason.init)
        case let .noInsulin(r): reasons = [DoseReason(r)]
        case .bolus: break
        }
        s.reasons = reasons + notes.map(DoseReason.init)
        return s
    }
}
