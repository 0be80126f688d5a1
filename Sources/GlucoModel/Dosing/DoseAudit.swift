import Foundation

/// One logged meal bolus next to what the toolkit would have suggested at that moment, and
/// the glucose that followed.
public struct DoseAuditRow: Hashable, Sendable {
    public var patient: PatientID
    public var bolusTime: Date
    /// Carbohydrates the bolus was for (its `carbInput`, else the intakes within 15 min).
    public var carbs: Double
    /// Units given.
    public var doseGiven: Double
    /// The suggestion from data strictly before the bolus.
    public var suggestion: DoseSuggestion
    /// The reading nearest `bolusTime + 1 h` (and `+ 2 h`) within 5 minutes, if any.
    public var glucoseAfter1h: Double?
    public var glucoseAfter2h: Double?
    /// Lowest and highest reading in `(bolusTime, bolusTime + 4 h]`.
    public var minimumAfter: Double?
    public var maximumAfter: Double?
    /// Whether a reading in those 4 hours was below the audit's low threshold (70 mg/dL by
    /// default); nil when there was no reading.
    public var lowFollowed: Bool?

    public static let csvHeader = csvHeader(units: .mgdL)

    /// The header with the glucose columns in `units` (`glucose_mgdl` or `glucose_mmoll`, ...).
    public static func csvHeader(units: GlucoseUnit) -> String {
        let u = units.columnSuffix
        return "patient,bolus_time,carbs_g,dose_given_u,decision,suggested_u,basis,model_u,formula_u,glucose_\(u),net_iob_u,"
            + "glucose_1h_\(u),glucose_2h_\(u),min_4h_\(u),max_4h_\(u),low_after,reasons"
    }

    public var csvLine: String { csvLine(units: .mgdL) }

    /// One CSV line in `csvHeader(units:)`'s columns; empty fields for unknown values, reason codes
    /// joined by `;`. Glucose in whole mg/dL, or mmol/L with one decimal.
    public func csvLine(units: GlucoseUnit) -> String {
        func f(_ v: Double?, _ format: String) -> String { v.map { String(format: format, $0) } ?? "" }
        func g(_ v: Double?) -> String { f(v.map(units.convert), "%.\(units.decimals())f") }
        var basis = ""
        if case let .bolus(_, b) = suggestion.decision { basis = b.rawValue }
        return [patient.rawValue, bolusTime.iso8601, f(carbs, "%.1f"), f(doseGiven, "%.2f"),
                suggestion.decision.kind, f(suggestion.decision.units, "%.2f"), basis, f(suggestion.modelDose, "%.2f"),
                f(suggestion.formulaUnits, "%.2f"), g(suggestion.glucose), f(suggestion.insulinOnBoard, "%.2f"),
                g(glucoseAfter1h), g(glucoseAfter2h), g(minimumAfter), g(maximumAfter),
                lowFollowed.map { $0 ? "yes" : "no" } ?? "", suggestion.reasonCodes.joined(separator: ";")]
            .joined(separator: ",")
    }
}

/// The retrospective audit: for every logged meal bolus, the dose the toolkit would have
/// suggested then, beside the dose given and the glucose that followed.
///
/// A meal bolus is a bolus with a positive `carbInput`, or one within 15 minutes (before or
/// after) of a logged carbohydrate intake. The suggestion sees only records dated strictly
/// before the bolus, without the matched intakes (they are the planned carbohydrates: counting
/// them in the history as well would count them twice).
public enum DoseAudit {
    /// A bolus this close to a carbohydrate intake is a meal bolus.
    public static let mealWindow: TimeInterval = 15 * 60
    /// How long after the bolus the glucose is followed.
    public static let followUp: TimeInterval = 4 * 3600

    /// The meal boluses of `log` within `period` (all when nil), with their carbohydrates and
    /// the intakes matched to them.
    public static func mealBoluses(_ log: PatientLog, period: DateInterval? = nil)
        -> [(bolus: Bolus, carbs: Double, intakes: [CarbIntake])] {
        log.boluses.compactMap { bolus in
            if let period, !period.contains(bolus.time) { return nil }
            // By binary search, as the readings: each meal's carbohydrates and twin boluses were
            // filtered from the whole log, and four years' audit took 7.8 times a year's (hunt AJ, stop 58).
            let intakes = Array(readings(log.carbs, from: bolus.time.addingTimeInterval(-mealWindow), to: bolus.time.addingTimeInterval(mealWindow)))
            if let input = bolus.carbInput?.grams, input > 0 { return (bolus, input, intakes) }
            guard !intakes.isEmpty else { return nil }
            return (bolus, intakes.reduce(0) { $0 + $1.amount.grams }, intakes)
        }
    }

    /// How many boluses of `log` within `period` (all when nil) are not meal boluses: corrections,
    /// meals not logged, a pump's automatic boluses. The audit leaves them out (it replays a meal
    /// bolus with the carbohydrates it was for) and says how many.
    public static func bolusesWithoutCarbs(_ log: PatientLog, period: DateInterval? = nil) -> Int {
        log.boluses.count { period?.contains($0.time) ?? true } - mealBoluses(log, period: period).count
    }

