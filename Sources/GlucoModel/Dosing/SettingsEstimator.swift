import Foundation
import LinearAlgebra

/// What a person's own log says their carb ratio, insulin sensitivity and basal should be
/// (dosing.md, "Settings from data"; after OpenAPS's Autotune), each moved at most a bounded step
/// from the current setting and given with its evidence.
///
/// The log is cut into consecutive 30-minute windows with a measured glucose at both ends. In
/// each, the toolkit's effect model says
///
///     ΔG = d·T − ISF·ΔI + CSF·ΔC + ε
///
/// - `ΔI` the net insulin (`NetInsulin`: boluses and basal beyond the schedule) absorbed in the
///   window by the settings' insulin curve, `Σ_j net_j (R(a − t_j) − R(b − t_j))`;
/// - `ΔC` the carbohydrates appeared in it by the Bateman curve, `Σ_j carbs_j (C(a − t_j) − C(b − t_j))`;
/// - `T` the window's length (h), `d` a drift common to the whole log (mg/dL/h; the basal's share);
/// - `CSF = ISF/ICR`, the rise per gram.
///
/// 1. **ISF and ICR** by least squares on every window (LAPACK `dgelsd`), once more without the
///    windows whose residual is beyond 3 robust standard deviations (unlogged meals, exercise,
///    sensor faults); `ICR = ISF/CSF`. Their 95% bands are percentiles of the same fit on 200
///    bootstrap samples of whole days (a fixed seed), so they hold what varies from day to day,
///    widened to hold the estimates refitted with the curve shapes (insulin peak −20/+0/+25 min,
///    carbohydrates absorbed 0.75/1/1.5 times as fast) that fit the log about as well (residual
///    SD within 5% of the best): a setting that hangs on a shape the data cannot tell from
///    another is not supported by the data.
/// 2. **Basal per block** (00-06, 06-12, 12-18, 18-24 h local): in the fasting windows (no
///    carbohydrate appearing or on board, under 0.05 U of net insulin absorbed) the rise not
///    explained by insulin and carbohydrates, `r = (ΔG + ISF·ΔI − CSF·ΔC)/T` mg/dL/h, with the
///    suggested ISF and ICR, is insulin the basal lacked:
///    `need = scheduled + mean(r)/ISF` U/h; its 95% band from the mean's standard error with the
///    windows of a day taken together (fasting windows on 3 days or more). A person on
///    injections has one daily long-acting dose instead (`Injections`).
/// 3. **Bounded step**: a setting moves toward its estimate by at most ±20% of its value per run
///    (Autotune's caps keep one odd week from swinging it), then into `DoseLimits`. Too little
///    evidence (fewer periods than the minimum, an estimate not positive, or a 95% band wider than
///    ±50% of the estimate) leaves the setting unchanged and says why; so does a band that holds
///    the current setting (the data agree with it). The basal blocks follow the same rules.
/// 4. **Lows first**: when the log's lows are beyond the consensus targets (4% of readings below
///    70 mg/dL, or 1% below 54), no setting steps toward more insulin (a lower ICR or ISF, a higher
///    basal) and the reason says so; steps toward less insulin still go. A fit that asks for more
///    insulin from a log full of lows is more likely wrong (rebounds and rescue carbohydrates look
///    like a missing basal) than right, and the harm of being wrong is a worse low.
/// 5. **Highs first**: when half the log's readings or more are above 180 mg/dL, no setting steps
///    toward less insulin (a higher ICR or ISF, a lower basal). Above about 180 mg/dL the kidneys
///    clear glucose, a fall the fit credits to insulin: in a log that stays high it reads each unit
///    as stronger and each basal as more than needed, and suggests less insulin to the person whose
///    highs call for more. A log with lows beyond their targets as well steps neither way.
///
/// A log with glucose but no insulin records (a CGM-only export) changes nothing, and every
/// reason says why: with no insulin or carbohydrate known, every window would read as fasting.
/// Days read without carbohydrate records (meals not logged) keep the ratio and the sensitivity,
/// with the reason: a meal's bolus would read as a correction; the basal blocks still go.
///
/// Meals not logged but bolused are screened out (`UnloggedMeals`); so is a window's basal read at
/// the insulin curve's peak before it (as Autotune moves basal need to the hours before).
///
/// Limits: the curves are the toolkit's, not the person's; meals neither logged nor bolused and
/// exercise are only partly screened out by the robust refit; a 6-hour block holds one rate.
public enum SettingsEstimator {
    /// Length of a window, minutes.
    public static let windowMinutes = 30.0
    /// The largest change of a setting per run: ±20%.
    public static let maxStep = 0.2
    /// Least windows with carbohydrates appearing for an ICR (about four meals).
    public static let minimumMealWindows = 24
    /// Least windows with insulin acting and no carbohydrates for an ISF.
    public static let minimumCorrectionWindows = 24
    /// Least fasting windows in a block for its basal (three hours).
    public static let minimumFastingWindows = 6
    /// Least days with windows for an ICR or an ISF (their band draws whole days).
    public static let minimumDays = 5
    /// Least days with fasting windows in a block for its basal (its band is of days).
    public static let minimumFastingDays = 3
    /// Beyond this share of the boluses read repeating the dose before within 5 minutes, the
    /// insulin is taken to be recorded twice and nothing changes.
    public static let maximumTwinShare = 0.1
    /// An estimate more than this factor from the current carb ratio or ISF changes nothing: a unit
    /// mistaken, not a setting off (those are off by 20-30%).
    public static let farFactor = 4.0
    /// A band wider than ±50% of the estimate is too little evidence.
    public static let widestBand = 0.5
    /// Local start hours of the basal blocks.
    public static let blockStartHours = [0, 6, 12, 18]
    /// The consensus targets for lows (Battelino et al. 2019; CGMMetrics), percent of readings:
    /// at or beyond either, no setting steps toward more insulin.
    public static let lowTargets = (below70: 4.0, below54: 1.0)
    /// Percent of readings above 180 mg/dL at and beyond which no setting steps toward less insulin
    /// ("Highs first"): a log mostly above range. (At the consensus targets, 25% above 180 or 5%
    /// above 250, the rule held steps for 3 of 15 simulated patients whose logs also had lows, and
    /// their trial days were no better: docs/settings.md.)
    public static let mostlyHigh = 50.0
    /// The days of the log an estimate reads by default: the last four weeks, twice the consensus's
    /// 14 days of CGM (Battelino et al. 2019), so that each basal block has its fasting hours, and
    /// recent enough that settings changed or lows of months ago do not steer it.
    public static let defaultDays = 28

