import Foundation
@testable import GlucoModel

/// Predictions built by hand for one patient, on 5-minute steps from `t0` (the alert and report
/// suites' rows).
protocol HandPredictions {}

extension HandPredictions {
    static var patient: PatientID { try! PatientID("p1") }
    static var t0: Date { Fixture.date("2026-01-15T08:00:00Z") }

    /// A prediction for target step `step`, issued `horizon` minutes before.
    static func row(_ step: Int, _ prediction: Double, _ reference: Double?, horizon: Int = 30, model: String = "ge") -> PredictionRow {
        let target = t0.addingTimeInterval(Double(step) * 300)
        return PredictionRow(patient: patient, issuedAt: target.addingTimeInterval(-Double(horizon) * 60), targetTime: target,
                             horizonMinutes: horizon, model: model, prediction: prediction, reference: reference)
    }
}
