import Foundation

/// Where a glucose reading came from.
public enum GlucoseSource: String, Sendable, Codable, CaseIterable {
    case cgm
    case fingerStick = "finger_stick"
}

/// A reading outside the sensor's range, exported as text (`Low`, `High`, `LO`, `HI`).
/// Kept at the sensor limit with this flag, never turned into 0.
public enum Censoring: String, Sendable, Codable {
    case belowRange = "below_range"
    case aboveRange = "above_range"

    /// The sensor limits used for censored readings (mg/dL).
    public static let lowLimit = GlucoseValue(mgdL: 40)
    public static let highLimit = GlucoseValue(mgdL: 400)
}

/// The moment of the day a reading or dose refers to, as glUCModel's client records it.
public enum MealMoment: String, Sendable, Codable, CaseIterable {
    case beforeBreakfast = "before_breakfast", afterBreakfast = "after_breakfast"
    case beforeLunch = "before_lunch", afterLunch = "after_lunch"
    case beforeDinner = "before_dinner", afterDinner = "after_dinner"
    case night, other
}

public struct GlucoseReading: Hashable, Sendable, Codable {
    public var time: Date
    public var value: GlucoseValue
    public var source: GlucoseSource
    public var censoring: Censoring?
    public var moment: MealMoment?
    public var note: String?

    public init(time: Date, value: GlucoseValue, source: GlucoseSource = .cgm, censoring: Censoring? = nil,
                moment: MealMoment? = nil, note: String? = nil) {
        self.time = time; self.value = value; self.source = source
        self.censoring = censoring; self.moment = moment; self.note = note
    }
}

/// How a bolus was delivered.
public enum BolusType: String, Sendable, Codable, CaseIterable {
    case normal
    /// Part now, part spread over a period ("normal dual" / combo).
    case normalDual = "normal_dual"
    /// All spread from `time` to `end` ("square dual", extended).
    case square
}

/// Kind of insulin, when the export says.
public enum InsulinKind: String, Sendable, Codable, CaseIterable {
    case rapid, ultraRapid = "ultra_rapid", longActing = "long_acting", unknown
}

public struct Bolus: Hashable, Sendable, Codable {
    public var time: Date
    /// End of delivery for extended boluses; nil or equal to `time` for a normal bolus.
    public var end: Date?
    public var dose: InsulinUnits
    public var type: BolusType
    public var kind: InsulinKind
    /// Carbohydrates the bolus wizard was told about, if any.
    public var carbInput: Carbohydrate?
    /// Of a dual-wave bolus, the part given at once, when the export says it (Tidepool's `normal`,
    /// a mapped CSV's `bolus` beside `bolus_extended`, Nightscout's combo `insulin`); nil: the
    /// share `SeriesOptions.dualBolusImmediateShare` of `dose`.
    public var immediate: InsulinUnits?

    public init(time: Date, end: Date? = nil, dose: InsulinUnits, type: BolusType = .normal,
                kind: InsulinKind = .rapid, carbInput: Carbohydrate? = nil, immediate: InsulinUnits? = nil) {
        self.time = time; self.end = end; self.dose = dose; self.type = type; self.kind = kind; self.carbInput = carbInput
        self.immediate = immediate
    }

    /// The part given at once of this bolus when it is spread over a time: a dual-wave bolus's
    /// stated part, else `share` of it; a square bolus's none.
    public func immediateUnits(share: Double) -> Double {
        switch type {
        case .normal: dose.units
        case .normalDual: min(dose.units, immediate?.units ?? dose.units * share)
        case .square: 0
        }
    }
}

/// A scheduled basal rate, in force from `start` until `end` or the next basal record.
public struct BasalRate: Hashable, Sendable, Codable {
    public var start: Date
    public var end: Date?
    public var rate: InsulinRate

    public init(start: Date, end: Date? = nil, rate: InsulinRate) {
        self.start = start; self.end = end; self.rate = rate
    }
}

/// A temporary basal rate that overrides the scheduled one from `start` to `end` (0 = suspended).
public struct TemporaryBasal: Hashable, Sendable, Codable {
    public var start: Date
    public var end: Date
    public var rate: InsulinRate

    public init(start: Date, end: Date, rate: InsulinRate) {
        self.start = start; self.end = end; self.rate = rate
    }
}