    /// Estimates the settings from the last `days` days of `log` (up to its newest glucose reading;
    /// nil: the whole log) against the current `settings`. Records before then still count as
    /// insulin and carbohydrates on board.
    /// - Parameters:
    ///   - timeZone: where the basal schedule and the blocks are local.
    ///   - carbModel: the carbohydrate curve (the series' default).
    public static func estimate(log: PatientLog, settings: CheckedDoseSettings, timeZone: TimeZone,
                                carbModel: BatemanCarbModel = .standard, days: Int? = defaultDays) -> SettingsEstimate {
        estimate(log: log, settings: settings, timeZone: timeZone, carbModel: carbModel, days: days, cut: true)
    }

    /// How far before its first window an estimate reads: the settings' insulin curve (24 hours,
    /// the settings' limit, by default), the slowest carbohydrate curve it refits with, and a flat
    /// line's shortest run and gap (so that a flat line across the first window is still found),
    /// plus two steps. An estimate from `PatientLog.since(_:)` of that much before its first
    /// window is the whole log's.
    public static func memory(insulinDurationMinutes: Double = 24 * 60, carbModel: BatemanCarbModel = .standard) -> TimeInterval {
        let slowest = carbSpeeds.min() ?? 1
        let carbs = PatientSeries.horizon(BatemanCarbModel(ka: carbModel.ka * slowest, ke: carbModel.ke * slowest))
        let flat = SensorLimitDetector()
        return max(insulinDurationMinutes * 60, carbs * 60, flat.minimumFlatDuration + flat.maximumGap) + 2 * SeriesOptions().step
    }

    /// How far before the newest glucose reading an estimate over `days` days reads the log, for
    /// any settings (a store reads that much of a long history: `HistoryWindow`).
    public static func lookback(days: Int = defaultDays) -> TimeInterval {
        Double(max(1, days)) * 86_400 + memory()
    }

