import Foundation

/// The data guards every suggestion passes (dosing.md): fresh glucose, not dated in the
/// future, no gap in the last 30 minutes, plausible carbohydrates.
public enum DoseGuards {
    /// A newest reading this old or older at the moment of the suggestion is stale.
    public static let maximumGlucoseAge: TimeInterval = 15 * 60
    /// The window that must hold a reading in every 5-minute step.
    public static let recentWindow: TimeInterval = 30 * 60
    /// The CGM step the recent window is checked against, unless the readings show a CGM that
    /// records every 15 minutes (`recordingInterval`).
    public static let readingInterval: TimeInterval = 5 * 60
    /// The other recording interval a CGM has: a Libre's history (LibreView exports) holds a
    /// reading every 15 minutes.
    public static let slowReadingInterval: TimeInterval = 15 * 60
    /// How far back the readings' spacing is measured.
    static let cadenceWindow: TimeInterval = 6 * 3600
    /// Planned carbohydrates accepted (g).
    public static let carbLimits: ClosedRange<Double> = 0...300

    /// How long before the suggestion carbohydrates may have been eaten and still be asked about
    /// (`carbsTime`): a meal eaten at a low is asked about again within the hour.
    public static let carbsTimeReach: TimeInterval = 3 * 3600

    /// The refusal for a carbohydrates' time after `at` or more than `carbsTimeReach` before it, if any.
    public static func carbsTimeRefusal(_ eaten: Date?, at: Date) -> DoseRefusal? {
        guard let eaten else { return nil }
        return eaten <= at && at.timeIntervalSince(eaten) <= carbsTimeReach ? nil : .invalidCarbsTime(eaten: eaten, at: at)
    }

    /// The most insulin on board a person may state (U) for data without insulin records.
    public static let statedInsulinOnBoardLimit: Double = 100

    /// The refusal for what the log's insulin records leave unknown, if any (`PatientLog.has`,
    /// which a window answers from the records before it too):
    /// - basal records (a pump's rates, long-acting injections) and no bolus at all: an export
    ///   whose boluses are in another file (`noBolusRecords`). Read as none, the missing boluses
    ///   made the insulin on board 0: the bundled adolescent_003 without its boluses got 3 U by
    ///   the formula and 5.05 U by the model for 50 g where its whole data gave 0 and 2.6.
    /// - no insulin record at all (a CGM-only export), unless the person states the insulin on
    ///   board (`noInsulinRecords`): every person with type 1 diabetes takes insulin, so a log
    ///   without any lacks the records, not the insulin, and a dose on "nothing on board" stacks.
    /// - a stated insulin on board beside insulin records (`statedInsulinOnBoardWithRecords`), or
    ///   one that is not a number of units from 0 to `statedInsulinOnBoardLimit`.
    public static func insulinRecordsRefusal(_ log: PatientLog, statedInsulinOnBoard stated: Double?,
                                             durationMinutes: Double) -> DoseRefusal? {
        let records = log.has(.insulin)
        if let stated {
            if !(0...statedInsulinOnBoardLimit).contains(stated) { return .invalidStatedInsulinOnBoard(stated) }
            return records ? .statedInsulinOnBoardWithRecords : nil
        }
        if !records { return .noInsulinRecords(durationMinutes: durationMinutes) }
        return log.has(.basal) && !log.has(.bolus) ? .noBolusRecords : nil
    }

    /// The longest the data may go without any insulin record (bolus, basal rate, temporary basal,
    /// injection) before a dose while it holds some before: a day. Every person with type 1
    /// diabetes takes insulin every day; a pump that records its basal only when the programme
    /// changes shows none overnight, so less than a day cannot tell missing records from none.
    public static let insulinRecordsLimit: TimeInterval = 24 * 3600

    /// The refusal for data with insulin records (`PatientLog.has(.insulin)`, counting those
    /// before the window read) none of which is dated in the `insulinRecordsLimit` before `at`
    /// (a temporary basal, or a basal rate with an end, by its end), while meals are logged after
    /// the newest (`meal`: the newest of them): the CGM's export goes on where the pump's or pen's stops (two
    /// sources, the newest of one not added), and read as none the insulin on board stacks a dose
    /// on what was given. Hunt AE (stop 56): the pump's records ending 50 h before, the CGM and meals
    /// going on, the dose was 3.60 U where the whole log gave 1.05 U. Nil without any insulin
    /// record (`noInsulinRecords`). A stated insulin on board does not lift it: beside the records'
    /// basal (delivered minus scheduled, read as none delivered) and models fitted with insulin
    /// (reading none for a day), a stated 0 U gave 1.65 U more than the formula with 0 on board
    /// (review of stop 56); the missing export settles it.
    ///
    /// Only meals logged with glucose at or above `target` count (the newest reading in the
    /// `maximumGlucoseAge` before the meal; every meal without `target`): at those every rule doses,
    /// while a meal at a low gets none, by the toolkit's own advice too. Counting those, a day of
    /// lows (a simulated child held at a low for days) refused every later meal as records
    /// missing, and nothing recorded a bolus to end it (stop 56's trial).
    public static func insulinRecordsEndRefusal(_ log: PatientLog, at: Date, target: Double? = nil) -> DoseRefusal? {
        guard log.has(.insulin) else { return nil }
        let since = at.addingTimeInterval(-insulinRecordsLimit)
        let newest = [log.boluses.last { $0.time <= at }?.time,
                      log.basalRates.filter { $0.start <= at }.map { max($0.start, min(at, $0.end ?? $0.start)) }.max(),
                      log.temporaryBasals.filter { $0.start <= at }.map { min(at, $0.end) }.max(),
                      log.basalInjections.last { $0.time <= at }?.time].compactMap { $0 }.max()
        if let newest, newest >= since { return nil }
        // Meals logged since, and no insulin for them: a day without a bolus and without meals is a
        // fast or a sick day on the pump's running basal (hunt AF, stop 56: refused, where the dose
        // with 0 on board was right).
        func dosed(_ meal: CarbIntake) -> Bool {
            guard let target else { return true }
            let first = PatientLog.firstIndex(log.glucose, atOrAfter: meal.time.addingTimeInterval(-maximumGlucoseAge))
            return log.glucose[first...].prefix { $0.time <= meal.time }.last.map { $0.value.mgdL >= target } ?? false
        }
        guard let meal = log.carbs.last(where: { $0.time > (newest ?? .distantPast) && $0.time < at && $0.amount.grams > 0 && dosed($0) })
        else { return nil }
        return .insulinRecordsEnd(since: since, meal: meal.time)
    }

