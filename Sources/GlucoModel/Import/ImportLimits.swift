/// The plausible ranges importers accept. A value outside is skipped with a warning
/// (never clamped): it is far more likely a unit mix-up or a typing error than a real value.
///
/// - glucose 10...1000 mg/dL: meters read 20-600, CGMs 40-400 (39 in simulators); a
///   wider band keeps every real reading and rejects mmol/L values in a mg/dL column
///   only when below 10 (the unit is taken from the header, never guessed from values).
/// - bolus and basal injection 0...100 U: pumps cap a bolus at 25-75 U.
/// - basal rate 0...35 U/h: the largest pump setting.
/// - carbohydrate 0...500 g per intake.
/// - exercise intensity 0...10 (OhioT1DM's 1-10 scale), duration 0 < d <= 1440 min.
/// - weight 2...400 kg; heart rate 20...250 bpm.
public enum ImportLimits {
    public static let glucoseMgdL: ClosedRange<Double> = 10...1000
    public static let doseUnits: ClosedRange<Double> = 0...100
    public static let basalUnitsPerHour: ClosedRange<Double> = 0...35
    public static let carbGrams: ClosedRange<Double> = 0...500
    public static let exerciseIntensity: ClosedRange<Double> = 0...10
    public static let exerciseMinutes: ClosedRange<Double> = 0.000_001...1440
    public static let weightKilograms: ClosedRange<Double> = 2...400
    public static let heartRateBPM: ClosedRange<Double> = 20...250
}