    /// The estimate, from the records `memory` before its first window on when `cut` (the same
    /// estimate as from the whole log, at the cost of the weeks it covers).
    /// `start`, when given, is where the days read begin (instead of `days` before the newest reading).
    static func estimate(log whole: PatientLog, settings: CheckedDoseSettings, timeZone: TimeZone,
                         carbModel: BatemanCarbModel, days: Int?, cut: Bool, from start: Date? = nil) -> SettingsEstimate {
        let since = start ?? days.flatMap { d in whole.glucose.last.map { $0.time.addingTimeInterval(-Double(max(1, d)) * 86_400) } }
        let reach = memory(insulinDurationMinutes: settings.insulin.durationMinutes, carbModel: carbModel)
        let log = cut ? since.map { whole.since($0.addingTimeInterval(-reach)) } ?? whole : whole
        let readings = since.map { since in log.glucose.filter { $0.time >= since } } ?? log.glucose
        let windows = whole.has(.insulin) ? self.windows(log: log, settings: settings, timeZone: timeZone, carbModel: carbModel, since: since) : []
        var out = SettingsEstimate(patient: log.patient, first: readings.first?.time, last: readings.last?.time,
                                   windows: windows.count, used: 0, deviation: nil,
                                   carbRatio: .init(current: settings.carbRatio, periods: windows.count { $0.kind == .meal }),
                                   insulinSensitivity: .init(current: settings.insulinSensitivity,
                                                             periods: windows.count { $0.kind == .correction }),
                                   basal: [])
        out.timeZone = timeZone
        // In the days read.
        let read = { (t: Date) in since.map { t >= $0 } ?? true }
        out.unloggedMeals = UnloggedMeals(log: log, settings: settings, carbModel: carbModel).boluses.count { read($0.time) }
        // A person on injections: one daily long-acting dose instead of the basal blocks.
        if let first = out.first, let last = out.last, Injections.onInjections(log, read: read) {
            out.longActing = .init(startHour: 0, endHour: 24,
                                   current: Injections.dailyDose(log.basalInjections, from: first, to: last, timeZone: timeZone),
                                   periods: 0)
        }
        // The CGM's readings alone, as `metrics` and the report count them: finger-sticks are taken
        // when a low is suspected, and counted beside the CGM they doubled its lows (hunt BW, stop 64).
        // A log of finger-sticks alone keeps them: its lows are still the clinician's evidence (review BY).
        let cgm = readings.filter { $0.source == .cgm }
        if !readings.isEmpty {
            let metrics = CGMMetrics(readings: cgm.isEmpty ? readings : cgm)
            out.below70 = metrics.tbrLevel1 + metrics.tbrLevel2
            out.below54 = metrics.tbrLevel2
            out.above180 = metrics.tarLevel1 + metrics.tarLevel2
            out.above250 = metrics.tarLevel2
        }
        guard readings.isEmpty || whole.has(.insulin) else { return unchanged(out, settings: settings, reason: noInsulinReason) }
        guard readings.isEmpty || log.boluses.contains(where: { read($0.time) }) else {
            return unchanged(out, settings: settings, reason: noBolusesReason)
        }
        let given = log.boluses.filter { read($0.time) }
        let twins = twinBoluses(given)
        if Double(twins) > maximumTwinShare * Double(given.count) {
            return unchanged(out, settings: settings, reason: "no change: \(Plural.of(twins, "bolus", plural: "boluses")) of "
                + "\(given.count) repeat the dose before within 5 minutes: is the insulin recorded twice (two exports merged)?")
        }
        let eaten = log.carbs.filter { read($0.time) }
        let twinMeals = twinMeals(eaten)
        if Double(twinMeals) > maximumTwinShare * Double(eaten.count) {
            return unchanged(out, settings: settings, reason: "no change: \(Plural.of(twinMeals, "meal")) of \(eaten.count) repeat the "
                + "grams of the meal before within 5 minutes: are the meals recorded twice (two exports merged)?")
        }
        if settings.basalSchedule == nil, log.basalRates.isEmpty, log.temporaryBasals.contains(where: { read($0.start) }) {
            return unchanged(out, settings: settings, reason: noScheduleReason)
        }
        if let schedule = settings.basalSchedule, let first = out.first, let last = out.last {
            let mismatch = ProgrammeMismatch(log: log, schedule: schedule, timeZone: timeZone, from: first, to: last)
            // The pump reprogrammed to the file's schedule in the days read (last week's suggestion
            // adopted): the days since are read alone, rather than no advice until the old
            // programme's days have left the period (three weekly checks).
            if start == nil, let change = mismatch.becameTheSchedule() {
                var since = estimate(log: whole, settings: settings, timeZone: timeZone, carbModel: carbModel, days: days,
                                     cut: cut, from: change)
                since.programmeChange = (change, mismatch.share)
                return since
            }
            if let reason = mismatch.reason(timeZone: timeZone) { return unchanged(out, settings: settings, reason: reason) }
        }
        let hold = out.lowsHoldMoreInsulin ? out.lowsReason : nil
        let holdLess = out.highsHoldLessInsulin ? out.highsReason : nil
        let fit = fitEffects(windows)
        out.used = fit?.used ?? 0
        out.deviation = fit?.residualSD

        // ISF and ICR, their bands from the fits of days drawn with replacement.
        if let fit {
            let isf = fit.coefficients[1], csf = fit.coefficients[2]
            out.insulinSensitivity.estimate = isf
            if isf > 0, csf > 0 { out.carbRatio.estimate = isf / csf }
            let replicates = bootstrap(windows)
            let shapes = curveShapes(log: log, settings: settings, timeZone: timeZone, carbModel: carbModel, since: since)
            // The shapes that fit about as well as the best one (residual SD within 5%).
            let best = min(fit.residualSD, shapes.map(\.deviation).filter(\.isFinite).min() ?? fit.residualSD)
            let plausible = shapes.filter { !($0.deviation > best * (1 + shapeTolerance)) }
            out.insulinSensitivity.band = widened(percentileBand(replicates.map(\.isf)), by: plausible.map(\.isf))
            out.carbRatio.band = widened(percentileBand(replicates.map(\.icr)), by: plausible.map(\.icr))
        }
        // A lower ratio or sensitivity means more insulin per gram or per mg/dL.
        decide(&out.insulinSensitivity, minimum: minimumCorrectionWindows, kind: "correction",
               limits: DoseLimits.insulinSensitivity, holdingDecrease: hold, holdingIncrease: holdLess)
        decide(&out.carbRatio, minimum: minimumMealWindows, kind: "meal", limits: DoseLimits.carbRatio,
               holdingDecrease: hold, holdingIncrease: holdLess)
        // A band of days drawn from one or two days is no band (a 2-day log stepped the ICR -20%
        // with a "95% band" of 9.80-9.85).
        func keepRatioAndSensitivity(_ reason: String, unlessLittleEvidence: Bool = false) {
            // A setting the data read as another unit keeps that reason: it outweighs how little there is.
            for p in [\SettingsEstimate.carbRatio, \.insulinSensitivity] where !out[keyPath: p].doubtsUnits && (!unlessLittleEvidence
                || out[keyPath: p].suggested != out[keyPath: p].current || !out[keyPath: p].reason.hasPrefix("too little evidence")) {
                out[keyPath: p].suggested = out[keyPath: p].current
                out[keyPath: p].reason = reason
            }
        }
        let days = Set(windows.map(\.day)).count
        if days < minimumDays {
            keepRatioAndSensitivity("too little evidence: windows on \(Plural.of(days, "day")), at least \(minimumDays) needed",
                                    unlessLittleEvidence: true)
        }
        if !readings.isEmpty, !log.carbs.contains(where: { read($0.time) }) { keepRatioAndSensitivity(noCarbsReason) }

        // Basal per block, with the ISF and ICR the suggestion keeps.
        let isf = out.insulinSensitivity.suggested, csf = isf / out.carbRatio.suggested
        let mealsLogged = readings.isEmpty || log.carbs.contains(where: { read($0.time) })
        // What holds a basal step toward more insulin, besides the lows: meals not logged, or
        // fasting glucose below the target (`basalIncreaseHold`).
        func holdMore(_ fasting: [Window]) -> String? {
            hold ?? (mealsLogged ? nil : noCarbsBasalReason) ?? basalIncreaseHold(fasting, target: settings.target)
        }
        // The basal is read through the ISF and ICR: one the data read as another unit moves it by as
        // much (hunt AS: an ISF of 13.9 for 250 gave basal estimates of -0.27 U/h).
        let doubted = [out.insulinSensitivity, out.carbRatio].contains { $0.doubtsUnits } ? unitDoubtBasalReason : nil
        if let dose = out.longActing {
            out.longActing = Injections.estimate(current: dose.current, windows: windows, isf: isf, csf: csf,
                                                 holdingIncrease: holdMore(windows.filter { $0.kind == .fasting }), holdingDecrease: holdLess)
            if let doubted, var held = out.longActing { held.suggested = held.current; held.reason = doubted; out.longActing = held }
            return out
        }
        let lows = readings.filter { $0.value.mgdL < lowLevel }
        for (b, hour) in blockStartHours.enumerated() {
            let end = b + 1 < blockStartHours.count ? blockStartHours[b + 1] : 24
            let fasting = windows.filter { $0.kind == .fasting && $0.block == b }
            let lowDays = Self.lowDays(lows, fromHour: hour, toHour: end, peakMinutes: settings.insulin.peakMinutes, timeZone: timeZone)
            let rates = fasting.map { ($0.glucoseChange + isf * $0.insulinAbsorbed - csf * $0.carbsAppeared) / $0.hours }
            let known = fasting.compactMap(\.scheduledRate)
            let current = known.isEmpty ? settings.basalSchedule.map { meanRate($0, fromHour: hour, toHour: end) } ?? nil
                                        : known.reduce(0, +) / Double(known.count)
            var block = SettingsEstimate.Basal(startHour: hour, endHour: end, current: current, periods: fasting.count)
            if let current, let half = halfBand(rates, days: fasting.map(\.day)) {
                let mean = rates.reduce(0, +) / Double(rates.count)
                block.drift = mean
                block.estimate = max(0, current + mean / isf)  // as its band: a rate is never negative
                block.band = rateBand(current, mean: mean, half: half, per: isf)
            }
            decideBasal(&block, holdingIncrease: holdMore(fasting) ?? lowsInBlockReason(lowDays), holdingDecrease: holdLess)
            if let doubted { block.suggested = block.current; block.reason = doubted }
            // A settings file without a schedule leaves the basal to the pump's programme in the
            // data: the table gives the estimate, the suggested file writes no schedule.
            if settings.basalSchedule == nil, block.suggested != block.current {
                block.suggested = block.current
                block.reason = programmeReason
            }
            out.basal.append(block)
        }
        return out
    }