    /// The longest stretch without any record that the data may hold within the insulin's action
    /// before a dose: a sensor change passes, the new sensor's 2-hour warm-up (a Dexcom G6's, a
    /// Guardian's) and up to half an hour from the old one's last reading to its start. With 2
    /// hours every sensor change was refused for the insulin's action after it, its gap 2 h 05 or
    /// more (review BY, stop 64; a watch's heart rate had hidden it, hunt BW).
    public static let recordsGapLimit: TimeInterval = 2.5 * 3600

    /// The refusal for a stretch longer than `recordsGapLimit` between two glucose readings in
    /// which the data holds no insulin or carbohydrate record either (a bolus, basal rate, temporary
    /// basal, injection or meal), ending within the insulin's action (`durationMinutes`) before
    /// `at`, if any (the longest). A phone or uploader that was off loses the glucose and the
    /// insulin alike: the glucose's absence shows it, and the insulin on board read from the records
    /// around it is missing what was given then (hunt D: 0 U on board where 3.2 U were, 3.85 U by
    /// the formula, and in simulation 126 minutes below 54 mg/dL). A gap in the glucose alone, with
    /// insulin or carbohydrates recorded in it, is the sensor's, judged by the glucose guards; so is
    /// the time before the first reading. Heart rate, exercise and weight do not show it: a watch or
    /// a scale records them on its own whatever the pump, pen or phone uploaded (hunt BW, stop 64: a
    /// watch's heart rate every 5 minutes through a 3-hour gap lifted the refusal, and the formula's
    /// 2.15 U went ahead on insulin on board read as none).
    public static func recordsGapRefusal(_ log: PatientLog, at: Date, durationMinutes: Double) -> DoseRefusal? {
        let start = at.addingTimeInterval(-durationMinutes * 60)
        let glucose = log.glucose
        let first = glucose.lastIndex { $0.time <= start } ?? glucose.startIndex
        let readings = glucose[first...].lazy.map(\.time).filter { $0 <= at }
        let gaps = zip(readings, readings.dropFirst()).filter { $1 > start && $1.timeIntervalSince($0) > recordsGapLimit }
        guard !gaps.isEmpty else { return nil }
        func anyWithin<R: TimedRecord>(_ records: [R], _ a: Date, _ b: Date) -> Bool { records.contains { $0.time > a && $0.time < b } }
        let silent = gaps.filter { a, b in
            !(anyWithin(log.boluses, a, b) || anyWithin(log.basalRates, a, b) || anyWithin(log.temporaryBasals, a, b)
                || anyWithin(log.basalInjections, a, b) || anyWithin(log.carbs, a, b))
        }
        guard let longest = silent.max(by: { $0.1.timeIntervalSince($0.0) < $1.1.timeIntervalSince($1.0) }) else { return nil }
        return .recordsGap(from: longest.0, to: longest.1, durationMinutes: durationMinutes)
    }

    /// The refusal for temporary basals acting at `at` (started by it, ending within the insulin's
    /// action before it) with no basal schedule to count them against: no `schedule` in the
    /// settings and no programmed basal in the data by `at` (`NetInsulin.ScheduleSource.none`), if
    /// any. How much a temp gave above or below the schedule is then unknown: a 2 U/h temp is
    /// +1 U/h over a 1 U/h schedule and a suspension -1 U/h; counted as nothing, the high temps a
    /// loop sets while glucose rises were missing from the insulin on board (hunt BX, stop 64:
    /// 2 U/h for an hour, 1.58 U on board by the spec had it no schedule, read as 0 and the dose
    /// 3.65 U instead of 2.05), and counted in full every dose is short by the whole basal.
    public static func unknownScheduleRefusal(_ log: PatientLog, schedule: BasalSchedule?, at: Date,
                                              durationMinutes: Double) -> DoseRefusal? {
        guard schedule == nil, !log.basalRates.contains(where: { $0.start <= at }) else { return nil }
        let start = at.addingTimeInterval(-durationMinutes * 60)
        let acting = log.temporaryBasals.filter { $0.start <= at && $0.end > start }
        guard let latest = acting.max(by: { $0.start < $1.start }) else { return nil }
        return .basalScheduleUnknown(temporaryBasals: acting.count, latest: latest.start)
    }

