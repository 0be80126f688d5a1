import Foundation

/// Carbohydrate absorption as a Bateman function (docs/accuracy.md, "Levers"): a meal of `D` grams
/// passes a gut compartment (rate `ka`, per minute) into an absorption compartment (rate `ke`)
/// whose content follows
///
///     C(t)  = D * ka/(ka - ke) * (exp(-ke*t) - exp(-ka*t))
///
/// and leaves it into the blood at the rate of appearance `Ra(t) = ke * C(t)` (g/min), whose
/// integral over `[0, inf)` is `D` (while that of `C` is `D/ke`). Carbohydrates on board are what
/// has not yet appeared: `COB(t) = D - integral_0^t Ra = D * (ka*exp(-ke*t) - ke*exp(-ka*t))/(ka - ke)`.
/// All three peak (Ra, C) or fall from `D` (COB); the peak time is `ln(ka/ke)/(ka - ke)`.
///
/// Evaluated as `g = (1 - exp(-(ka-ke)t))/(ka-ke)` with `expm1`, so `ka` close to `ke` stays exact
/// and `ka == ke = k` takes the limit `g = t`: `C = D*k*t*exp(-k*t)`, `COB = D*(1 + k*t)*exp(-k*t)`
/// (Hovorka's gut absorption with `tmax = 1/k`).
///
/// Defaults `ka = 0.03/min`, `ke = 0.02/min`: appearance peaks at `ln(1.5)/0.01 = 40.5` minutes and
/// 93% of the meal has appeared after 3 hours, typical of a mixed meal.
public struct BatemanCarbModel: Hashable, Sendable, Codable {
    /// Absorption rate constant from the gut, per minute.
    public let ka: Double
    /// Rate constant of appearance into the blood, per minute.
    public let ke: Double

    /// - Precondition: both rates positive and finite.
    public init(ka: Double = 0.03, ke: Double = 0.02) {
        precondition(ka > 0 && ke > 0 && ka.isFinite && ke.isFinite, "Bateman rates must be positive (got ka \(ka), ke \(ke))")
        self.ka = ka; self.ke = ke
    }

    public static let standard = BatemanCarbModel()

    /// Minutes from intake to the peak of `C` and `Ra`: `ln(ka/ke)/(ka - ke)`, or `1/k` when equal.
    public var peakMinutes: Double { ka == ke ? 1 / ka : log1p((ka - ke) / ke) / (ka - ke) }

    private func g(_ t: Double) -> Double {
        let d = ka - ke
        return d == 0 ? t : -expm1(-d * t) / d
    }

    /// `C(t)/D`: the fraction of the meal in the absorption compartment (0 before the meal).
    public func curve(after minutes: Double) -> Double {
        guard minutes > 0 else { return 0 }
        return ka * exp(-ke * minutes) * g(minutes)
    }

    /// `Ra(t)/D = ke*C(t)/D`: the fraction of the meal appearing in the blood per minute.
    public func rateOfAppearance(after minutes: Double) -> Double { ke * curve(after: minutes) }

    /// `COB(t)/D`: the fraction not yet appeared (1 before the meal, tending to 0).
    public func fractionRemaining(after minutes: Double) -> Double {
        guard minutes > 0 else { return 1 }
        return exp(-ke * minutes) * (1 + ke * g(minutes))
    }
}
