import Foundation
import Testing
import GrammarEvolution
@testable import GlucoModel

/// An ARX-based model predicts by its base alone where its evolved part is not finite or beyond
/// the range of its training days by more than that range's width (`GlucoseModel.evolvedRange`;
/// the trainer's range: `TrainingTests.noModelExplodesJustBeyondItsTrainingData`).
@Suite struct EvolvedRangeTests {
    /// ARX `10 + 0.9 G0`, evolved part `2 + 0.5 * 100 / (G0 - G1)`, recorded range -10...10
    /// (width 20: evolved values from -30 to 30 are used).
    static func model(range: ClosedRange<Double>? = -10...10) -> GlucoseModel {
        var m = DoseFixture.model("100 / (G0 - G1)", horizon: 30, features: FeatureSet(horizonMinutes: 30))
        let names = m.features.names
        m.base = .arx
        m.arx = ARXModel(featureNames: names, intercept: 10,
                         coefficients: names.map { $0 == "G0" ? 0.9 : 0 }, ridge: 0)
        (m.intercept, m.slope) = (2, 0.5)
        m.evolvedRange = range
        return m
    }

    static func row(_ m: GlucoseModel, g0: Double, g1: Double) -> [Double] {
        m.features.names.map { $0 == "G0" ? g0 : $0 == "G1" ? g1 : 0 }
    }

    @Test func theBaseAloneAnswersBeyondTheRange() {
        let m = Self.model()
        func p(_ g1: Double) -> GlucoseModel.Prediction { m.prediction(row: Self.row(m, g0: 150, g1: g1)) }
        // Worked by hand; the ARX alone gives 10 + 0.9 * 150 = 145.
        #expect(p(140) == .init(glucose: 152, baseAlone: false))    // evolved 2 + 0.5 * 10 = 7
        #expect(p(148) == .init(glucose: 172, baseAlone: false))    // 2 + 25 = 27: beyond the range, within its width
        #expect(p(250) == .init(glucose: 146.5, baseAlone: false))  // 2 - 0.5 = 1.5
        #expect(p(149) == .init(glucose: 145, baseAlone: true))     // 2 + 50 = 52 > 10 + 20
        #expect(p(150) == .init(glucose: 145, baseAlone: true))     // 100 / 0: infinite
        #expect(p(150.5) == .init(glucose: 145, baseAlone: true))   // 2 - 100 = -98 < -10 - 20
        #expect(m.predict(row: Self.row(m, g0: 150, g1: 149)) == 145)
    }

    @Test func olderFilesFallBackOnlyWhereTheExpressionIsNotFinite() {
        let m = Self.model(range: nil)
        #expect(m.prediction(row: Self.row(m, g0: 150, g1: 149)) == .init(glucose: 197, baseAlone: false))  // 145 + 52
        #expect(m.prediction(row: Self.row(m, g0: 150, g1: 150)) == .init(glucose: 145, baseAlone: true))
        // Without a base there is nothing to fall back on: the value stays as it was read before.
        var bare = m
        bare.base = .none
        #expect(bare.prediction(row: Self.row(m, g0: 150, g1: 150)).glucose == 600)
        #expect(!bare.prediction(row: Self.row(m, g0: 150, g1: 150)).baseAlone)
    }

    @Test func theRangeIsKeptInTheFileAndChecked() throws {
        let folder = temporaryFolder("evolved-range")
        let url = folder.appendingPathComponent("m.json")
        try Self.model(range: -12.5...31.25).write(to: url)
        #expect(try GlucoseModel.read(from: url).evolvedRange == -12.5...31.25)
        let text = try String(contentsOf: url, encoding: .utf8)
        for (bad, field) in [("[-1e13, 5]", "evolvedRange"), ("[5, 1]", "evolvedRange")] {
            let edited = text.replacingOccurrences(of: "\"evolvedRange\" : [\n    -12.5,\n    31.25\n  ]", with: "\"evolvedRange\" : \(bad)")
            #expect(edited != text)
            #expect {
                try GlucoseModel.decode(Data(edited.utf8), path: "m.json")
            } throws: { error in
                "\(error)".contains(field) && "\(error)".contains("m.json")
            }
        }
    }

    /// A flat CGM makes `G0 - G1` zero: the 30-minute model's expression is infinite there. The dose
    /// does not rest on the ARX's answer in its place: the standard formula's dose, with the reason.
    @Test func aDoseDoesNotRestOnTheBaseAlone() {
        var m = Self.model()
        m.features = DoseFixture.features(horizon: 30)
        m.arx = ARXModel(featureNames: m.features.names, intercept: 10,
                         coefficients: m.features.names.map { $0 == "G0" ? 0.9 : 0 }, ridge: ARXModel.defaultRidge)
        m.program = try! Program(infix: "100 / (G0 - G1)", variables: VariableNames(m.features.names))
        let log = DoseFixture.flatLog(glucose: 150, through: 90)
        let s = DoseAdvisor.suggest(log: log, carbs: 0, at: DoseFixture.at(90), settings: DoseFixture.settings(),
                                    models: DoseFixture.models([m]))
        #expect(s.reasonCodes == ["model_unavailable"])
        #expect(s.reasons.map(\.message).contains { $0.contains("30-minute model's expression is not finite or beyond the range of its training days") })
        #expect(s.decision == .bolus(units: 1.1, basis: .standardFormula))  // (150 - 110) / 35 = 1.14 -> 1.1
    }
}