    /// The refusal for insulin records the import skipped (`PatientLog.skippedInsulin`) that bear
    /// on the insulin on board at `at`, if any: a bolus or temporary basal dated within the
    /// insulin's action (`durationMinutes`) before `at`, or a basal rate dated at or before `at`
    /// whose successor (the next basal rate kept) began after the action's start (with none, one of
    /// the last `DoseAdvisor.historySpan`), so that the rate in force then is unknown. A record
    /// skipped for a time after the import's (`SkippedInsulin.datedAfterImport`: a device clock
    /// running ahead) and dated after `at` counts when within the action's length after it: the
    /// dose written an hour ahead was given minutes ago. One whose time could not be read
    /// (`SkippedInsulin.unreadTime`) counts as of any time in its bounds: from its earliest at or
    /// before `at` to its latest. One the log holds after all (`PatientLog.holdsRecord(like:)`: a
    /// corrected file imported again) does not count. Basal injections do not: net insulin on
    /// board leaves them out (`NetInsulin`), as the schedule of a person on injections.
    public static func skippedInsulinRefusal(_ log: PatientLog, at: Date, durationMinutes: Double) -> DoseRefusal? {
        let start = at.addingTimeInterval(-durationMinutes * 60)
        let bearing = log.skippedInsulin.filter { s in
            guard !log.holdsRecord(like: s), s.kind != .basalInjection else { return false }
            // Dated after the import, by a clock running ahead: given up to the action's length before its written time.
            if s.datedAfterImport, s.time > at { return s.time <= at.addingTimeInterval(durationMinutes * 60) }
            // A time not read: the latest it can be, if `at` or before, else any time up to `at`.
            guard s.time <= at else { return false }
            let latest = min(s.latest, at)
            switch s.kind {
            // Until its insulin's action ends: `end` for a temp or an extended bolus (review BT).
            case .bolus, .temporaryBasal: return min(s.deliveredUntil, at) >= start
            case .basal:
                let next = log.basalRates.first { $0.start > latest }
                // With no rate kept after it, a day back at most: the dose reads a day of history.
                return next.map { $0.start > start } ?? (latest >= at.addingTimeInterval(-DoseAdvisor.historySpan))
            default: return false
            }
        }
        guard let newest = bearing.max(by: { $0.deliveredUntil < $1.deliveredUntil }) else { return nil }
        return .skippedInsulinRecord(newest, count: bearing.count, durationMinutes: durationMinutes)
    }

    /// The refusal for planned carbohydrates (`carbs` > 0, no `carbsTime`) beside a meal the log
    /// already holds within `DoseAudit.mealWindow` before `at` (or at it) with no bolus from
    /// `mealWindow` before that meal up to `at`, if any: a meal logged in an app before the dose was
    /// asked for. The models read it, and the planned grams too: asked at a logged 72 g meal for
    /// 50 g, a model gave 20.3 U where the formula, which reads the planned grams alone, gave 6.15.
    /// With `carbsTime` the meal's time is given, and the log's record at it counts once.
    public static func loggedMealRefusal(_ log: PatientLog, carbs: Double, carbsTime: Date?, at: Date) -> DoseRefusal? {
        guard carbs > 0, carbsTime == nil else { return nil }
        let window = DoseAudit.mealWindow
        guard let meal = log.carbs.last(where: { $0.time <= at && at.timeIntervalSince($0.time) <= window && $0.amount.grams > 0 })
        else { return nil }
        let start = meal.time.addingTimeInterval(-window)
        guard !log.boluses.contains(where: { $0.time >= start && $0.time <= at }) else { return nil }
        return .mealAlreadyLogged(grams: meal.amount.grams, time: meal.time)
    }

    /// How far apart two records of one kind and amount may be and still be one event recorded
    /// twice (`twinRecordRefusal`): sources' clocks differ by seconds (an app's meal and Loop's
    /// upload of it 20 s later); automatic boluses come 5 minutes apart, and are not twins.
    public static let twinRecordWindow: TimeInterval = 120

    /// The refusal for a bolus or a meal recorded twice that bears on the dose at `at`, if any: two
    /// boluses of the same dose (within 0.005 U), or two meals of the same grams (within 0.5 g),
    /// at most `twinRecordWindow` apart (and not at one instant: the merge keeps one of those,
    /// `PatientLog.firstAtEachInstant`), the later within the insulin's action before `at`. Read
    /// as two, the same meal of two exports made a model's dose 20.25 U where one gave 8.15.
    public static func twinRecordRefusal(_ log: PatientLog, at: Date, durationMinutes: Double) -> DoseRefusal? {
        twinRecordRefusal(log, from: at.addingTimeInterval(-durationMinutes * 60), through: at)
    }

    /// `twinRecordRefusal` for a pair whose later record is dated from `start` through `end`.
    static func twinRecordRefusal(_ log: PatientLog, from start: Date, through end: Date) -> DoseRefusal? {
        func twin(_ times: [Date], _ amounts: [Double], tolerance: Double) -> (Date, Date, Double)? {
            let range = (times.firstIndex { $0 >= start } ?? times.endIndex)..<(times.firstIndex { $0 > end } ?? times.endIndex)
            for i in range {
                if let j = TwinRecords.latest(before: i, times, within: twinRecordWindow, where: {
                    times[$0] < times[i] && abs(amounts[$0] - amounts[i]) <= tolerance
                }) { return (times[j], times[i], amounts[i]) }
            }
            return nil
        }
        if let (a, b, u) = twin(log.boluses.map(\.time), log.boluses.map(\.dose.units), tolerance: 0.005) {
            return .twinRecords(TwinRecords(kind: .bolus, first: a, second: b, amount: String(format: "%g U", u)))
        }
        if let (a, b, g) = twin(log.carbs.map(\.time), log.carbs.map(\.amount.grams), tolerance: 0.5) {
            return .twinRecords(TwinRecords(kind: .carbs, first: a, second: b, amount: String(format: "%g g", g)))
        }
        return nil
    }