    /// What a reader is told of `count` boluses left out (`bolusesWithoutCarbs`); nil for none.
    public static func notAuditedNote(_ count: Int) -> String? {
        count > 0 ? "\(Plural.of(count, "bolus", plural: "boluses")) without logged carbohydrates (corrections, meals not logged) "
            + "not audited: the audit replays meal boluses, with the carbohydrates they were for" : nil
    }

    /// Runs the audit.
    /// - Parameters:
    ///   - models: the patient's models, or nil to audit the standard formula alone.
    ///   - period: only boluses in it (all when nil).
    ///   - lowThreshold: glucose below this after a bolus counts as a low (mg/dL; default 70).
    /// - Returns: one row per meal bolus, in time order.
    /// - Complexity: one series of `DoseAdvisor.historySpan` and one model search per bolus.
    public static func run(log: PatientLog, models: ModelSet?, settings: CheckedDoseSettings,
                           period: DateInterval? = nil, lowThreshold: Double = 70,
                           timeZone: TimeZone = .gmt) -> [DoseAuditRow] {
        mealBoluses(log, period: period).map { meal in
            var history = DoseAdvisor.history(log, at: meal.bolus.time, inclusive: false)
            // The bolus audited is a record of the data: its insulin is not in another file, though
            // none came before the first one (`DoseGuards.insulinRecordsRefusal`).
            history.inputsBefore.formUnion([.insulin, .bolus])
            // Its carbohydrates too: they are taken out of the history, so as not to count twice,
            // and before the first meal nothing else would say the data holds any.
            let matched = Set(meal.intakes)
            history.carbs.removeAll { matched.contains($0) }
            if !matched.isEmpty { history.inputsBefore.insert(.carbohydrate) }
            var suggestion = DoseAdvisor.suggest(log: history, carbs: meal.carbs, carbsTime: nil, at: meal.bolus.time,
                                                 settings: DoseAdvisor.checked(settings, for: history.patient), models: models, method: .model, timeZone: timeZone,
                                                 statedInsulinOnBoard: nil, insulinRecordedAt: true)
            // The meal's own records recorded twice (two exports merged): its carbohydrates, or its
            // bolus, would count double; the history before it is checked by `suggest`.
            if let twin = twinRecords(of: meal, in: log) {
                let earlier: [DoseRefusal]
                if case let .refused(list) = suggestion.decision { earlier = list } else { earlier = [] }
                // No dose worked out from the doubled amount is shown beside the refusal.
                suggestion.standard = nil; suggestion.modelDose = nil; suggestion.curve = nil; suggestion.predictions = []
                suggestion = DoseAdvisor.finish(suggestion, .refused([twin] + earlier), notes: [])
            }
            let t = meal.bolus.time
            let after = readings(log.glucose, from: t, to: t.addingTimeInterval(followUp)).filter { $0.time > t }.map(\.value.mgdL)
            let minimum = after.min()
            return DoseAuditRow(
                patient: log.patient, bolusTime: t, carbs: meal.carbs, doseGiven: meal.bolus.dose.units,
                suggestion: suggestion, glucoseAfter1h: reading(log.glucose, near: t.addingTimeInterval(3600)),
                glucoseAfter2h: reading(log.glucose, near: t.addingTimeInterval(7200)),
                minimumAfter: minimum, maximumAfter: after.max(), lowFollowed: minimum.map { $0 < lowThreshold })
        }
    }

    /// The refusal for the meal's intakes, or its bolus and another, recorded twice
    /// (`DoseGuards.twinRecordRefusal`), if any.
    static func twinRecords(of meal: (bolus: Bolus, carbs: Double, intakes: [CarbIntake]), in log: PatientLog) -> DoseRefusal? {
        var records = PatientLog(patient: log.patient)
        records.carbs = meal.intakes
        let window = DoseGuards.twinRecordWindow
        records.boluses = Array(readings(log.boluses, from: meal.bolus.time.addingTimeInterval(-window), to: meal.bolus.time.addingTimeInterval(window)))
        return DoseGuards.twinRecordRefusal(records, from: .distantPast, through: .distantFuture)
    }

    /// The reading nearest `time` within 5 minutes (the earlier on a tie).
    static func reading(_ all: [GlucoseReading], near time: Date) -> Double? {
        let close = readings(all, from: time.addingTimeInterval(-301), to: time.addingTimeInterval(301))
            .filter { abs($0.time.timeIntervalSince(time)) <= 300 }
        return close.min { abs($0.time.timeIntervalSince(time)) < abs($1.time.timeIntervalSince(time)) }?.value.mgdL
    }

    /// The records (in time order) from `start` to `end`, both included, found by binary search:
    /// an audit of years of meals reads each meal's hours, not the years.
    static func readings<R: TimedRecord>(_ all: [R], from start: Date, to end: Date) -> ArraySlice<R> {
        let i = PatientLog.firstIndex(all, atOrAfter: start)
        return all[i...].prefix { $0.time <= end }
    }
}