    /// Why a basal is not changed when the ratio or the sensitivity is read as another unit.
    static let unitDoubtBasalReason = "no change: the basal is read through the ISF and the carb ratio, and the data read one of them "
        + "as another unit (above)"

    /// Why nothing changes when the log has no insulin records at all (a CGM-only export): every
    /// window would read as fasting, with no insulin acting and no carbohydrate appearing, and a
    /// fall of glucose that boluses made would ask for less basal.
    static let noInsulinReason = "no change: the data has no insulin records (boluses or basal), "
        + "so fasting, meal and correction windows cannot be told apart"

    /// Why nothing changes when the days read hold basal records but no bolus (boluses exported
    /// in another file): with no bolus known, meals and corrections cannot be read, and glucose
    /// that boluses brought down asks for less basal (13 of 17 simulated histories stripped of
    /// their boluses had a basal block cut, 15 blocks by the full 20%).
    static let noBolusesReason = "no change: the days read have no bolus records (are they in another file?), "
        + "so meals and corrections cannot be read"

    /// Why nothing changes when neither the settings nor the data hold a basal schedule and the
    /// data has temporary basals (a Loop or AAPS export): net insulin is the delivery beyond the
    /// schedule, and with no schedule the temporary basals cannot be counted (read as nothing,
    /// they moved a known person's ISF from 40 to 48).
    static let noScheduleReason = "no change: neither the settings file nor the data has a basal schedule, "
        + "so the temporary basals cannot be counted; add basalSchedule to the settings file"

    /// Why a basal block does not change in the suggested file when the settings file has no
    /// schedule (the basal is the data's programme).
    static let programmeReason = "not written: the settings file has no basalSchedule (the basal is the pump's programme "
        + "in the data); the estimate is for review"

    /// Why the ratio and the sensitivity do not change when the days read hold no carbohydrate
    /// records (meals not logged): a meal's bolus reads as a correction that glucose defied. (The
    /// fit has then no carbohydrate term and gives no estimate; the basal blocks may step down,
    /// not up: `noCarbsBasalReason`.)
    static let noCarbsReason = "no change: the days read have no carbohydrate records (meals not logged), "
        + "so a meal's bolus cannot be told from a correction"

    /// Why a basal does not step up when no meal is logged: a "fasting" window may hold an
    /// unlogged meal, whose rise reads as basal lacking (a breakfast block estimated at 2.9 times
    /// the rate that holds the simulated body flat). Steps down still go.
    static let noCarbsBasalReason = "no step toward more insulin: the days read have no carbohydrate records (meals not logged), "
        + "so a fasting window may hold a meal"

    /// Why a basal does not step up although its fasting windows rise: they lie below the target on
    /// average, and a rise from below the target is the body's return toward its own level after a
    /// bolus or a low (counter-regulation, rescue carbohydrates), not basal lacking. Read as basal
    /// lacking, a simulated child on exactly its own basal (fasting flat at 150 mg/dL) whose boluses
    /// kept it at a mean of 109 was advised +18-20% in every block, and with it spent 52% of the time
    /// below 70 instead of 4.5%. Nil when they average at or above the target.
    static func basalIncreaseHold(_ fasting: [Window], target: Double) -> String? {
        let levels = fasting.map(\.glucoseLevel).filter(\.isFinite)
        guard !levels.isEmpty else { return nil }
        let mean = levels.reduce(0, +) / Double(levels.count)
        guard mean < target else { return nil }
        // Both units, each told apart from the target (hunt AD, stop 56: "6 mmol/L", the target in mg/dL only).
        func both(_ mgdL: Double) -> String {
            GlucoseUnit.mgdL.format(mgdL, apartFrom: target) + " mg/dL (" + GlucoseUnit.mmolL.format(mgdL, apartFrom: target) + " mmol/L)"
        }
        return "no step toward more insulin: the fasting windows average \(both(mean)), below the target "
            + "\(GlucoseUnit.mgdL.withUnit(target)) (\(GlucoseUnit.mmolL.withUnit(target))): a rise from below the target is the "
            + "body's return after a bolus or a low, not basal lacking"
    }

    /// Below this a reading is a low (mg/dL).
    static let lowLevel = 70.0
    /// Days with a low in a block's hours from which its basal does not step up.
    static let lowDaysHoldingIncrease = 2