    /// The largest effect on glucose (mg/dL, `ISF x` the difference in net insulin on board) that
    /// the settings' basal schedule and the pump's programmed basal in the data may disagree by:
    /// the distance from a 110 mg/dL target to a 70 mg/dL low. A file out of date with the pump by
    /// 0.1 U/h stays within it (about 0.3 U, 14 mg/dL at an ISF of 50); a rate typed as 50 U/h for
    /// 0.5 gave -101.86 U on board and the 10 U maximum bolus for 40 g at 91 mg/dL.
    public static let basalMismatchEffectLimit: Double = 40
    /// A schedule at most this far from the programme (relative, in the insulin on board each
    /// gives) is not refused, whatever the effect: a step the settings check suggests (at most 20%,
    /// `dose --settings-from-data`) moves the basal that way on purpose, before the pump is set.
    public static let basalMismatchShare: Double = 0.25

    /// The refusal for net insulin on board that depends on which basal schedule is right (the
    /// settings', `settingsIOB`, or the pump's programme in the data, `programmeIOB`), if any:
    /// when they differ by more than `basalMismatchEffectLimit` of glucose and by more than
    /// `basalMismatchShare` of `programmeOnBoard`, the programme's own insulin on board (its
    /// delivery weighted as the net insulin is).
    public static func basalScheduleRefusal(settingsIOB: Double, programmeIOB: Double, programmeOnBoard: Double,
                                            insulinSensitivity: Double) -> DoseRefusal? {
        let difference = abs(settingsIOB - programmeIOB), effect = difference * insulinSensitivity
        guard effect > basalMismatchEffectLimit, difference > basalMismatchShare * programmeOnBoard else { return nil }
        return .basalScheduleMismatch(settings: settingsIOB, programme: programmeIOB, effect: effect)
    }

    /// How far apart the first and last glucose readings dated after the import's time must be for a
    /// clock running ahead (`glucoseAheadRefusal`): a CGM's reading interval. One reading a minute or
    /// two ahead is a clock drifting, not a clock an hour out.
    public static let clockDriftTolerance: TimeInterval = 5 * 60

    /// The refusal for glucose readings the import skipped as dated after its time
    /// (`PatientLog.glucoseAhead`: a CGM whose clock runs ahead) that bear on `at`: those dated after
    /// `at` and within `window` after it (the insulin's action, as for insulin records so
    /// skipped). The readings kept are then older than their times say, and the newest looks fresh.
    /// A replay further back (`--at` a day before) is not refused, nor readings dated ahead by less
    /// than `clockDriftTolerance` from first to last (a clock a minute or two fast, or an export
    /// made as a reading came in: the reading before it is at most minutes older, and dosed on).
    public static func glucoseAheadRefusal(_ log: PatientLog, at: Date, window: TimeInterval) -> DoseRefusal? {
        guard let near = log.glucoseAhead?.times(after: at, through: at.addingTimeInterval(window)),
              let first = near.first, let last = near.last, last.timeIntervalSince(first) >= clockDriftTolerance else { return nil }
        return .glucoseAheadOfImport(earliest: first, latest: last, count: near.count)
    }

    /// When a refusal for the CGM's readings alone (`recent_gap`, `stale_glucose`, `sensor_jump`,
    /// `meter_disagrees`) may be lifted, if the CGM reads on: when the last reading missing from the
    /// recent window (`recentWindow`) has left it, and a jump or a finger-stick that disagreed with
    /// the CGM its window (`jumpWindow`); with the newest reading
    /// stale, a window after `at` (the CGM reading again now). Nil with any other refusal. Before, such a refusal said nothing of what to do, and a meal asked
    /// for within 30 minutes of a dropout went uncovered (hunt AB, stop 55: 16 of 40 meals of two
    /// virtual patients with dropouts of 20-120 minutes; asking again recovered most of it).
    public static func askAgain(after refusals: [DoseRefusal], readings: [GlucoseReading], at: Date) -> Date? {
        var stale = false
        for r in refusals {
            switch r {
            case .staleGlucose: stale = true
            case .recentGap, .sensorJump, .meterDisagrees: break
            default: return nil
            }
        }
        guard !refusals.isEmpty else { return nil }
        let times = readings.map(\.time).filter { $0 <= at }
        let gapClears = stale ? at.addingTimeInterval(recentWindow)
            : missingInstants(times, at: at, step: recordingInterval(times, at: at)).last?.addingTimeInterval(recentWindow)
        let windowsLeave = refusals.compactMap { r -> Date? in
            switch r {
            case let .sensorJump(_, _, time, _): return time.addingTimeInterval(jumpWindow)
            // A low possible by either reading: treat it and check again in 15 minutes, as for a meal at a low.
            case let .meterDisagrees(meter, time, cgm, _, _):
                return min(meter, cgm) < lowGlucose ? at.addingTimeInterval(Double(DoseAdvisor.recheckMinutes) * 60)
                    : time.addingTimeInterval(jumpWindow)
            default: return nil
            }
        }
        return ([gapClears] + windowsLeave).compactMap { $0 }.max()
    }

    /// The refusal for planned carbohydrates outside `carbLimits` (or not a number), if any.
    public static func carbRefusal(_ grams: Double) -> DoseRefusal? {
        carbLimits.contains(grams) ? nil : .invalidCarbs(grams)
    }

