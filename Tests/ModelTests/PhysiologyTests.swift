import Foundation
import Testing
@testable import GlucoModel

@Suite struct PhysiologyTests {
    /// Composite Simpson's rule on [a, b] with n (even) intervals.
    func simpson(_ a: Double, _ b: Double, _ n: Int = 20_000, _ f: (Double) -> Double) -> Double {
        let h = (b - a) / Double(n)
        var s = f(a) + f(b)
        for i in 1..<n { s += (i % 2 == 1 ? 4 : 2) * f(a + Double(i) * h) }
        return s * h / 3
    }

    /// Expected values from dosing.md's formulas, worked out in python3 (not with this code):
    /// tp = 75, td = 360: tau = 75*(1 - 75/360)/(1 - 150/360) = 75*0.791667/0.583333 = 101.785714;
    /// a = 2*tau/td = 0.565476; S = 1/(1 - a + (1 + a)*exp(-360/101.785714)) = 1/(0.434524 + 1.565476*0.029111) = 2.082955.
    /// IOB(75)  = 1 - S(1-a)((75^2/(tau*td*(1-a)) - 75/tau - 1) e^(-75/tau) + 1) = 0.694263343718
    /// IOB(180) = 0.208170734314;  IOB(0) = 1;  IOB(360) = 0 (the formula also gives 0 there).
    /// A(75) = S/tau^2 * 75 * (1 - 75/360) * e^(-75/tau) = 0.005713515799 per minute.
    @Test func insulinOnBoardMatchesTheSpec() {
        let m = ExponentialInsulinModel(peakMinutes: 75, durationMinutes: 360)
        #expect(abs(m.tau - 101.785714285714) < 1e-9)
        #expect(abs(m.a - 0.565476190476) < 1e-9)
        #expect(abs(m.S - 2.082955192212) < 1e-9)
        #expect(m.fractionRemaining(after: 0) == 1)
        #expect(abs(m.fractionRemaining(after: 75) - 0.694263343718) < 1e-9)
        #expect(abs(m.fractionRemaining(after: 180) - 0.208170734314) < 1e-9)
        #expect(m.fractionRemaining(after: 360) == 0)
        #expect(m.fractionRemaining(after: -10) == 1 && m.fractionRemaining(after: 500) == 0)
        #expect(abs(m.activity(after: 75) - 0.005713515799) < 1e-12)
        // Children: tp = 65 gives IOB(65) = 0.706496593031 (same formulas, python3).
        #expect(abs(ExponentialInsulinModel.child.fractionRemaining(after: 65) - 0.706496593031) < 1e-9)
    }

    @Test func insulinActivityIntegratesToOneAndIsTheIOBSlope() {
        for m in [ExponentialInsulinModel.adultRapid, .child, .ultraRapid] {
            #expect(abs(simpson(0, m.durationMinutes) { m.activity(after: $0) } - 1) < 1e-9)
            // -d IOB/dt = A (central difference at a few points).
            for t in [30.0, 75, 200] {
                let slope = (m.fractionRemaining(after: t - 0.01) - m.fractionRemaining(after: t + 0.01)) / 0.02
                #expect(abs(slope - m.activity(after: t)) < 1e-8)
            }
        }
        // Activity peaks at tp: the derivative of t(1 - t/td)e^(-t/tau) vanishes at t = tp by construction of tau.
        let m = ExponentialInsulinModel.adultRapid
        #expect(m.activity(after: 75) > m.activity(after: 74) && m.activity(after: 75) > m.activity(after: 76))
    }

    @Test func batemanPeakAndIntegral() {
        let m = BatemanCarbModel(ka: 0.03, ke: 0.02)
        // ln(ka/ke)/(ka - ke) = ln(1.5)/0.01 = 40.546510811 minutes.
        #expect(abs(m.peakMinutes - 40.546510811) < 1e-8)
        // The numerical argmax of Ra on a 0.001-minute grid agrees.
        let argmax = stride(from: 30.0, through: 50, by: 0.001).max { m.rateOfAppearance(after: $0) < m.rateOfAppearance(after: $1) }!
        #expect(abs(argmax - 40.5465) < 0.001)
        // Ra integrates to D (here per gram: 1); C itself integrates to D/ke = 50.
        #expect(abs(simpson(0, 3000, 60_000) { m.rateOfAppearance(after: $0) } - 1) < 1e-9)
        #expect(abs(simpson(0, 3000, 60_000) { m.curve(after: $0) } - 50) < 1e-6)
        // COB = D - integral of Ra; for 50 g at 60 min (python3): 28.649242964672 g, Ra = 0.407685971072 g/min.
        #expect(abs(50 * m.fractionRemaining(after: 60) - 28.649242964672) < 1e-9)
        #expect(abs(50 * m.rateOfAppearance(after: 60) - 0.407685971072) < 1e-11)
        #expect(abs(m.fractionRemaining(after: 60) - (1 - simpson(0, 60) { m.rateOfAppearance(after: $0) })) < 1e-12)
    }

    @Test func batemanEqualRatesTakeTheLimit() {
        // ka == ke = k: C = D k t e^(-kt), peak 1/k = 50 min, COB = (1 + kt) e^(-kt).
        let k = 0.02
        let equal = BatemanCarbModel(ka: k, ke: k)
        #expect(equal.peakMinutes == 50)
        #expect(abs(equal.curve(after: 30) - k * 30 * exp(-k * 30)) < 1e-15)
        #expect(abs(equal.fractionRemaining(after: 30) - (1 + k * 30) * exp(-k * 30)) < 1e-15)
        // Nearly equal rates are continuous with the limit (no cancellation blow-up).
        let near = BatemanCarbModel(ka: k * (1 + 1e-12), ke: k)
        #expect(abs(near.curve(after: 30) - equal.curve(after: 30)) < 1e-12)
        #expect(abs(near.peakMinutes - 50) < 1e-6)
    }
}