    /// The local days on which a reading of `lows` falls in the hours a block's basal acts on: its
    /// own hours, `fromHour` to `toHour`, and the insulin curve's peak after them (the windows'
    /// attribution, `Window.block`).
    static func lowDays(_ lows: [GlucoseReading], fromHour: Int, toHour: Int, peakMinutes: Double, timeZone: TimeZone) -> Int {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let start = Double(fromHour * 60), end = Double(toHour * 60) + peakMinutes
        var days = Set<DateComponents>()
        for low in lows {
            let c = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: low.time)
            let minute = Double((c.hour ?? 0) * 60 + (c.minute ?? 0))
            // The last block's reach runs past midnight into the next day's first hours.
            if (start <= minute && minute < end) || minute + 1440 < end {
                days.insert(DateComponents(year: c.year, month: c.month, day: c.day))
            }
        }
        return days.count
    }

    /// Why a basal does not step up over lows in its hours: treat-to-target titration raises a basal
    /// only while the hours it acts on are free of lows. Hunt D's child, on exactly its own basal,
    /// went below 70 mg/dL between midnight and 1 h on 2 of 14 nights (1.7% of the log's readings,
    /// within "Lows first"), and its night block was advised +20%: adopted, 10.9% of the night was
    /// below 70 instead of 0.3%. Nil below `lowDaysHoldingIncrease` days.
    static func lowsInBlockReason(_ days: Int) -> String? {
        guard days >= lowDaysHoldingIncrease else { return nil }
        return "no step toward more insulin: glucose went below 70 mg/dL (3.9 mmol/L) on \(days) days in the hours "
            + "this basal acts on: a basal is not raised over lows"
    }

    /// `out` with every setting kept at its current value (the basal blocks at the schedule's
    /// mean rates) for `reason`.
    static func unchanged(_ out: SettingsEstimate, settings: CheckedDoseSettings, reason: String) -> SettingsEstimate {
        var out = out
        out.windowsWeighed = false
        out.carbRatio.reason = reason
        out.insulinSensitivity.reason = reason
        out.longActing?.reason = reason
        out.basal = out.longActing != nil ? [] : blockStartHours.enumerated().map { b, hour in
            let end = b + 1 < blockStartHours.count ? blockStartHours[b + 1] : 24
            var block = SettingsEstimate.Basal(startHour: hour, endHour: end,
                                               current: settings.basalSchedule.map { meanRate($0, fromHour: hour, toHour: end) }, periods: 0)
            block.reason = reason
            return block
        }
        return out
    }

    // MARK: Windows

    /// One 30-minute window of the log.
    struct Window: Equatable {
        enum Kind { case meal, correction, fasting, mixed }
        var glucoseChange: Double
        /// The mean of the glucose at the window's start and end, mg/dL.
        var glucoseLevel: Double = .nan
        var insulinAbsorbed: Double
        var carbsAppeared: Double
        var hours: Double
        var kind: Kind
        /// Index into `blockStartHours` of the basal the window shows: at its start less the
        /// insulin curve's peak.
        var block: Int
        /// The scheduled basal then, U/h; nil before the log's first programmed rate, when the
        /// settings have no schedule (a rate nobody knows, not 0: hunt AK, stop 58).
        var scheduledRate: Double?
        /// Days from the first grid point: the unit the bootstrap draws.
        var day: Int
    }

    /// The log's 30-minute windows starting at or after `since` (nil: all).
    static func windows(log: PatientLog, settings: CheckedDoseSettings, timeZone: TimeZone,
                        carbModel: BatemanCarbModel, since: Date? = nil) -> [Window] {
        var options = SeriesOptions(insulinModel: settings.insulin)
        options.carbModel = carbModel
        options.start = gridStart(log, step: options.step)
        let series = PatientSeries(log: log, options: options)
        guard series.count > 1 else { return [] }
        let net = NetInsulin(log: log, series: series, schedule: settings.basalSchedule, timeZone: timeZone,
                             dualShare: options.dualBolusImmediateShare)
        let stepMinutes = series.step / 60
        let netOnBoard = PatientSeries.convolve(net.perStep, stepMinutes, settings.insulin.durationMinutes) {
            settings.insulin.fractionRemaining(after: $0)
        }
        let origin = historyOrigin(log, step: series.step) ?? series.start.timeIntervalSince1970
        let schedule = settings.basalSchedule
        let programmed = log.basalRates
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let span = Int((windowMinutes / stepMinutes).rounded())
        guard span >= 1 else { return [] }
        // A flat line (one value for hours) shows a stuck sensor, not the person: a window touching
        // one is left out (a CGM stuck at 120 mg/dL for 14 days fitted "deviation 0" and moved
        // the basal). Runs at the floor or ceiling stay: real lows and highs the lows rule reads.
        let flatRuns = SensorLimitDetector().runs(in: log.glucose).filter { $0.kind == .flat }
        // A bolus without carbohydrates larger than a correction is a meal not logged: the
        // windows while it would appear are left out too (`UnloggedMeals`).
        let unlogged = UnloggedMeals(log: log, settings: settings, carbModel: carbModel)
        var out: [Window] = []
        var a = 0
        while a + span < series.count {
            let b = a + span
            defer { a = b }
            guard series.glucoseFlags[a] == .measured, series.glucoseFlags[b] == .measured,
                  since.map({ series.time(at: a) >= $0 }) ?? true,
                  !flatRuns.cover(series.time(at: a)), !flatRuns.cover(series.time(at: b)),
                  !unlogged.cover(series.time(at: a), series.time(at: b)) else { continue }
            // Absorbed (appeared) in the window: what was given (eaten) in it less the rise of what
            // is on board; sums over the window alone, so they do not depend on where the log begins.
            var given = 0.0, eaten = 0.0
            for j in (a + 1)...b { given += net.perStep[j]; eaten += series.carbs[j] }
            let dI = given - (netOnBoard[b] - netOnBoard[a]), dC = eaten - (series.carbsOnBoard[b] - series.carbsOnBoard[a])
            guard dI.isFinite, dC.isFinite else { continue }
            let onBoard = series.carbsOnBoard[a]
            // A figure at a threshold counts as reaching it whatever the rounding of its sums (a pump
            // 0.1 U/h over the schedule absorbs exactly 0.05 U in a window, give or take the last bit).
            let reaches = { (value: Double, threshold: Double) in value >= threshold - Self.thresholdTolerance }
            let kind: Window.Kind = reaches(dC, 1) ? .meal
                : reaches(onBoard, 2) ? .mixed
                : reaches(dI.magnitude, 0.05) ? .correction : .fasting
            let start = series.time(at: a)
            // The basal a window's glucose shows is the one delivered about the insulin curve's peak
            // before (Autotune likewise moves basal need to the hours before): read with the
            // window's own hour, a rise before breakfast from a dawn the night's basal missed
            // raised the morning's block every week (1.0 -> 2.3 U/h in five weeks where 1.0 was right).
            let delivered = start.addingTimeInterval(-settings.insulin.peakMinutes * 60)
            let hour = calendar.component(.hour, from: delivered)
            let block = blockStartHours.lastIndex { $0 <= hour } ?? 0
            // Without a schedule, the pump's programme in the data: before its first record the
            // rate is not known (the 3 windows of an export's first 75 minutes read 0 and put 0.617
            // U/h in a block the pump ran at 0.648; hunt AK, stop 58). No programme at all is 0.
            let rate = schedule?.rate(at: delivered, timeZone: timeZone).unitsPerHour
                ?? (programmed.isEmpty ? 0 : programmed.last { $0.start <= delivered }?.rate.unitsPerHour)
            out.append(Window(glucoseChange: series.glucose[b] - series.glucose[a], glucoseLevel: (series.glucose[a] + series.glucose[b]) / 2,
                              insulinAbsorbed: dI, carbsAppeared: dC,
                              hours: Double(span) * stepMinutes / 60, kind: kind, block: block, scheduledRate: rate,
                              day: Int((start.timeIntervalSince1970 - origin) / 86_400)))
        }
        return out
    }

    /// Where the whole history's series begins (its first instant on the grid; `historyStart` for
    /// a window of it): the windows and the bootstrap's days are counted from there.
    static func historyOrigin(_ log: PatientLog, step: TimeInterval) -> Double? {
        log.historyFirstInstant.map { ($0.timeIntervalSince1970 / step).rounded(.down) * step }
    }

    /// Where an estimate's series begins: the history's origin, moved on by whole days up to the
    /// log's first instant when the log is a window of a longer history, so that its 30-minute
    /// windows and days fall where they fall in the whole log's series.
    static func gridStart(_ log: PatientLog, step: TimeInterval) -> Date? {
        guard let first = log.firstInstant, let origin = historyOrigin(log, step: step) else { return nil }
        let days = max(0, ((first.timeIntervalSince1970 - origin) / 86_400).rounded(.down))
        return Date(timeIntervalSince1970: origin + days * 86_400)
    }

    // MARK: The fit

    struct Fit {
        /// `d` (mg/dL/h), `ISF`, `CSF`.
        var coefficients: [Double]
        var residualSD: Double
        var used: Int
    }

    /// Least squares of `ΔG = d·T − ISF·ΔI + CSF·ΔC`, then again without residuals beyond 3 robust SDs.
    static func fitEffects(_ windows: [Window]) -> Fit? {
        guard var fit = leastSquares(windows) else { return nil }
        let residuals = windows.map { residual($0, fit.coefficients) }
        let sorted = residuals.sorted()
        let median = sorted[sorted.count / 2]
        let deviations = residuals.map { ($0 - median).magnitude }.sorted()
        let robustSD = 1.4826 * deviations[deviations.count / 2]
        if robustSD > 0 {
            let kept = zip(windows, residuals).filter { ($0.1 - median).magnitude <= 3 * robustSD }.map(\.0)
            if let refit = leastSquares(kept) { fit = refit }
        }
        return fit
    }

    static func residual(_ w: Window, _ c: [Double]) -> Double {
        w.glucoseChange - (c[0] * w.hours - c[1] * w.insulinAbsorbed + c[2] * w.carbsAppeared)
    }

    static func leastSquares(_ windows: [Window]) -> Fit? {
        let n = windows.count, p = 3
        guard n > p + 1 else { return nil }
        var design = Matrix(rows: n, columns: p)
        for (i, w) in windows.enumerated() {
            design[i, 0] = w.hours; design[i, 1] = -w.insulinAbsorbed; design[i, 2] = w.carbsAppeared
        }
        guard let solution = try? LeastSquares.solve(design, windows.map(\.glucoseChange)), solution.rank == p,
              solution.coefficients.allSatisfy(\.isFinite) else { return nil }
        let c = solution.coefficients
        let rss = windows.map { residual($0, c) }.map { $0 * $0 }.reduce(0, +)
        let variance = rss / Double(n - p)
        guard variance.isFinite else { return nil }
        return Fit(coefficients: c, residualSD: variance.squareRoot(), used: n)
    }

    // MARK: Bands

    /// Bootstrap replicates drawn: whole days of windows with replacement, so that the band holds
    /// what varies from day to day (and the windows of a day, which are not independent, stay together).
    public static let replicates = 200

    /// ISF and ICR of each replicate whose fit has positive ISF and CSF (a replicate without is
    /// counted as not finite, which widens the band to nothing: too little evidence).
    static func bootstrap(_ windows: [Window]) -> [(isf: Double, icr: Double)] {
        let days = Dictionary(grouping: windows, by: \.day).sorted { $0.key < $1.key }.map(\.value)
        guard days.count >= 2 else { return [] }
        var state: UInt64 = 0x5EED_5E77_1465
        var out: [(isf: Double, icr: Double)] = []
        for _ in 0..<replicates {
            var sample: [Window] = []
            for _ in 0..<days.count {
                // SplitMix64: a fixed seed, so the same log always gives the same band.
                state &+= 0x9E37_79B9_7F4A_7C15
                var z = state
                z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
                z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
                sample += days[Int((z ^ (z >> 31)) % UInt64(days.count))]
            }
            guard let fit = fitEffects(sample) else { out.append((.nan, .nan)); continue }
            let isf = fit.coefficients[1], csf = fit.coefficients[2]
            out.append(isf > 0 && csf > 0 ? (isf, isf / csf) : (.nan, .nan))
        }
        return out
    }

    /// The 2.5th and 97.5th percentiles; nil when over 2.5% of the replicates have no estimate.
    static func percentileBand(_ values: [Double]) -> (low: Double, high: Double)? {
        let finite = values.filter(\.isFinite).sorted()
        guard !finite.isEmpty, Double(finite.count) >= 0.975 * Double(values.count) else { return nil }
        func at(_ p: Double) -> Double { finite[min(finite.count - 1, max(0, Int((p * Double(finite.count - 1)).rounded())))] }
        return (at(0.025), at(0.975))
    }

    /// The insulin peak shifts (minutes) and carbohydrate speed factors the estimate is refitted
    /// with: a person's curves are not the toolkit's, so a setting the data support must not hang
    /// on the curves' exact shape.
    public static let peakShifts: [Double] = [-20, 0, 25]
    public static let carbSpeeds: [Double] = [0.75, 1, 1.5]

    /// A curve shape whose fit's residual SD is within 5% of the best shape's is as plausible.
    public static let shapeTolerance = 0.05

    /// How far below a window kind's threshold (1 g appearing, 2 g on board, 0.05 U absorbed) a
    /// figure still reaches it: far above the rounding of the window's sums, far below anything
    /// a meal or a dose changes.
    static let thresholdTolerance = 1e-9

    /// ISF, ICR and residual SD fitted with each pair of curve shapes (ISF and ICR NaN where the
    /// fit gives no positive pair; all NaN where there is no fit).
    static func curveShapes(log: PatientLog, settings: CheckedDoseSettings, timeZone: TimeZone,
                            carbModel: BatemanCarbModel, since: Date?) -> [(isf: Double, icr: Double, deviation: Double)] {
        var out: [(isf: Double, icr: Double, deviation: Double)] = []
        let duration = settings.insulin.durationMinutes
        for shift in peakShifts {
            let peak = min(max(settings.insulin.peakMinutes + shift, 10), duration / 2 - 1)
            for speed in carbSpeeds {
                var variant = settings
                variant.insulin = ExponentialInsulinModel(peakMinutes: peak, durationMinutes: duration)
                let carbs = BatemanCarbModel(ka: carbModel.ka * speed, ke: carbModel.ke * speed)
                guard let fit = fitEffects(windows(log: log, settings: variant, timeZone: timeZone, carbModel: carbs, since: since)) else {
                    out.append((.nan, .nan, .nan)); continue
                }
                let isf = fit.coefficients[1], csf = fit.coefficients[2]
                out.append(isf > 0 && csf > 0 ? (isf, isf / csf, fit.residualSD) : (.nan, .nan, fit.residualSD))
            }
        }
        return out
    }

    /// The band stretched to hold every curve shape's estimate; nil when a shape has none.
    static func widened(_ band: (low: Double, high: Double)?, by values: [Double]) -> (low: Double, high: Double)? {
        guard let band, values.allSatisfy(\.isFinite) else { return nil }
        return (min(band.low, values.min() ?? band.low), max(band.high, values.max() ?? band.high))
    }

    // MARK: Decisions

    /// - Parameter holdingDecrease: the reason a lower value (more insulin) is not suggested, if it is not.
    /// - Parameters:
    ///   - holdingDecrease: the reason a lower value (more insulin) is not suggested, if it is not.
    ///   - holdingIncrease: the reason a higher value (less insulin) is not suggested, if it is not.
    static func decide(_ p: inout SettingsEstimate.Parameter, minimum: Int, kind: String, limits: ClosedRange<Double>,
                       holdingDecrease: String? = nil, holdingIncrease: String? = nil) {
        p.suggested = p.current
        // Beyond what a setting drifts by: a unit, not the person (hunt AI, stop 57: carbohydrates
        // mapped from a column of 15 g exchanges read as grams, an estimate of 1.5 g/U against 20,
        // and a step of -20% toward it). Judged first, whatever the evidence, when the band excludes
        // the setting: a wide band, or few windows, read "too little evidence", and the dose from data
        // went ahead on an ISF of 250 written 13.9 (reviews AT and AV of stop 59: 5.00 and 5.70 U
        // where 0.45 and 0 were right). The refusal is `dose --settings-from-data`'s alone.
        let far = p.estimate.map { $0 > 0 && max($0 / p.current, p.current / $0) > farFactor } ?? false
        let excludes = p.band.map { p.current < $0.low || p.current > $0.high } ?? false
        if far, excludes, let estimate = p.estimate {
            let ratio = estimate > p.current ? String(format: "%.1f times", estimate / p.current) : String(format: "1/%.1f of", p.current / estimate)
            p.reason = "no change: the estimate is \(ratio) the current setting, beyond what a setting drifts by: check the units "
                + (kind == "meal" ? "of the carbohydrates (exchanges or portions of 10-15 g read as grams?)" : "of the glucose and of the setting")
                + (p.periods < minimum ? " (from only \(Plural.of(p.periods, "\(kind) window")), but its band excludes the setting)" : "")
            p.doubtsUnits = true
            return
        }
        guard p.periods >= minimum else {
            p.reason = "too little evidence: \(Plural.of(p.periods, "\(kind) window")), at least \(minimum) needed"; return
        }
        if let problem = evidenceProblem(estimate: p.estimate, band: p.band, current: p.current) { p.reason = problem; return }
        let step = boundedStep(from: p.current, toward: p.estimate!, limits: limits)
        if step < p.current, let holdingDecrease { p.reason = holdingDecrease; return }
        if step > p.current, let holdingIncrease { p.reason = holdingIncrease; return }
        if step == p.current { p.reason = atLimitReason; return }
        p.suggested = step
        p.reason = p.suggested == p.estimate ? "the estimate" : "a bounded step toward the estimate"
    }

    /// Why an estimate is no ground for a change, if it is not: not positive, no band (some day
    /// sample or curve shape without a positive estimate), a band wider than ±50% of the
    /// estimate, or a band that holds the current setting (the data agree with it).
    static func evidenceProblem(estimate: Double?, band: (low: Double, high: Double)?, current: Double) -> String? {
        guard let estimate, estimate.isFinite, estimate > 0 else { return "too little evidence: the fit gives no positive estimate" }
        guard let band else { return "too little evidence: no positive estimate on some of the days drawn or curve shapes tried" }
        if (band.high - band.low) / 2 > widestBand * estimate {
            return "too little evidence: the 95% band is wider than ±\(Int(widestBand * 100))% of the estimate"
        }
        if band.low <= current, current <= band.high { return "no change: the current setting is within the 95% band" }
        return nil
    }

    /// The 95% band of a rate: `current` plus the mean drift ± `half`, in insulin (`per` mg/dL per
    /// unit of the rate), cut at 0, since a rate is never negative (it read "0.08 (-0.31-0.46)" U/h;
    /// hunt AQ). The cut changes no decision: a band reaching below 0 is wider than ±50% of any
    /// positive estimate.
    static func rateBand(_ current: Double, mean: Double, half: Double, per: Double) -> (low: Double, high: Double) {
        (max(0, current + (mean - half) / per), max(0, current + (mean + half) / per))
    }

    /// Half the 95% band of the mean of `rates` (one per fasting window), with the windows of a
    /// day taken together (a cluster-robust standard error: the windows of one night are not
    /// independent, and read as independent they gave bands a fraction as wide); nil with fewer
    /// than `minimumFastingDays` days.
    static func halfBand(_ rates: [Double], days: [Int]) -> Double? {
        let groups = Dictionary(grouping: zip(days, rates), by: \.0)
        guard groups.count >= minimumFastingDays else { return nil }
        let mean = rates.reduce(0, +) / Double(rates.count)
        let d = Double(groups.count), n = Double(rates.count)
        // Σ over days of (Σ over its windows of the deviation)², in a fixed order of days.
        let sum = groups.keys.sorted().map { (day: Int) -> Double in
            let s = groups[day]!.map { $0.1 - mean }.reduce(0, +)
            return s * s
        }.reduce(0, +)
        let variance = d / (d - 1) * sum / (n * n)
        guard variance.isFinite else { return nil }
        return 1.96 * variance.squareRoot()
    }

    /// - Parameters:
    ///   - holdingIncrease: the reason a higher rate (more insulin) is not suggested, if it is not.
    ///   - holdingDecrease: the reason a lower rate (less insulin) is not suggested, if it is not.
    static func decideBasal(_ block: inout SettingsEstimate.Basal, holdingIncrease: String? = nil, holdingDecrease: String? = nil) {
        (block.suggested, block.reason) = decideRate(current: block.current, periods: block.periods, estimate: block.estimate,
                                                     band: block.band, limits: 0...ImportLimits.basalUnitsPerHour.upperBound,
                                                     holdingIncrease: holdingIncrease, holdingDecrease: holdingDecrease)
    }

    /// The suggestion for a basal rate (or a long-acting dose) and why: the current value unless
    /// the evidence holds (enough fasting windows, on enough days, a band that excludes it), else a
    /// bounded step toward the estimate, rounded toward the current value to `roundedTo` if given.
    static func decideRate(current: Double?, periods: Int, estimate: Double?, band: (low: Double, high: Double)?,
                           limits: ClosedRange<Double>, roundedTo increment: Double? = nil,
                           holdingIncrease: String?, holdingDecrease: String?) -> (suggested: Double?, reason: String) {
        guard let current else { return (nil, "no scheduled basal known") }
        guard periods >= minimumFastingWindows else {
            return (current, "too little evidence: \(Plural.of(periods, "fasting window")), at least \(minimumFastingWindows) needed")
        }
        if current == 0 { return (current, "a zero basal is not scaled") }
        guard let estimate else {
            return (current, "too little evidence: fasting windows on fewer than \(minimumFastingDays) days")
        }
        if let problem = evidenceProblem(estimate: estimate, band: band, current: current) { return (current, problem) }
        var step = boundedStep(from: current, toward: estimate, limits: limits)
        let bounded = step != estimate
        if let increment {
            let rounded = SettingsEstimate.rounded(step, stepsPerUnit: 1 / increment, toward: current)
            // Rounded back to or past a current value between two steps: no step.
            if step > current ? rounded <= current : rounded >= current {
                return (current, "no change: the step rounds to none (\(SettingsEstimate.number(increment)) U steps)")
            }
            step = rounded
        }
        if step > current, let holdingIncrease { return (current, holdingIncrease) }
        if step < current, let holdingDecrease { return (current, holdingDecrease) }
        if step == current { return (current, atLimitReason) }
        if !bounded, step != estimate { return (step, "the estimate, rounded toward the current value") }
        return (step, bounded ? "a bounded step toward the estimate" : "the estimate")
    }

    /// Why a setting outside its band does not move: it is already at the limit of plausible values
    /// (`DoseLimits`) on the estimate's side (it read "a bounded step toward the estimate", +0%).
    static let atLimitReason = "no change: the setting is already at the limit of plausible values toward the estimate"

    /// `estimate` clamped to `current·(1 ± maxStep)` and to `limits`.
    public static func boundedStep(from current: Double, toward estimate: Double, limits: ClosedRange<Double>) -> Double {
        let low = current * (1 - maxStep), high = current * (1 + maxStep)
        return min(max(min(max(estimate, low), high), limits.lowerBound), limits.upperBound)
    }

    /// The schedule's time-weighted mean rate over `[fromHour, toHour)`.
    static func meanRate(_ schedule: BasalSchedule, fromHour: Int, toHour: Int) -> Double {
        var sum = 0.0
        for minute in stride(from: fromHour * 60, to: toHour * 60, by: 5) {
            sum += schedule.rates[(schedule.starts.lastIndex { $0 <= minute }) ?? 0].unitsPerHour
        }
        return sum / Double((toHour - fromHour) * 12)
    }
}