/// An injection of long-acting (basal) insulin, for patients on pens rather than pumps.
public struct BasalInjection: Hashable, Sendable, Codable {
    public var time: Date
    public var dose: InsulinUnits
    public init(time: Date, dose: InsulinUnits) { self.time = time; self.dose = dose }
}

public enum MealType: String, Sendable, Codable, CaseIterable {
    case breakfast, lunch, dinner, snack, hypoCorrection = "hypo_correction", unspecified
}

public struct CarbIntake: Hashable, Sendable, Codable {
    public var time: Date
    public var amount: Carbohydrate
    public var mealType: MealType
    public init(time: Date, amount: Carbohydrate, mealType: MealType = .unspecified) {
        self.time = time; self.amount = amount; self.mealType = mealType
    }
}

public struct ExerciseSession: Hashable, Sendable, Codable {
    public var time: Date
    /// Physical demand on OhioT1DM's 1-10 scale, 0 at rest (`ImportLimits.exerciseIntensity`).
    public var intensity: Double
    public var durationMinutes: Double
    public init(time: Date, intensity: Double, durationMinutes: Double) {
        self.time = time; self.intensity = intensity; self.durationMinutes = durationMinutes
    }
}

public struct WeightRecord: Hashable, Sendable, Codable {
    public var time: Date
    public var kilograms: Double
    public init(time: Date, kilograms: Double) { self.time = time; self.kilograms = kilograms }
}

public struct HeartRateSample: Hashable, Sendable, Codable {
    public var time: Date
    public var beatsPerMinute: Double
    public init(time: Date, beatsPerMinute: Double) { self.time = time; self.beatsPerMinute = beatsPerMinute }
}

/// Everything imported for one patient, each list sorted by time.
public struct PatientLog: Sendable, Equatable {
    public var patient: PatientID
    public var glucose: [GlucoseReading] = []
    public var boluses: [Bolus] = []
    public var basalRates: [BasalRate] = []
    public var temporaryBasals: [TemporaryBasal] = []
    public var basalInjections: [BasalInjection] = []
    public var carbs: [CarbIntake] = []
    public var exercise: [ExerciseSession] = []
    public var weights: [WeightRecord] = []
    public var heartRate: [HeartRateSample] = []
    /// Sections or record kinds read but not modelled (e.g. OhioT1DM `sleep`), with how many records each held.
    public var otherRecords: [String: Int] = [:]
    /// The insulin the patient uses, when the export says.
    public var insulinKind: InsulinKind = .unknown
    /// For a log cut to a window (`since(_:)`): the kinds of inputs its records held before the
    /// window. Empty for a whole log.
    public var inputsBefore: Set<RecordInputs> = []
    /// For a log cut to a window (`since(_:)`) that left records out: the whole log's
    /// `firstInstant`, so that what is
    /// counted from a history's start (the settings estimate's 30-minute windows and days) is
    /// counted from the same instant in the window. Nil for a whole log.
    public var historyStart: Date?
    /// Insulin records the source held that the import skipped (`SkippedInsulin`), in time order.
    public var skippedInsulin: [SkippedInsulin] = []
    /// Glucose readings the source held that the import skipped for a time after the import's.
    public var glucoseAhead: GlucoseAhead?

    public init(patient: PatientID) { self.patient = patient }
}

extension PatientLog {
    /// The first instant a record covers (weights aside): where a series of the log begins
    /// (`PatientSeries`). Nil for a log without such records.
    public var firstInstant: Date? {
        [glucose.first?.time, boluses.first?.time, carbs.first?.time, basalRates.first?.start, temporaryBasals.first?.start,
         basalInjections.first?.time, exercise.first?.time, heartRate.first?.time].compactMap { $0 }.min()
    }

    /// The newest glucose reading, bolus, meal, temporary basal or basal injection: "now" for a
    /// dose asked of exported data without a moment (`glucomodel-predict dose` without `--at`).
    /// A bolus logged a minute after the last CGM reading is then in the history, not left out.
    public var newestDoseInstant: Date? {
        [glucose.last?.time, boluses.map(\.time).max(), carbs.map(\.time).max(), temporaryBasals.map(\.start).max(),
         basalInjections.map(\.time).max()].compactMap { $0 }.max()
    }

