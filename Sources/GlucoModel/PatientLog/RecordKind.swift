import Foundation

/// The kinds of record a `PatientLog` holds; the raw value names them in the store and in messages.
public enum RecordKind: String, Sendable, Codable, CaseIterable {
    case glucose, bolus, basal
    case temporaryBasal = "temp_basal"
    case basalInjection = "basal_injection"
    case carbs, exercise, weight
    case heartRate = "heart_rate"

    /// A bolus, basal rate, temporary basal or basal injection.
    public var isInsulin: Bool {
        switch self {
        case .bolus, .basal, .temporaryBasal, .basalInjection: true
        case .glucose, .carbs, .exercise, .weight, .heartRate: false
        }
    }
}

/// A record placed in time, so importers can sort it and find duplicates.
public protocol TimedRecord: Hashable, Sendable, Codable {
    static var kind: RecordKind { get }
    /// When the record starts.
    var time: Date { get }
    /// Records at the same time with the same identity describe the same event; if their
    /// values differ they conflict. Readings from different sources (CGM, finger stick) are different events.
    var identity: String { get }
    /// The record's main number in its canonical unit (mg/dL, U, U/h, g, intensity, kg, bpm).
    var canonicalValue: Double { get }
    /// A record that only marks its instant (a temporary basal of 0 minutes: it ends the one
    /// running and delivers nothing). At one instant it gives way to a record of the same identity
    /// that is not a marker, from whichever file (`PatientLog.firstAtEachInstant`), and it is no
    /// conflicting duplicate of one: a loop's cancel written at the instant of its next temp, the
    /// two in different files (review BH, stop 61).
    var isMarker: Bool { get }
    /// When the record's insulin is delivered until, if after its start (a temporary basal, a
    /// square or dual-wave bolus); nil for any other record.
    var deliveryEnd: Date? { get }
}

extension TimedRecord {
    /// The later of this record's and `other`'s `deliveryEnd`: of two written at one instant, which
    /// was given is unknown until then (`SkippedInsulin.end`).
    func deliveryEnd(with other: Self) -> Date? { [deliveryEnd, other.deliveryEnd].compactMap { $0 }.max() }
}

extension TimedRecord {
    public var identity: String { "" }
    public var isMarker: Bool { false }
    public var deliveryEnd: Date? { nil }
}

extension GlucoseReading: TimedRecord {
    public static var kind: RecordKind { .glucose }
    public var identity: String { source.rawValue }
    public var canonicalValue: Double { value.mgdL }
}

extension Bolus: TimedRecord {
    public static var kind: RecordKind { .bolus }
    public var canonicalValue: Double { dose.units }
    public var deliveryEnd: Date? { end.flatMap { $0 > time ? $0 : nil } }
}

extension BasalRate: TimedRecord {
    public static var kind: RecordKind { .basal }
    public var time: Date { start }
    public var canonicalValue: Double { rate.unitsPerHour }
}

extension TemporaryBasal: TimedRecord {
    public static var kind: RecordKind { .temporaryBasal }
    public var time: Date { start }
    public var canonicalValue: Double { rate.unitsPerHour }
    /// Of 0 minutes: a cancel (a GlucoModel CSV's or OhioT1DM's), kept so that it ends a temp another file holds.
    public var isMarker: Bool { end <= start }
    public var deliveryEnd: Date? { end > start ? end : nil }
}

extension BasalInjection: TimedRecord {
    public static var kind: RecordKind { .basalInjection }
    public var canonicalValue: Double { dose.units }
}

extension CarbIntake: TimedRecord {
    public static var kind: RecordKind { .carbs }
    public var canonicalValue: Double { amount.grams }
}

extension ExerciseSession: TimedRecord {
    public static var kind: RecordKind { .exercise }
    public var canonicalValue: Double { intensity }
}

extension WeightRecord: TimedRecord {
    public static var kind: RecordKind { .weight }
    public var canonicalValue: Double { kilograms }
}

extension HeartRateSample: TimedRecord {
    public static var kind: RecordKind { .heartRate }
    public var canonicalValue: Double { beatsPerMinute }
}

extension PatientLog {
    /// How many records of every kind the log holds (other sections not included).
    public var recordCount: Int {
        glucose.count + boluses.count + basalRates.count + temporaryBasals.count + basalInjections.count
            + carbs.count + exercise.count + weights.count + heartRate.count
    }

    /// The earliest record time, if any.
    public var firstTime: Date? {
        [glucose.first?.time, boluses.first?.time, basalRates.first?.time, temporaryBasals.first?.time,
         basalInjections.first?.time, carbs.first?.time, exercise.first?.time, weights.first?.time,
         heartRate.first?.time].compactMap { $0 }.min()
    }

    /// The latest record time, if any (each list is in time order).
    public var lastTime: Date? {
        [glucose.last?.time, boluses.last?.time, basalRates.last?.time, temporaryBasals.last?.time,
         basalInjections.last?.time, carbs.last?.time, exercise.last?.time, weights.last?.time,
         heartRate.last?.time].compactMap { $0 }.max()
    }
}