extension SettingsEstimator {
    /// `settings` with the carb ratio, insulin sensitivity and basal the records of `log` support
    /// (`dose --settings-from-data`), and the estimate behind them; nil when the settings do not
    /// pass their checks (the dose refuses them then, with the reasons).
    public static func settingsFromData(_ settings: DoseSettings, log: PatientLog, timeZone: TimeZone,
                                        days: Int? = defaultDays) -> (settings: DoseSettings, estimate: SettingsEstimate)? {
        guard case let .success(checked) = settings.checked(for: log.patient) else { return nil }
        let estimate = estimate(log: log, settings: checked, timeZone: timeZone, days: days)
        return (estimate.suggestedSettings(from: settings, timeZone: timeZone), estimate)
    }

    /// What the data's settings change from the file's, as the person and the dose's record read
    /// it (`DoseNote.settingsFromData`): every setting the suggestion may change, current -> used.
    public static func changes(from file: DoseSettings, to data: DoseSettings, units: GlucoseUnit = .mgdL) -> String {
        func isf(_ mgdL: Double?) -> String {
            guard let mgdL else { return "none" }
            return units == .mmolL ? String(format: "%.2f mmol/L/U", units.convert(mgdL)) : "\(SettingsEstimate.number(mgdL)) mg/dL/U"
        }
        return "carbRatio \(SettingsEstimate.number(file.carbRatio, nil: "none")) -> \(SettingsEstimate.number(data.carbRatio, nil: "none")) g/U, "
            + "insulinSensitivity \(isf(file.insulinSensitivity)) -> \(isf(data.insulinSensitivity)), "
            + "basalSchedule \(file.basalSchedule == nil ? "none (the data's programmed rates)" : BasalSchedule.Entry.describe(file.basalSchedule)) "
            + "-> \(BasalSchedule.Entry.describe(data.basalSchedule))"
    }
}
