import Foundation
import Testing
@testable import GlucoModel

/// `ModelResponse`: what 1 U and 10 g added at the moment of prediction do to a model's prediction.
/// With `DoseFixture.features(horizon: 360)` a planned dose adds exactly its units to `INS` and its
/// grams to `CARB` (the insulin is all absorbed and the carbohydrate all appeared within 360 min),
/// so the expected changes are the expressions' coefficients, worked out by hand.
struct ModelResponseTests {
    typealias F = DoseFixture

    /// A table of the fixture's features: one row per value of `G0`, every other feature 0.
    func table(g0: [Double]) -> FeatureTable {
        let names = F.features(horizon: 360).names
        var columns = [[Double]](repeating: [Double](repeating: 0, count: g0.count), count: names.count)
        columns[names.firstIndex(of: "G0")!] = g0
        return FeatureTable(names: names, columns: columns, targets: g0.map { _ in .nan }, steps: Array(g0.indices))
    }

    @Test func aPhysiologicalModelLowersWithInsulinAndRisesWithAMeal() throws {
        let model = F.model("G0 - 40*INS + 3*CARB", horizon: 360)
        let r = try #require(ModelResponse(model: model, table: table(g0: [100, 180, 250])))
        #expect(r.moments == 3 && r.horizonMinutes == 360)
        #expect(abs(r.insulin - -40) < 1e-9)   // 1 U: -40 x 1
        #expect(abs(r.carbs - 30) < 1e-9)      // 10 g: +3 x 10
        #expect(r.insulinRaises == 0 && r.carbsLower == 0 && r.hasTheBodysSigns)
    }

    @Test func aModelThatLearntTheMealAsItsInsulinIsFlagged() throws {
        // Insulin raises by 5 per unit, a meal lowers by 1 per gram: both the wrong way.
        let model = F.model("G0 + 5*INS - CARB", horizon: 360)
        let r = try #require(ModelResponse(model: model, table: table(g0: [100, 180])))
        #expect(abs(r.insulin - 5) < 1e-9 && abs(r.carbs - -10) < 1e-9)
        #expect(r.insulinRaises == 1 && r.carbsLower == 1 && !r.hasTheBodysSigns)
    }

    @Test func aResponseThatDependsOnTheMomentIsCountedPerMoment() throws {
        // 1 U moves the prediction by G0 - 150: -50, +30, +50 at G0 100, 180, 200; median +30, 2 of 3 raise.
        let model = F.model("G0 + INS*(G0 - 150)", horizon: 360)
        let r = try #require(ModelResponse(model: model, table: table(g0: [100, 180, 200])))
        #expect(abs(r.insulin - 30) < 1e-9)
        #expect(abs(r.insulinRaises - 2.0 / 3) < 1e-12)
        #expect(r.carbs == 0 && r.carbsLower == 0)   // the model reads no carbohydrate
        #expect(!r.hasTheBodysSigns)
        // An even count takes the middle two: -50, +30, +50, +70 (G0 220) -> +40.
        let even = try #require(ModelResponse(model: model, table: table(g0: [100, 180, 200, 220])))
        #expect(abs(even.insulin - 40) < 1e-9)
    }

    @Test func noRowsOrNoFinitePredictionIsNoResponse() {
        let model = F.model("G0 - 40*INS", horizon: 360)
        #expect(ModelResponse(model: model, table: table(g0: [])) == nil)
        #expect(ModelResponse(model: model, table: table(g0: [.nan])) == nil)
    }
}
