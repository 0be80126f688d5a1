import Foundation

/// Why no dose is suggested. Each case carries what a clinician needs to see why.
///
/// `belowSuspend`, `predictedBelowSuspend` and `possibleLowBelowSuspend` lead to `DoseDecision.noInsulin` (the advice is
/// "no insulin; treat or watch for a low"); every other case to `DoseDecision.refused`.
public enum DoseRefusal: Error, Hashable, Sendable, Codable, CustomStringConvertible {
    public enum SettingProblem: Hashable, Sendable, Codable, CustomStringConvertible {
        case missing(String)
        case outOfLimits(String, value: Double, limits: ClosedRange<Double>)
        case inconsistent(String)

        public var description: String {
            switch self {
            case let .missing(name): return "setting '\(name)' is missing"
            case let .outOfLimits(name, value, limits):
                return "setting '\(name)' = \(value) is outside the plausible limits \(limits.lowerBound)-\(limits.upperBound)"
                    + Self.unitHint(name, value, limits)
            case let .inconsistent(text): return text
            }
        }

        /// What a value below its limits most likely is in another unit, when that reads as plausible.
        static func unitHint(_ name: String, _ value: Double, _ limits: ClosedRange<Double>) -> String {
            guard value > 0, value < limits.lowerBound else { return "" }
            let mmol = GlucoseValue.mgdLPerMmolL  // the one conversion (it was written as 18, 18.016 and 18.01559 here)
            switch name {
            case "insulinSensitivity" where value * mmol >= limits.lowerBound:
                // An ISF of 2.5 is almost surely mmol/L per U.
                return " (it looks like mmol/L per U: the file takes mg/dL per U, \(value) mmol/L is about \(Int((value * mmol).rounded())) mg/dL)"
            case "target" where limits.contains(value * mmol), "suspendThreshold" where limits.contains(value * mmol):
                // Hunt D: a clinic in mmol/L wrote "target": 6.1; only the ISF had the hint.
                return " (it looks like mmol/L: the file takes mg/dL, \(value) mmol/L is about \(Int((value * mmol).rounded())) mg/dL)"
            case "insulinDurationMinutes" where limits.contains(value * 60), "insulinPeakMinutes" where limits.contains(value * 60):
                // A pump shows the insulin's action in hours ("active insulin time 6 h").
                return " (it looks like hours: the file takes minutes, \(value) h is \(Int((value * 60).rounded())) minutes)"
            default: return ""
            }
        }
    }

