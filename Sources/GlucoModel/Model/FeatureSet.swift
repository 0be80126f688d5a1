import Foundation

/// The inputs a glucose model may read at the moment of prediction `t`, all computed from
/// data at or before `t` (causal). Their names are the variables of the glucose grammars.
///
/// | name | meaning |
/// |---|---|
/// | `G0`...`G11` | glucose at `t`, `t-5`, ... `t-55` min (mg/dL; gaps up to 30 min filled) |
/// | `IOB`, `IA` | insulin on board (U) and insulin activity (U/min), exponential model |
/// | `INS` | insulin given up to `t` that will act in `(t, t+h]` (U) |
/// | `COB`, `RA` | carbohydrates on board (g) and rate of appearance (g/min), Bateman curve |
/// | `CARB` | carbohydrates eaten up to `t` that will appear in `(t, t+h]` (g) |
/// | `EX`, `HR` | exercise intensity (0-10) and heart rate (bpm; 0 when not recorded) |
///
/// `INS` and `CARB` depend on the horizon `h`: they carry what is already known at `t` about
/// the next `h` minutes (doses and meals logged so far), never anything logged after `t`.
public struct FeatureSet: Codable, Hashable, Sendable {
    /// Number of glucose lags (`G0` ... `G{n-1}`).
    public var glucoseLags: Int
    /// Horizon the horizon-dependent features look ahead to, in minutes.
    public var horizonMinutes: Int
    /// Grid step in minutes.
    public var stepMinutes: Int
    /// The insulin-action curve behind `INS` (the series' own `IOB`/`IA` use the same one).
    public var insulin: ExponentialInsulinModel
    /// The absorption curve behind `CARB` (the series' own `COB`/`RA` use the same one).
    public var carbs: BatemanCarbModel

    public init(glucoseLags: Int = 12, horizonMinutes: Int, stepMinutes: Int = 5,
                insulin: ExponentialInsulinModel = .adultRapid, carbs: BatemanCarbModel = .standard) {
        self.glucoseLags = glucoseLags
        self.horizonMinutes = horizonMinutes
        self.stepMinutes = stepMinutes
        self.insulin = insulin
        self.carbs = carbs
    }

    public static let nonGlucoseNames = ["IOB", "IA", "INS", "COB", "RA", "CARB", "EX", "HR"]

    /// Column names, in column order.
    public var names: [String] {
        (0..<glucoseLags).map { "G\($0)" } + FeatureSet.nonGlucoseNames
    }

    public var horizonSteps: Int { horizonMinutes / stepMinutes }

    /// Steps of history a row needs before it can be computed.
    public var historySteps: Int { glucoseLags - 1 }
}