    /// Checks the glucose readings (sorted by time) at the moment `at`.
    ///
    /// - `futureGlucose` when a reading is dated after `at` (a clock problem: `at` is "now");
    /// - `noGlucose` when no reading is at or before `at`;
    /// - `staleGlucose` when the newest reading at or before `at` is 15 minutes old or older;
    /// - `recentGap` when steps of the CGM's recording interval (`recordingInterval`: 5 minutes,
    ///   or 15 for a CGM that records every 15) in `(at - 30 min, at]` went without a reading.
    ///   Starting from the last reading before the window (or the window's start), a reading is
    ///   expected every step; an expected instant `e` is missing when the next reading (or `at`,
    ///   after the newest one) comes more than half a step after it (`e <= next - step / 2`). Only
    ///   instants inside the window count. Readings exactly a step apart miss nothing, and a
    ///   newest reading a step before `at` is not late.
    ///
    /// - Returns: the newest reading at or before `at`, and the refusals found (possibly several).
    public static func glucoseRefusals(_ readings: [GlucoseReading], at: Date) -> (newest: GlucoseReading?, refusals: [DoseRefusal]) {
        var refusals: [DoseRefusal] = []
        if let future = readings.last(where: { $0.time > at }) {
            refusals.append(.futureGlucose(newest: future.time))
        }
        let past = readings.filter { $0.time <= at }
        guard let newest = past.last else { return (nil, refusals + [.noGlucose]) }
        let age = at.timeIntervalSince(newest.time)
        if age >= maximumGlucoseAge { refusals.append(.staleGlucose(newest: newest.time, ageMinutes: age / 60)) }
        let times = past.map(\.time)
        let missing = missingSteps(times, at: at, step: recordingInterval(times, at: at))
        if missing > 0 { refusals.append(.recentGap(missingSteps: missing, windowMinutes: Int(recentWindow / 60))) }
        if let flat = flatRun(past, newest: newest) {
            refusals.append(.flatSensor(value: flat.value, minutes: flat.duration / 60, atCeiling: flat.kind == .ceiling))
        }
        if let jump = sensorJump(past, at: at) { refusals.append(jump) }
        if let interleaved = interleavedSensors(past, at: at) { refusals.append(interleaved) }
        if let meter = meterDisagreement(past, at: at) { refusals.append(meter) }
        return (newest, refusals)
    }

    /// The flat run (`SensorLimitDetector`: one value for two hours or more) that the newest CGM
    /// reading ends, if any, or its run at the ceiling (`ceilingRun`). The last hours are searched,
    /// and all of `past` when the run found begins with them (its whole length for the message: a
    /// week's stuck sensor read "255 minutes").
    static func flatRun(_ past: [GlucoseReading], newest: GlucoseReading) -> SensorLimitRun? {
        guard newest.source == .cgm else { return nil }
        if let high = ceilingRun(past, newest: newest) { return high }
        let detector = SensorLimitDetector()
        let since = newest.time.addingTimeInterval(-2 * detector.minimumFlatDuration - detector.maximumGap)
        let recent = past.filter { $0.time >= since }
        func run(_ readings: [GlucoseReading]) -> SensorLimitRun? {
            detector.runs(in: readings).last { $0.kind == .flat && $0.end == newest.time }
        }
        guard let found = run(recent) else { return nil }
        return found.start == recent.first?.time && recent.count < past.count ? run(past) ?? found : found
    }

    /// The CGM's readings at its ceiling for two hours or more up to the newest: each exported as
    /// above its range (`High`), or the newest's value (within 0.5 mg/dL) at 399.5 mg/dL or more
    /// (400, or 22.2 mmol/L), back to the last reading that is not, across dropouts of up to an hour
    /// (a gap shows no reading below it). Hunt AP: 4.5 hours at 400 mg/dL got a 7 U correction; a reading there is
    /// "400 or above", and a sensor failed there reads it too. The review of stop 59: a 20-minute
    /// dropout split the run and the dose went ahead; a Libre's readings of 420-479, which it
    /// measures (to 500), are not a ceiling. A run at the floor gets no insulin anyway.
    static func ceilingRun(_ past: [GlucoseReading], newest: GlucoseReading) -> SensorLimitRun? {
        func high(_ r: GlucoseReading) -> Bool {
            r.censoring == .aboveRange || r.value.mgdL >= ceilingReading && abs(r.value.mgdL - newest.value.mgdL) <= 0.5
        }
        guard high(newest) else { return nil }
        var start = newest.time, readings = 0
        for r in past.reversed() where r.source == .cgm && r.time <= newest.time {
            // A dropout of more than an hour ends it (the review of stop 59: two days without a CGM,
            // then 35 minutes at 400, read "for 2915 minutes").
            guard high(r), start.timeIntervalSince(r.time) <= ceilingDropout else { break }
            start = r.time
            readings += 1
        }
        guard newest.time.timeIntervalSince(start) >= SensorLimitDetector().minimumFlatDuration else { return nil }
        return SensorLimitRun(kind: .ceiling, start: start, end: newest.time, readings: readings, value: newest.value.mgdL)
    }

    /// The longest dropout a run at the ceiling spans.
    static let ceilingDropout: TimeInterval = 3600

    /// A CGM reading at or above this (mg/dL) may be its ceiling: 400, or 22.2 mmol/L (399.96).
    static let ceilingReading = SensorLimitDetector().ceiling - 0.5

    /// How much two consecutive CGM readings may differ, and how fast (mg/dL a minute), before
    /// they are a jump (`sensorJump`); within how long before the moment one counts. Living
    /// glucose changes at most 4-5 mg/dL a minute; the simulator's sensor, noise included, at most
    /// 8.7 over a step (26 mg/dL in 3 minutes, 175 histories of 10 days), the bundled cohort 6.4.
    /// The window is the models' hour of glucose: after it the jump is no longer in their inputs.
    public static let jumpLimit = 40.0, jumpRate = 8.0, jumpWindow: TimeInterval = 3600