    case noGlucose
    /// The newest reading is 15 minutes old or older at the moment of the suggestion.
    case staleGlucose(newest: Date, ageMinutes: Double)
    case futureGlucose(newest: Date)
    /// `count` glucose readings dated from `earliest` to `latest`, after the import's time, were
    /// skipped (`PatientLog.glucoseAhead`): the CGM's clock runs ahead, so the readings kept were
    /// taken earlier than their times say. Code `future_glucose`.
    case glucoseAheadOfImport(earliest: Date, latest: Date, count: Int)
    /// The series misses readings within the last 30 minutes.
    case recentGap(missingSteps: Int, windowMinutes: Int)
    /// The CGM has read one value, unchanged, up to the newest reading for two hours or more (a
    /// flat `SensorLimitRun`): a stuck sensor, not living glucose.
    /// `atCeiling`: every reading of the run at or above the sensor's ceiling (400 mg/dL, or `High`).
    case flatSensor(value: Double, minutes: Double, atCeiling: Bool = false)
    /// Two consecutive CGM readings `minutes` apart, the later at `time` within
    /// `DoseGuards.jumpWindow` before the moment, differ by `DoseGuards.jumpLimit` or more, faster
    /// than `DoseGuards.jumpRate` a minute: a calibration or a sensor fault, not living glucose
    /// (`DoseGuards.sensorJump`).
    case sensorJump(from: Double, to: Double, time: Date, minutes: Double)
    /// CGM readings of two sensors interleave within `DoseGuards.jumpWindow` before the moment:
    /// `count` pairs of consecutive readings closer together than one CGM reads and further apart
    /// than living glucose moves (`InterleavedSensors.find`), the newest `from` at `first` and `to`
    /// at `second`.
    case interleavedSensors(from: Double, to: Double, first: Date, second: Date, count: Int)
    /// The newest finger-stick within `DoseGuards.jumpWindow` before the moment, `meter` at
    /// `meterTime`, disagrees with every CGM reading near it, the nearest `cgm` at `cgmTime`
    /// (`DoseGuards.meterDisagreement`). `meterIsNewest`: the finger-stick is glucose now.
    case meterDisagrees(meter: Double, meterTime: Date, cgm: Double, cgmTime: Date, meterIsNewest: Bool)
    case settings([SettingProblem])
    /// Current glucose below the suspend threshold: no insulin; treat or watch for a low.
    case belowSuspend(glucose: Double, threshold: Double)
    /// A predicted value (with no added insulin) is below the suspend threshold.
    case predictedBelowSuspend(horizonMinutes: Int, predicted: Double, threshold: Double)
    /// The lower bound of a model's 80% prediction interval (with no added insulin) is below the
    /// suspend threshold: a low is possible, not only likely.
    case possibleLowBelowSuspend(horizonMinutes: Int, lower: Double, threshold: Double)
    case invalidCarbs(Double)
    /// The carbohydrates' time (`carbsTime`) is after the moment of the suggestion or more than
    /// `DoseGuards.carbsTimeReach` before it.
    case invalidCarbsTime(eaten: Date, at: Date)
    /// The settings (or models) belong to another patient than the data.
    case wrongPatient(expected: PatientID, found: PatientID, source: String)
    /// The data holds basal records (a pump's rates or long-acting injections) and no bolus at
    /// all: the boluses are in another file, and the insulin on board cannot be known.
    case noBolusRecords
    /// The data holds no insulin record at all (a CGM-only export) and no insulin on board was
    /// stated: the insulin on board is unknown, and read as none a dose would stack on it.
    case noInsulinRecords(durationMinutes: Double)
    /// A stated insulin on board that is negative, not a number, or above `DoseGuards.statedInsulinOnBoardLimit`.
    case invalidStatedInsulinOnBoard(Double)
    /// Insulin on board was stated for data that has insulin records: they give it, and two
    /// answers to one question cannot both be used.
    case statedInsulinOnBoardWithRecords
    /// The settings' basal schedule and the pump's programmed basal in the data give net insulin
    /// on board (U) that differ by more than `DoseGuards.basalMismatchEffectLimit` of glucose (mg/dL,
    /// the difference times the ISF): one of them is wrong, and which decides the dose.
    case basalScheduleMismatch(settings: Double, programme: Double, effect: Double)
    /// The source held an insulin record (`skipped`, the newest of `count`) dated within the
    /// insulin's action before the moment, which the import skipped (its amount not a number or
    /// out of range): insulin was most likely given, in an amount nobody knows
    /// (`DoseGuards.skippedInsulinRefusal`).
    case skippedInsulinRecord(SkippedInsulin, count: Int, durationMinutes: Double)
    /// Two boluses (or two meals) of the same amount a moment apart within the insulin's action
    /// before the moment: one event recorded twice, most likely (two exports merged: an app's meal
    /// and Loop's upload of it 20 s later), and read as two the dose counts it twice
    /// (`DoseGuards.twinRecordRefusal`).
    case twinRecords(TwinRecords)
    /// Carbohydrates are asked for, and the log already holds a meal in the `DoseAudit.mealWindow`
    /// before the moment with no bolus from that long before it: most likely the same meal, logged in
    /// an app before the dose was asked for, which the models would count beside the planned grams
    /// (`DoseGuards.loggedMealRefusal`).
    case mealAlreadyLogged(grams: Double, time: Date)
    /// The data holds no glucose, insulin or carbohydrate record from `from` to `to`, longer than `DoseGuards.recordsGapLimit`, within the insulin's action before the moment:
    /// the devices' uploads stopped, and insulin given then is unknown (`DoseGuards.recordsGapRefusal`).
    case recordsGap(from: Date, to: Date, durationMinutes: Double)
    /// `temporaryBasals` temporary basals act at the moment (the `latest` from then), and neither
    /// the settings nor the data give a basal schedule to count them against
    /// (`DoseGuards.unknownScheduleRefusal`).
    case basalScheduleUnknown(temporaryBasals: Int, latest: Date)
    /// The data holds insulin records, but none dated since `since`, the `DoseGuards.insulinRecordsLimit`
    /// before the moment, though meals are logged after the newest (`meal`, the newest of them):
    /// the pump's or pen's newest export is most likely missing, and the insulin on board read as
    /// none (`DoseGuards.insulinRecordsEndRefusal`).
    case insulinRecordsEnd(since: Date, meal: Date)