    /// The first instant of the history the log belongs to: its own `firstInstant`, or for a
    /// window, the whole log's.
    public var historyFirstInstant: Date? { historyStart ?? firstInstant }

    /// The CGM readings alone, in time order: what the CGM metrics (`metrics`, the report, the
    /// cohort index) are computed from. Finger sticks are taken when the person chooses (to
    /// confirm a low, at a meal), not on the sensor's clock: counted with the sensor's, 75 meter
    /// readings confirming lows over 4 days moved time below 54 mg/dL from 1.8 to 3.4% (hunt BW).
    public var cgmReadings: [GlucoseReading] { glucose.filter { $0.source == .cgm } }

    /// How many finger-stick (meter) readings the log holds.
    public var fingerStickCount: Int { glucose.count { $0.source == .fingerStick } }
}

extension PatientLog {
    /// The kinds of record a model's inputs come from, besides glucose.
    public enum RecordInputs: String, CaseIterable, Sendable {
        /// Boluses, basal rates (programmed or temporary) and basal injections.
        case insulin
        case carbohydrate
        /// Basal rates (programmed or temporary) and basal injections: the insulin an export of
        /// boluses alone lacks. A model's insulin inputs count them, so read without them a pump's
        /// 0.6 U/h is missing from every hour (the bundled adolescent_003's models predicted 22
        /// mg/dL high at 30 minutes and 52 at 120, and dosed 1 U more for 50 g).
        case basal
        /// Boluses: the insulin an export of the pump's basal alone lacks (the same models
        /// predicted 11 mg/dL high at 30 minutes, and dosed 5.05 U for 50 g where 2.6 was right).
        case bolus
        /// A pump's basal rates (programmed or temporary), and long-acting injections: the two
        /// kinds of basal. A model trained on one reads the other as insulin it never saw (a
        /// pump-trained model read each injection as a rapid-acting bolus: hunt AE, stop 56, 30-minute
        /// RMSE 12.2 -> 39.6 mg/dL after a switch to pens, and 1.5-1.9 times the dose by day), so one
        /// listed absent while the data holds it refuses the data (`ModelSet.missingInput`).
        case basalRate = "basal_rate"
        case basalInjection = "basal_injection"
        /// Heart rate (a watch): a signal, listed in a model's `absentSignals`, not `absentRecords`.
        /// Absent, a step reads `HR` 0, as no heart beats: a model trained with a watch predicted 41
        /// mg/dL low on average at 30 minutes without it (hunt AE, stop 56).
        case heartRate = "heart_rate"
        /// Exercise sessions: a signal too. A week without any is a week without exercise, not data
        /// missing, so absent it refuses nothing; a model trained without any reads `EX` as zero.
        case exercise

        /// Heart rate and exercise: recorded in `GlucoseModel.absentSignals`, not `absentRecords`.
        public var isSignal: Bool { self == .heartRate || self == .exercise }

        /// Basal and bolus are parts of insulin: data without insulin has neither, so a model
        /// trained without insulin was trained without them (`GlucoseModel.trainedWithout`).
        public var isPartOfInsulin: Bool { self == .basal || self == .bolus || isPartOfBasal }

        /// Basal rates and injections are parts of basal: a model trained without basal was
        /// trained without either.
        public var isPartOfBasal: Bool { self == .basalRate || self == .basalInjection }
    }

    /// Whether the log holds any record of `kind` (or held one before its window: `since(_:)`; a
    /// signal, heart rate or exercise, only in the window).
    public func has(_ kind: RecordInputs) -> Bool {
        if inputsBefore.contains(kind) { return true }
        switch kind {
        case .insulin: return !(boluses.isEmpty && basalRates.isEmpty && temporaryBasals.isEmpty && basalInjections.isEmpty)
        case .carbohydrate: return !carbs.isEmpty
        case .basal: return !(basalRates.isEmpty && temporaryBasals.isEmpty && basalInjections.isEmpty)
        case .bolus: return !boluses.isEmpty
        case .basalRate: return !(basalRates.isEmpty && temporaryBasals.isEmpty)
        case .basalInjection: return !basalInjections.isEmpty
        case .heartRate: return !heartRate.isEmpty
        case .exercise: return !exercise.isEmpty
        }
    }
}
