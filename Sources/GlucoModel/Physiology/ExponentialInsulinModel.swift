import Foundation

/// The exponential insulin action curve used by Loop and OpenAPS (dosing.md), for
/// rapid-acting insulin with peak time `tp` and duration of action `td` (minutes):
///
///     tau = tp * (1 - tp/td) / (1 - 2*tp/td)
///     a   = 2*tau/td
///     S   = 1 / (1 - a + (1 + a) * exp(-td/tau))
///     IOB(t) = 1 - S*(1 - a)*((t^2/(tau*td*(1 - a)) - t/tau - 1)*exp(-t/tau) + 1)   (0 <= t <= td)
///     A(t)   = (S/tau^2) * t * (1 - t/td) * exp(-t/tau)
///
/// `IOB` is 1 before the dose and 0 after `td`; `A` is the fraction of the dose acting per
/// minute and integrates to 1 over `[0, td]`. The constants are computed once in `init`.
public struct ExponentialInsulinModel: Hashable, Sendable, Codable {
    public let peakMinutes: Double
    public let durationMinutes: Double
    public let tau: Double
    public let a: Double
    public let S: Double

    /// - Precondition: `0 < peakMinutes < durationMinutes / 2` (else `tau` is undefined or negative).
    public init(peakMinutes: Double = 75, durationMinutes: Double = 360) {
        precondition(peakMinutes > 0 && 2 * peakMinutes < durationMinutes,
                     "the exponential insulin model needs 0 < peak < duration/2 (got \(peakMinutes), \(durationMinutes))")
        self.peakMinutes = peakMinutes
        self.durationMinutes = durationMinutes
        let tp = peakMinutes, td = durationMinutes
        tau = tp * (1 - tp / td) / (1 - 2 * tp / td)
        a = 2 * tau / td
        S = 1 / (1 - a + (1 + a) * exp(-td / tau))
    }

    /// Adult rapid-acting insulin: tp = 75, td = 360.
    public static let adultRapid = ExponentialInsulinModel(peakMinutes: 75, durationMinutes: 360)
    /// Children (rapid-acting): tp = 65, td = 360.
    public static let child = ExponentialInsulinModel(peakMinutes: 65, durationMinutes: 360)
    /// Ultra-rapid insulin (e.g. Fiasp, Lyumjev): tp = 55, td = 360.
    public static let ultraRapid = ExponentialInsulinModel(peakMinutes: 55, durationMinutes: 360)

    /// The fraction of a dose still on board `minutes` after it was given: 1 before, 0 after `td`.
    public func fractionRemaining(after minutes: Double) -> Double {
        if minutes <= 0 { return 1 }
        if minutes >= durationMinutes { return 0 }
        let t = minutes, td = durationMinutes
        return 1 - S * (1 - a) * ((t * t / (tau * td * (1 - a)) - t / tau - 1) * exp(-t / tau) + 1)
    }

    /// The fraction of a dose acting per minute, `minutes` after it was given (0 outside `[0, td]`).
    public func activity(after minutes: Double) -> Double {
        guard minutes > 0, minutes < durationMinutes else { return 0 }
        let t = minutes
        return S / (tau * tau) * t * (1 - t / durationMinutes) * exp(-t / tau)
    }
}