    /// The refusal when CGM readings of two sensors interleave in the `jumpWindow` before `at`
    /// (`InterleavedSensors.find`: two or more pairs, not sharing a reading). Hunt BL, stop 62: a
    /// Dexcom and a Libre reading 20 mg/dL higher, imported for one person, interleaved; the Libre's
    /// newest was "glucose now" and the step between them a trend: 2.65 U where the Dexcom alone
    /// gives 2.10 U, up to 0.85 U more over a sweep of meals, with no word. (Leaving the second
    /// sensor's readings out at import dropped the same sensor's too: review BM.)
    static func interleavedSensors(_ past: [GlucoseReading], at: Date) -> DoseRefusal? {
        let since = at.addingTimeInterval(-jumpWindow)
        let found = InterleavedSensors.find(past.filter { $0.source == .cgm && $0.time >= since })
        guard found.episodes >= InterleavedSensors.minimumEpisodes, let (a, b) = found.pairs.last else { return nil }
        return .interleavedSensors(from: a.value.mgdL, to: b.value.mgdL, first: a.time, second: b.time, count: found.pairs.count)
    }

    /// The newest jump between consecutive CGM readings (at most 15 minutes apart) of the last
    /// `jumpWindow` before `at`: a difference of `jumpLimit` or more at `jumpRate` or more a minute
    /// that shifts the level (not one reading out of line and back), unless a finger-stick taken
    /// after it, by `at`, agrees with the CGM (the meter confirmed the new level). Hunt AB, stop 55: a calibration that
    /// put every reading 53 mg/dL high (161 -> 214 in 3 minutes) 54 minutes before dinner raised the
    /// model-based dose from 6.0 to 8.6 U, and 3.4 hours below 70 mg/dL followed in the simulator.
    static func sensorJump(_ past: [GlucoseReading], at: Date) -> DoseRefusal? {
        let since = at.addingTimeInterval(-jumpWindow - 2 * slowReadingInterval)
        let recent = past.drop { $0.time < since }
        let cgm = Array(recent.filter { $0.source == .cgm })
        func consecutive(_ i: Int, _ j: Int) -> Bool {
            i >= 0 && j < cgm.count && cgm[j].time.timeIntervalSince(cgm[i].time) <= slowReadingInterval
        }
        func apart(_ i: Int, _ j: Int) -> Double { abs(cgm[j].value.mgdL - cgm[i].value.mgdL) }
        for k in stride(from: cgm.count - 1, through: 1, by: -1) where at.timeIntervalSince(cgm[k].time) < jumpWindow {
            let (a, b) = (cgm[k - 1], cgm[k])
            let minutes = b.time.timeIntervalSince(a.time) / 60
            let change = apart(k - 1, k)
            guard minutes > 0, consecutive(k - 1, k), change >= jumpLimit, change / minutes >= jumpRate else { continue }
            // One reading out of line and back, not a shift of the level: the reading after the jump
            // returns to the level before it, or the reading before it was the one out of line (a dip
            // of one reading, 150 -> 65 -> 150, is two jumps that cancel: the models barely move on
            // it; hunt AB). Two steps the same way (164 -> 206 -> 248) are a shift.
            // Back means nearer the level before the jump than the level after it: glucose falling
            // 1.4 mg/dL a minute across a calibration 53 high (209 -> 255 -> 248) is a shift (the second
            // review of stop 55: with "within 40" it passed, and got 8.45 U).
            if consecutive(k, k + 1), apart(k - 1, k + 1) < change / 2 { continue }
            if consecutive(k - 2, k - 1), apart(k - 2, k) < change / 2 { continue }
            // A finger-stick taken after the jump that agrees with the CGM's reading nearest it (within
            // 20 mg/dL or 20%): the meter confirmed the new level. One that disagrees settles nothing
            // (the review of stop 55: a meter reading of 160 beside the CGM's 204 lifted the refusal, and
            // the dose was the 8.6 U of the jump), nor does the calibration that caused the jump (a
            // Dexcom `Calibration` row is a finger-stick at or before it): only a check after it.
            let after = cgm[k...]
            let confirmed = recent.contains { f in
                guard f.source == .fingerStick, f.time > b.time, f.time <= at,
                      let near = after.min(by: { abs($0.time.timeIntervalSince(f.time)) < abs($1.time.timeIntervalSince(f.time)) })
                else { return false }
                return abs(near.value.mgdL - f.value.mgdL) <= max(fingerStickAgreement, fingerStickAgreementShare * f.value.mgdL)
            }
            return confirmed ? nil : .sensorJump(from: a.value.mgdL, to: b.value.mgdL, time: b.time, minutes: minutes)
        }
        return nil
    }