    public var code: String {
        switch self {
        case .noGlucose: return "no_glucose"
        case .staleGlucose: return "stale_glucose"
        case .futureGlucose, .glucoseAheadOfImport: return "future_glucose"
        case .recentGap: return "recent_gap"
        case .flatSensor: return "flat_sensor"
        case .sensorJump: return "sensor_jump"
        case .interleavedSensors: return "interleaved_sensors"
        case .meterDisagrees: return "meter_disagrees"
        case .settings: return "settings"
        case .belowSuspend: return "below_suspend"
        case .predictedBelowSuspend: return "predicted_below_suspend"
        case .possibleLowBelowSuspend: return "lower_bound_below_suspend"
        case .invalidCarbs: return "invalid_carbs"
        case .invalidCarbsTime: return "invalid_carbs_time"
        case .wrongPatient: return "wrong_patient"
        case .noBolusRecords: return "no_bolus_records"
        case .noInsulinRecords: return "no_insulin_records"
        case .invalidStatedInsulinOnBoard: return "invalid_stated_iob"
        case .statedInsulinOnBoardWithRecords: return "stated_iob_with_records"
        case .basalScheduleMismatch: return "basal_schedule_mismatch"
        case .skippedInsulinRecord: return "skipped_insulin_record"
        case .twinRecords: return "twin_records"
        case .mealAlreadyLogged: return "meal_already_logged"
        case .recordsGap: return "records_gap"
        case .basalScheduleUnknown: return "basal_schedule_unknown"
        case .insulinRecordsEnd: return "insulin_records_end"
        }
    }

    public var description: String { description(units: .mgdL) }

