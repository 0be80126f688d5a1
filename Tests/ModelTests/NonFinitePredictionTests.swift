import Foundation
import Testing
import GrammarEvolution
@testable import GlucoModel

/// Issue #12: a model whose value is not finite gives no prediction, and no dose decision
/// other than `model_unavailable`.
@Suite struct NonFinitePredictionTests {
    /// 0 / (G0 - G0) is 0/0 = NaN on every row.
    static let nan = DoseFixture.model("0 / (G0 - G0)", horizon: 30, features: FeatureSet(horizonMinutes: 30))

    @Test func predictorLeavesOutNonFiniteValues() throws {
        let log = DoseFixture.flatLog(glucose: 150, through: 180)
        var predictor = Predictor(models: DoseFixture.models([Self.nan]))
        predictor.baselines = [.persistence]
        let rows = try predictor.predict(log)
        #expect(!rows.isEmpty)
        #expect(rows.allSatisfy { $0.prediction.isFinite })
        #expect(rows.allSatisfy { $0.model == "persistence" })
    }

    /// Before the fix the NaN failed `>= suspend` first and read as a predicted low.
    @Test func doseCallsNaNModelUnavailable() {
        let log = DoseFixture.flatLog(glucose: 150, through: 90)
        let s = DoseAdvisor.suggest(log: log, carbs: 0, at: DoseFixture.at(90), settings: DoseFixture.settings(),
                                    models: DoseFixture.models([Self.nan]))
        #expect(s.reasonCodes == ["model_unavailable"])
        #expect(s.decision == .bolus(units: 1.1, basis: .standardFormula))  // (150 - 110)/35 = 1.14 -> 1.1
    }
}
