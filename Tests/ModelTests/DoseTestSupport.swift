import Foundation
import GrammarEvolution
@testable import GlucoModel

/// Hand-made data, settings and models for the dosing tests.
enum DoseFixture {
    static let t0 = Fixture.date("2026-01-05T10:00:00Z")
    static func at(_ minutes: Double) -> Date { t0.addingTimeInterval(minutes * 60) }
    static let patient = try! PatientID("dose_p1")
    /// A bolus absorbed long before the moments asked about (11 hours before 11:30 for a 6-hour
    /// curve): a log holds insulin records (`DoseGuards.insulinRecordsRefusal` refuses a CGM-only
    /// one, and a pump's basal without its boluses), and this one is no longer on board.
    static let absorbedBolus = Bolus(time: at(-600), dose: InsulinUnits(1))

    /// A complete, valid settings file: ICR 10 g/U, ISF 35 mg/dL/U, target 110, suspend 70,
    /// max bolus 10 U, increment 0.05 U.
    static func settings() -> DoseSettings {
        DoseSettings(patient: patient, carbRatio: 10, insulinSensitivity: 35, target: 110, suspendThreshold: 70,
                     maxBolus: 10, bolusIncrement: 0.05)
    }

    static func checked() -> CheckedDoseSettings {
        guard case let .success(s) = settings().checked(for: patient) else { fatalError("fixture settings invalid") }
        return s
    }

    /// CGM readings every 5 minutes from 10:00 through `through` minutes, all `glucose` mg/dL,
    /// and `absorbedBolus` (none when not `insulinRecords`: a CGM-only export).
    static func flatLog(glucose: Double = 180, through: Double = 90, skipping: Set<Double> = [],
                        insulinRecords: Bool = true) -> PatientLog {
        var log = PatientLog(patient: patient)
        log.glucose = stride(from: 0.0, through: through, by: 5).filter { !skipping.contains($0) }
            .map { GlucoseReading(time: at($0), value: .mgdL(glucose)) }
        if insulinRecords { log.boluses = [absorbedBolus] }
        return log
    }

    /// A carbohydrate curve so fast that all of a meal appears within the horizon:
    /// `ka = ke = 1/min`, `COB(t)/D = (1 + t) * exp(-t)`, which is below 1e-150 at 360 min,
    /// so `CARB` gains exactly the planned grams (1 - 1e-150 rounds to 1 in binary).
    static let fastCarbs = BatemanCarbModel(ka: 1, ke: 1)

    /// Features for a horizon of at least the insulin duration (360 min): `R(h) = 0`, so
    /// `INS` gains exactly the planned units.
    static func features(horizon: Int) -> FeatureSet {
        FeatureSet(horizonMinutes: horizon, insulin: .adultRapid, carbs: fastCarbs)
    }

    /// A model predicting `expression` alone (base none, intercept 0, slope 1), trained, like the
    /// flat logs here, on data without insulin or carbohydrate records (`absentRecords`): it reads
    /// them as zero on such a log. A model trained with them gives no dose there
    /// (`DoseModelTests.aModelTrainedWithInsulinGivesNoDoseOnDataWithoutInsulin`).
    static func model(_ expression: String, horizon: Int, features: FeatureSet? = nil) -> GlucoseModel {
        let f = features ?? self.features(horizon: horizon)
        let program = try! Program(infix: expression, variables: VariableNames(f.names))
        var model = GlucoseModel(
            patient: patient, horizonMinutes: horizon, features: f, base: .none,
            arx: ARXModel(featureNames: f.names, intercept: 0, coefficients: Array(repeating: 0, count: f.names.count), ridge: ARXModel.defaultRidge),
            expression: expression, program: program, intercept: 0, slope: 1, selection: "hand-made",
            grammar: GrammarReference(name: "test", hash: "0"), seed: 1, evolution: EvolutionParameters(),
            fitness: .rmse, settings: "", training: TrainingWindow(trainFrom: t0, trainTo: t0, validationFrom: t0, validationTo: t0),
            metrics: [])
        model.absentRecords = PatientLog.RecordInputs.allCases.filter { !$0.isSignal && !$0.isPartOfBasal }.map(\.rawValue)
        return model
    }

    static func models(_ list: [GlucoseModel]) -> ModelSet {
        ModelSet(patient: patient, models: Dictionary(uniqueKeysWithValues: list.map { ($0.horizonMinutes, $0) }))
    }

    /// The fraction of insulin remaining `t` minutes after a dose, typed in again from
    /// dosing.md (independent of `ExponentialInsulinModel`).
    static func insulinRemaining(_ t: Double, peak tp: Double = 75, duration td: Double = 360) -> Double {
        let tau = tp * (1 - tp / td) / (1 - 2 * tp / td)
        let a = 2 * tau / td
        let s = 1 / (1 - a + (1 + a) * exp(-td / tau))
        return 1 - s * (1 - a) * ((t * t / (tau * td * (1 - a)) - t / tau - 1) * exp(-t / tau) + 1)
    }
}