    /// The message with its glucose values in `units` and its times by `time` (ISO 8601 UTC by
    /// default; a report gives its own clock, so that a time reads as every other on the page).
    /// Settings problems quote the settings file, which is in mg/dL, and stay so.
    public func description(units: GlucoseUnit, time: ((Date) -> String)? = nil) -> String {
        let time = time ?? { $0.iso8601 }
        func g(_ mgdL: Double) -> String {
            units == .mgdL ? "\(mgdL.rounded()) mg/dL" : units.withUnit(mgdL)
        }
        // A value below a threshold that rounds to it ("70.0 mg/dL, below ... 70.0 mg/dL") is shown
        // with a decimal more, rounded down (`GlucoseUnit.format(_:apartFrom:)`).
        func below(_ mgdL: Double, _ threshold: Double) -> String {
            guard g(mgdL) == g(threshold) else { return g(mgdL) }
            return units.format(mgdL, apartFrom: threshold) + " " + units.rawValue
        }
        switch self {
        case .noGlucose: return "no glucose reading before the moment of the suggestion"
        case let .staleGlucose(newest, age):
            return "newest glucose reading (\(time(newest))) is \(Int(age)) minutes old; 15 minutes or older is too old to dose on"
        case let .futureGlucose(newest): return "newest glucose reading (\(time(newest))) is dated in the future"
        case let .glucoseAheadOfImport(earliest, latest, count):
            return "\(count) glucose reading(s) dated \(time(earliest))\(latest > earliest ? " to \(time(latest))" : ""), after the time "
                + "the data was read, were skipped: the CGM's clock runs ahead, so the newest reading kept was taken earlier "
                + "than its time says. Set the CGM's clock right (or dose by hand with a finger-stick)"
        case let .recentGap(missing, window):
            return "\(missing) glucose reading(s) missing in the last \(window) minutes: the recent trend is unknown"
        case let .flatSensor(value, minutes, true):
            return "the CGM has read \(g(value)), the top of its range (High), for \(Int(minutes)) minutes: glucose above "
                + "what it measures, or a failed sensor, and a correction on its number is a guess either way; check with a "
                + "finger-stick, and for ketones, and dose by hand"
        case let .flatSensor(value, minutes, _):
            return "the CGM has read \(g(value)) unchanged for \(Int(minutes)) minutes, which living glucose never does: "
                + "a stuck or failed sensor; check with a finger-stick"
        case let .sensorJump(from, to, jumpTime, minutes):
            return "the CGM's reading jumped from \(g(from)) to \(g(to)) in \(Int(minutes.rounded())) minutes at \(time(jumpTime)), faster "
                + "than living glucose changes: a calibration or a sensor fault, and the models read it as the trend; "
                + "check with a finger-stick (a finger-stick in the data settles it), or ask again an hour after the jump"
        case let .interleavedSensors(from, to, first, second, count):
            let seconds = Int(second.timeIntervalSince(first).rounded())
            return "CGM readings of \(g(from)) at \(time(first)) and \(g(to)) at \(time(second)), \(seconds / 60) min \(seconds % 60) s apart"
                + (count > 1 ? " (and \(Plural.of(count - 1, "more such pair")) in the hour before)" : "")
                + ": closer together than a CGM reads and further apart than living glucose moves. Two sensors' readings "
                + "interleave (a Dexcom and a Libre imported for one person?): glucose now and the trend are a mix of both. "
                + "Keep one sensor's data (import-data --forget the other's file, or leave it out of --data)"
        case let .meterDisagrees(meter, meterTime, cgm, cgmTime, meterIsNewest):
            let low = min(meter, cgm) < DoseGuards.lowGlucose
            return "a finger-stick of \(g(meter)) at \(time(meterTime)) disagrees with the CGM's \(g(cgm)) at \(time(cgmTime)) "
                + "(by \(g(abs(meter - cgm))); a meter and a CGM differ by up to \(g(DoseGuards.meterDisagreementLimit)), or "
                + "\(Int(DoseGuards.meterDisagreementShare * 100))% of the meter's reading, beyond the CGM's lag behind a "
                + "changing glucose): one of them is wrong, and the dose would rest on " + (meterIsNewest ? "the meter's reading" : "the CGM's")
                + (low ? " (if the \(meter < cgm ? "meter's" : "CGM's") \(g(min(meter, cgm))) is right, it is a low: treat it)" : "")
                + ". Wash and dry the hands and check again: a finger-stick that agrees with the CGM lets the dose go; or dose by hand"
                + (low ? "" : ", or ask again an hour after the finger-stick")
        case let .settings(problems): return "settings not usable: " + problems.map(\.description).joined(separator: "; ")
        case let .belowSuspend(glucose, t):
            return "glucose \(below(glucose, t)) is below the suspend threshold \(g(t)): no insulin; treat or watch for a low"
        case let .predictedBelowSuspend(h, p, t):
            return "glucose predicted at \(h) min is \(below(p, t)), below the suspend threshold \(g(t)): no insulin; watch for a low"
        case let .possibleLowBelowSuspend(h, lower, t):
            return "the 80% interval of the glucose predicted at \(h) min reaches down to \(below(lower, t)), below the suspend threshold \(g(t)): a low is possible; no insulin; watch for a low"
        case let .invalidCarbs(c): return "carbohydrates \(c) g: expected a number from 0 to 300"
        case let .invalidCarbsTime(eaten, at):
            return "carbohydrates eaten at \(time(eaten)): expected at or before the moment of the suggestion (\(time(at))) and at most \(Int(DoseGuards.carbsTimeReach / 60)) minutes before it"
        case let .wrongPatient(expected, found, source):
            return "the \(source) belong to patient \(found), not to \(expected) whose data this is"
        case .noBolusRecords:
            return "the data has basal records but no bolus at all: are the boluses in another file? "
                + "Without them the insulin on board is unknown"
        case let .noInsulinRecords(duration):
            return "the data has no insulin records (boluses, basal or injections): the insulin on board is unknown, "
                + "and read as none a dose would stack on it. Are they in another file? Otherwise state the units "
                + "on board (0 when no insulin was taken in the last \(Int(duration / 60)) h)"
        case let .invalidStatedInsulinOnBoard(u):
            return "stated insulin on board \(u) U: expected a number of units from 0 to \(Int(DoseGuards.statedInsulinOnBoardLimit))"
        case .statedInsulinOnBoardWithRecords:
            return "insulin on board was stated, but the data has insulin records, from which it is computed: "
                + "state it only for data without them"
        case let .basalScheduleMismatch(settings, programme, effect):
            return String(format: "the settings' basal schedule and the pump's programmed basal in the data disagree: net insulin "
                + "on board is %.2f U by the settings' schedule and %.2f U by the pump's programme, a difference of %@ in glucose "
                + "(more than %@, and more than %ld%% of the insulin the programme's own basal has on board): one of them is "
                + "wrong, and which decides the dose. Bring the settings file up to date with "
                + "the pump ('glucomodel-predict settings' shows where they differ)",
                settings, programme, g(effect), g(DoseGuards.basalMismatchEffectLimit), Int(DoseGuards.basalMismatchShare * 100))
        case let .basalScheduleUnknown(count, latest):
            return "\(Plural.of(count, "temporary basal")) within the insulin's action before now (the latest from \(time(latest))), "
                + "but no basal schedule to count \(count == 1 ? "it" : "them") against: the settings give no basalSchedule and the "
                + "data no programmed basal, so the insulin given above or below the schedule is unknown (a 2 U/h temporary basal "
                + "is 1 U/h more than a schedule of 1 U/h). Add the pump's basal schedule to the settings file (basalSchedule; "
                + "a Nightscout export's profile is not read)"
        case let .recordsGap(from, to, duration):
            let hours = to.timeIntervalSince(from) / 3600
            return String(format: "the data holds no glucose, insulin or carbohydrate record from %@ to %@ (%.1f h), "
                          + "within the insulin's action (%.0f h) before now: the devices' uploads stopped, and insulin given then "
                          + "is unknown, so the insulin on board is too. Add the missing records (the pump's or pen's export), or "
                          + "dose by hand until %@", time(from), time(to), hours, duration / 60,
                          time(to.addingTimeInterval(duration * 60)))
        case let .insulinRecordsEnd(since, meal):
            let hours = Int(DoseGuards.insulinRecordsLimit / 3600)
            return "the data has insulin records but none since \(time(since)) (\(hours) h), though meals are logged since "
                + "at glucose at or above the target (the newest at \(time(meal))): the newest insulin records are most likely missing (the pump's or pen's "
                + "newest export not added), and read as none a dose would stack on what was given for those meals. Add them, "
                + "or dose by hand until they are"
        case let .mealAlreadyLogged(grams, eaten):
            return String(format: "a meal of %g g is logged at %@ with no bolus for it: if it is the meal asked for, the dose would "
                          + "count it twice (the models read the log's meal beside the grams asked for). Ask for it with its time "
                          + "(--carbs-time %@, the grams it holds): the log's record then counts once; if it is another meal, "
                          + "ask for both with the time of the first", grams, time(eaten), time(eaten))
        case let .twinRecords(t):
            let what = t.kind == .bolus ? "boluses" : "meals"
            return "two \(what) of \(t.amount) at \(time(t.first)) and \(time(t.second)), \(Int(t.second.timeIntervalSince(t.first).rounded())) s "
                + "apart: one \(t.kind == .bolus ? "dose" : "meal") recorded twice (two exports merged, a device's record and an app's?). "
                + "Read as two, the dose would count it twice. Import one source of it, or remove the copy from the file"
        case let .skippedInsulinRecord(skipped, count, duration):
            let what = "a " + skipped.noun.one
            func value(_ amount: Double) -> String { SettingsEstimate.number(amount, 3) + (skipped.kind == .bolus ? " U" : " U/h") }
            let others = count > 1 ? " (and \(Plural.of(count - 1, "other")) in that time)" : ""
            let hours = Plural.of(Int((duration / 60).rounded(.up)), "hour")
            // A store keeps what it stored: importing the corrected file again adds nothing at that
            // instant, and the skipped record stays (review BT, stop 63).
            let inStore = " (in a store: import-data --forget the file as it was imported, then import the corrected one)"
            if let amount = skipped.conflictingAmount {
                // A pump runs one temporary basal at a time: two at one instant are one written twice,
                // and which end is right is in the pump's history (two a second apart would replace one).
                if skipped.kind == .temporaryBasal {
                    let holder = skipped.keptFrom.map { "\($0) holds" } ?? "the file holds"
                    return "\(what) of \(value(amount)) at \(time(skipped.time)) (\(skipped.location)) is not in the log\(others): "
                        + "\(holder) another temporary basal at the same instant, of another rate or another end, and that one was kept. "
                        + "A pump runs one at a time, and which was given (its rate and end) is unknown: within the insulin's \(hours) "
                        + "of action after its end the insulin on board is unknown, and a dose could stack on it. Keep the row the "
                        + "pump's history gives and remove the other" + (skipped.keptFrom == nil ? ", and import the file again" + inStore
                            : " (import-data --forget the wrong file, or leave it out of --data)")
                }
                let value = value(amount)
                if let other = skipped.keptFrom {
                    return "\(what) of \(value) at \(time(skipped.time)) (\(skipped.location)) is not in the log\(others): \(other) "
                        + "holds another \(skipped.noun.one) at the same instant with another amount, or the same given another way (a "
                        + "type, an end), and that one was kept. A file "
                        + "corrected since, or two given together? Within the insulin's \(hours) of action the insulin on board is "
                        + "unknown, and a dose could stack on it. Keep the right file only (import-data --forget the other, or leave "
                        + "it out of --data), or write two given together a second apart"
                }
                return "\(what) of \(value) at \(time(skipped.time)) (\(skipped.location)) was dropped at import\(others): the file "
                    + "holds another \(skipped.noun.one) at the same instant with another amount, or the same given another way (a "
                    + "type, an end), and the first was kept. Two given "
                    + "together (a meal bolus and a correction), or one written twice with a correction? Within the insulin's \(hours) "
                    + "of action the insulin on board is unknown, and a dose could stack on it. Write two given together a second "
                    + "apart, or remove the wrong row, and import the file again" + inStore
            }
            if skipped.datedAfterImport {
                return "\(what) dated \(time(skipped.time)) (\(skipped.location)), after the import's time, was skipped at import\(others): "
                    + "the device's clock runs ahead (a pump not set back at the end of summer time?), so insulin given in the "
                    + "last \(hours) may be missing and the insulin on board is unknown. Set the device's clock right, or correct "
                    + "the times in the file, and import it again"
            }
            if let unread = skipped.unreadTime {
                let bounds = unread.betweenRows ? "between \(time(skipped.time)) and \(time(unread.latest)), by the rows around it"
                    : (skipped.time > ImportLimits.earliest ? "from \(time(skipped.time)) " : "") + "up to \(time(unread.latest))"
                let until = time(unread.latest.addingTimeInterval(duration * 60))
                let unreadable = skipped.rowUnread
                    ? "\(what) may be in a row that could not be split into its fields (\(skipped.location): an unclosed quote, or a "
                        + "comma too many, as in a decimal comma); the row was skipped at import\(others): it may be from any "
                    : "\(what) whose time could not be read (\(skipped.location)) was skipped at import\(others): it may be from any "
                return unreadable
                    + "time \(bounds), so within the insulin's \(hours) of action: the insulin on board is unknown, and a dose on the "
                    + "rest could stack on it. Correct \(skipped.rowUnread ? "the row" : "its time") in the file and import it again"
                    + (unread.betweenRows ? "" : " (in a store, the skipped row stays on record: doses from it are refused until \(until))")
            }
            return "\(what) at \(time(skipped.time)) (\(skipped.location)) was skipped at import (a value unreadable or "
                + "implausible, or the file's last row cut short: the import's warning names it)\(others), within the insulin's \(hours) of action: "
                + "the insulin on board is unknown, and a dose on the rest could stack on it. Correct the record in the file "
                + "and import it again" + (skipped.besideKept == true ? inStore : "")
        }
    }
}

/// Two records of one kind and amount a moment apart (`DoseRefusal.twinRecords`).
public struct TwinRecords: Hashable, Sendable, Codable {
    /// `.bolus` or `.carbs`.
    public var kind: RecordKind
    public var first: Date
    public var second: Date
    /// The amount as written in the message (`4.35 U`, `47 g`).
    public var amount: String

    /// The latest record before `i` (of records at `times`, ascending) at most `within` before it
    /// that `matches`, if any: the record `i` repeats (`DoseGuards.twinRecordRefusal`,
    /// `SettingsEstimator.twinBoluses`).
    static func latest(before i: Int, _ times: [Date], within: TimeInterval, where matches: (Int) -> Bool) -> Int? {
        var j = i - 1
        while j >= 0, times[i].timeIntervalSince(times[j]) <= within {
            if matches(j) { return j }
            j -= 1
        }
        return nil
    }
}