    /// The refusal when the newest finger-stick of the `jumpWindow` before `at` disagrees with the
    /// CGM's reading before it and each after it within `maximumGlucoseAge` (by `at`; by more than
    /// `meterDisagreementLimit` and `meterDisagreementShare`, beyond where the CGM's own trend
    /// takes it over `cgmLag`: `lagBand`), if any: one of the two is wrong
    /// (a meter reading from an unwashed finger, a sensor reading off), and the dose would rest on
    /// the CGM, or on the meter when it is the newest reading. Hunt BW, stop 64: a meter reading of
    /// 45 mg/dL beside the CGM's 182 and 185 left a 2.10 U meal dose unchanged three minutes later,
    /// with no word; one of 320 beside the CGM's 145 two minutes before was "glucose now" and gave
    /// 6.50 U where the CGM gave 1.65. A newer finger-stick that agrees settles it (only the newest
    /// counts), and no CGM reading near the meter's leaves nothing to compare (a meter alone is
    /// dosed on). A calibration is a finger-stick: the CGM's readings after it agree with it.
    /// Review BY (stop 64): glucose falling 2.5 mg/dL a minute, a meter's 105 beside the CGM's 130
    /// ten minutes behind it was refused; the CGM's trend over its lag now counts.
    static func meterDisagreement(_ past: [GlucoseReading], at: Date) -> DoseRefusal? {
        guard let meter = past.last(where: { $0.source == .fingerStick }), at.timeIntervalSince(meter.time) < jumpWindow
        else { return nil }
        let since = meter.time.addingTimeInterval(-2 * maximumGlucoseAge)
        let cgm = past.drop { $0.time < since }.filter { $0.source == .cgm }
        // The CGM's reading before it and those after it (a calibration takes effect at a later
        // reading), within 15 minutes.
        let near = ([cgm.last { $0.time <= meter.time }].compactMap { $0 } + cgm.filter { $0.time > meter.time })
            .filter { abs($0.time.timeIntervalSince(meter.time)) <= maximumGlucoseAge }
        let tolerance = max(meterDisagreementLimit, meterDisagreementShare * meter.value.mgdL)
        func agrees(_ r: GlucoseReading) -> Bool {
            let band = lagBand(r, cgm)
            return meter.value.mgdL >= band.lowerBound - tolerance && meter.value.mgdL <= band.upperBound + tolerance
        }
        guard !near.contains(where: agrees),
              let nearest = near.min(by: { abs($0.time.timeIntervalSince(meter.time)) < abs($1.time.timeIntervalSince(meter.time)) })
        else { return nil }
        return .meterDisagrees(meter: meter.value.mgdL, meterTime: meter.time, cgm: nearest.value.mgdL, cgmTime: nearest.time,
                               meterIsNewest: past.last == meter)
    }

    /// How far a CGM reads behind blood glucose (min): the interstitial fluid's 5-10 minutes and
    /// the sensor's filtering, generously.
    static let cgmLag: TimeInterval = 15 * 60

    /// The glucose a CGM reading may stand for in the blood: from its value to where its trend over
    /// the 15 minutes before it (at most `livingRate` a minute either way) goes in `cgmLag`. No
    /// trend without readings 5 minutes or more before it.
    static func lagBand(_ r: GlucoseReading, _ cgm: [GlucoseReading]) -> ClosedRange<Double> {
        let value = r.value.mgdL
        guard let first = cgm.first(where: { $0.time >= r.time.addingTimeInterval(-maximumGlucoseAge) && $0.time < r.time }),
              r.time.timeIntervalSince(first.time) >= 5 * 60 else { return value...value }
        let rate = (value - first.value.mgdL) / r.time.timeIntervalSince(first.time)
        let ahead = value + min(max(rate, -livingRate / 60), livingRate / 60) * cgmLag
        return min(value, ahead)...max(value, ahead)
    }

    /// The fastest living glucose changes, mg/dL a minute (the jump's comment).
    static let livingRate = 5.0

    /// A low by the consensus (level 1, mg/dL): a finger-stick or CGM reading below it that the
    /// other disagrees with may be a low to treat.
    public static let lowGlucose = 70.0

    /// How far a finger-stick and the CGM may differ before they disagree (`meterDisagreement`): 40
    /// mg/dL, or 40% of the meter's reading above 100 mg/dL. Their errors add up (a meter's 15 and
    /// 15% of ISO 15197, a CGM's 20%): with simglucose's sensor and a meter of that accuracy, 1800
    /// checks at random times of six virtual patients disagreed 2.6% of the time so, 12.9% by the
    /// 20 mg/dL or 20% that confirms a jump (review BY, stop 64; each such refusal holds doses for
    /// the hour unless the meter is taken again). The hunt's meter errors were 137 and 175 mg/dL.
    public static let meterDisagreementLimit = 40.0, meterDisagreementShare = 0.4

    /// How near a finger-stick must be to the CGM to confirm its level after a jump: 20 mg/dL, or
    /// 20% above 100 mg/dL (a meter's ISO 15197 accuracy of 15 and 15%, and a CGM's of about 10%).
    public static let fingerStickAgreement = 20.0, fingerStickAgreementShare = 0.2

    /// The CGM's recording interval at `at`: 15 minutes when the median spacing of the readings
    /// of the last 6 hours is 12.5 minutes or more (a Libre's history), or when they hold a
    /// 15-minute grid with fewer readings off it than on it (a Libre's history with its scans:
    /// a scan 5 minutes after every other history reading made the median 10, and 36 of 42 daytime
    /// doses were refused for readings "missing" from a complete history), else 5. A 5-minute CGM
    /// that lost readings keeps its 5 minutes unless it lost two of every three for hours (every
    /// other: no 15-minute grid is held; every third: as many readings off the grid as on it);
    /// longer spacings are gaps, not an interval. Finger-sticks between readings only shorten the median.
    static func recordingInterval(_ times: [Date], at: Date) -> TimeInterval {
        let since = at.addingTimeInterval(-cadenceWindow)
        let recent = times.filter { $0 > since && $0 <= at }
        guard recent.count >= 3 else { return readingInterval }
        let spacings = zip(recent.dropFirst(), recent).map { $0.timeIntervalSince($1) }.sorted()
        let median = Statistics.percentile(sorted: spacings, 0.5)
        if median >= slowReadingInterval - readingInterval / 2 { return slowReadingInterval }
        return holdsSlowGrid(recent) ? slowReadingInterval : readingInterval
    }

