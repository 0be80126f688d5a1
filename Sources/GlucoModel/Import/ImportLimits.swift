import Foundation

/// The plausible ranges every importer accepts. A value outside is skipped with a warning naming
/// the row (never clamped, never turned into 0): it is far more likely a unit mix-up or a typing
/// error than a real value. One set for all six formats (OhioT1DM, GlucoModel CSV, Dexcom Clarity,
/// LibreView, Nightscout, Tidepool).
///
/// Zero amounts: a bolus or injection of 0 U and a meal of 0 g are "no record" (pumps and apps write
/// them for a cancelled bolus or an empty food entry), so the ranges start just above 0 and such
/// rows are skipped as out of range. A basal rate of 0 U/h is a real record (a suspension).
public enum ImportLimits {
    /// Glucose (mg/dL): meters read 20-600, CGMs 40-400 (Dexcom) or 40-500 (Libre). A wider band
    /// keeps every real reading and rejects mmol/L values in a mg/dL column only when below 10
    /// (the unit is taken from the header, never guessed from values).
    public static let glucoseMgdL: ClosedRange<Double> = 10...1_000
    /// One bolus or injection (U): pumps cap a bolus at 25-75 U; 0 U is no dose.
    public static let doseUnits: ClosedRange<Double> = 0.001...100
    /// One part of a split bolus (U), e.g. the immediate part of a Tidepool dual bolus, which may be 0;
    /// the total must be within `doseUnits`.
    public static let bolusPartUnits: ClosedRange<Double> = 0...100
    /// A basal rate (U/h); 0 = suspended. The largest pump setting is 35 U/h; 50 leaves a margin.
    public static let basalUnitsPerHour: ClosedRange<Double> = 0...50
    /// One meal (g); 0 g is no carbohydrate. 500 g is far above any single meal.
    public static let carbGrams: ClosedRange<Double> = 0.001...500
    /// One meal in 10 g rations (servings): `carbGrams` / 10.
    public static let carbRations: ClosedRange<Double> = 0.000_1...50
    /// Durations of temporary basals and extended boluses (min): up to a week; 0 is allowed
    /// (a temp basal that ends where it starts, or a Nightscout cancel).
    public static let durationMinutes: ClosedRange<Double> = 0...(7 * 24 * 60)
    /// One exercise session (min): more than 0.6 s (0 = no session), at most a day.
    public static let exerciseMinutes: ClosedRange<Double> = 0.01...1_440
    /// Exercise intensity on OhioT1DM's 1-10 scale, and 0 = at rest: 0...10 (every importer's message says 0-10).
    public static let exerciseIntensity: ClosedRange<Double> = 0...10
    /// Body weight (kg).
    public static let weightKilograms: ClosedRange<Double> = 2...400
    /// Heart rate (beats per minute).
    public static let heartRateBPM: ClosedRange<Double> = 20...250
    /// No CGM data predates this (the first CGMs were approved in 1999): 1990-01-01T00:00Z.
    public static let earliest = Date(timeIntervalSince1970: 631_152_000)
    /// A glucose row's free-text note (characters): longer ones are cut to this, with a warning.
    public static let noteCharacters = 1_000
    /// In device exports, two readings (or doses) with the same value this close (s) are one record uploaded twice.
    public static let duplicateWindow: TimeInterval = 30
}