    /// Whether readings (ascending, a few hours) hold a grid of `slowReadingInterval` at one phase,
    /// within a sixth of it (2.5 minutes), at 90% or more of its instants from the first reading on
    /// it to the last, with fewer readings off the grid than on it (scans between history readings).
    static func holdsSlowGrid(_ times: [Date]) -> Bool {
        let step = slowReadingInterval, tolerance = slowReadingInterval / 6
        for anchor in times {
            let on = times.filter { t in
                let offset = t.timeIntervalSince(anchor).truncatingRemainder(dividingBy: step)
                return min(abs(offset), step - abs(offset)) <= tolerance
            }
            guard let first = on.first, let last = on.last, on.count * 2 > times.count else { continue }
            let instants = (last.timeIntervalSince(first) / step).rounded() + 1
            if instants >= 4, Double(on.count) >= 0.9 * instants { return true }
        }
        return false
    }

    /// Number of expected readings, one every `step`, missing in `(at - 30 min, at]` (see `glucoseRefusals`).
    static func missingSteps(_ times: [Date], at: Date, step: TimeInterval = readingInterval) -> Int {
        missingInstants(times, at: at, step: step).count
    }

    /// The expected instants `missingSteps` counts, in time order.
    static func missingInstants(_ times: [Date], at: Date, step: TimeInterval = readingInterval) -> [Date] {
        let start = at.addingTimeInterval(-recentWindow)
        let tolerance = step / 2
        var previous = times.last(where: { $0 <= start }) ?? start
        var missing: [Date] = []
        let inside = times.filter { $0 > start && $0 <= at }
        for upper in inside + [at] {
            // First expected instant after `previous` that lies inside the window.
            var k = previous < start ? (start.timeIntervalSince(previous) / step).rounded(.down) + 1 : 1
            var expected = previous.addingTimeInterval(k * step)
            while expected <= upper.addingTimeInterval(-tolerance) {
                if expected > start { missing.append(expected) }
                k += 1
                expected = previous.addingTimeInterval(k * step)
            }
            previous = max(previous, upper)
        }
        return missing
    }
}

extension PatientLog {
    /// The log as it stood at `moment`: records dated at or before it (`inclusive`) or strictly
    /// before it. Records that run on (a basal rate, an extended bolus) keep their planned course.
    public func recorded(through moment: Date, inclusive: Bool = true) -> PatientLog {
        func keep(_ t: Date) -> Bool { inclusive ? t <= moment : t < moment }
        var log = self
        log.glucose = glucose.filter { keep($0.time) }
        log.boluses = boluses.filter { keep($0.time) }
        log.basalRates = basalRates.filter { keep($0.start) }
        log.temporaryBasals = temporaryBasals.filter { keep($0.start) }
        log.basalInjections = basalInjections.filter { keep($0.time) }
        log.carbs = carbs.filter { keep($0.time) }
        log.exercise = exercise.filter { keep($0.time) }
        log.weights = weights.filter { keep($0.time) }
        log.heartRate = heartRate.filter { keep($0.time) }
        // One dated after the import's time is a clock running ahead, not a record of later on.
        log.skippedInsulin = skippedInsulin.filter { keep($0.time) || $0.datedAfterImport }
        return log
    }
}

extension PatientLog {
    /// Whether a kept record of `skipped`'s kind is within `ImportLimits.duplicateWindow` of its
    /// time: the record was read after all (a corrected file imported again, or the export wrote
    /// the dose twice and one copy was readable), so it is not missing. For one whose time could
    /// not be read: a kept record strictly between the rows around it (`UnreadTime.betweenRows`;
    /// its own file has none there); with other bounds, nothing settles it.
    public func holdsRecord(like skipped: SkippedInsulin) -> Bool {
        let window = ImportLimits.duplicateWindow
        func near(_ times: some Collection<Date>) -> Bool {
            if let unread = skipped.unreadTime {
                return unread.betweenRows && times.contains { $0 > skipped.time && $0 < unread.latest }
            }
            return times.contains { abs($0.timeIntervalSince(skipped.time)) <= window }
        }
        // A record dropped beside another at its instant is held only by a kept one of its amount (a
        // corrected file, the two boluses a second apart, imported again), not by the one kept: that
        // one is at its instant, and of its amount when the two were one value given another way
        // (1 U at once and 1 U over an hour; review BI, stop 62: the dose went ahead without it).
        // Nor is a bolus whose amount could not be read held by a readable one of its file at its
        // instant (`besideKept`: 2 U and "abc" at 08:00 gave 2.60 U where both parts of the dose
        // give 0.75; review BS, stop 63).
        func amount(_ value: Double, _ time: Date) -> Bool {
            if skipped.besideKept == true, time == skipped.time { return false }
            return skipped.conflictingAmount.map { abs(value - $0) < 1e-9 && time != skipped.time } ?? true
        }
        switch skipped.kind {
        case .bolus: return near(boluses.lazy.filter { amount($0.dose.units, $0.time) }.map(\.time))
        case .basal: return near(basalRates.lazy.map(\.start))
        // A temp of 0 minutes (a cancel) delivers nothing: it holds none (review BJ).
        case .temporaryBasal:
            return near(temporaryBasals.lazy.filter { !$0.isMarker && amount($0.rate.unitsPerHour, $0.start) }.map(\.start))
        case .basalInjection: return near(basalInjections.lazy.map(\.time))
        default: return false
        }
    }
}
