import Foundation
@testable import GlucoModel

/// Small synthetic patients for training tests: CGM every 5 minutes, three meals a day with
/// boluses and a constant basal, and glucose that follows a simple causal rule driven by the
/// same insulin and carbohydrate curves the toolkit uses, plus seeded noise. Not physiology:
/// just data with a learnable structure, generated independently of the trainer.
enum SyntheticCohort {
    static let start = Fixture.date("2026-01-05T00:00:00Z")

    /// `insulin` is the curve the boluses act through in the generated glucose (the toolkit's
    /// adult rapid-acting one unless given).
    static func patient(_ id: String, days: Int, seed: UInt64, noise: Double = 2,
                        insulin: ExponentialInsulinModel = .adultRapid) -> PatientLog {
        var log = PatientLog(patient: try! PatientID(id))
        var random = SplitMix64(seed: seed)
        let carbs = BatemanCarbModel.standard
        var meals: [(Double, Double)] = [], doses: [(Double, Double)] = []
        for day in 0..<days {
            for (hour, grams) in [(7.5, 50.0), (13.0, 70.0), (19.5, 60.0)] {
                let minute = Double(day * 1440) + hour * 60 + Double(random.next() % 30)
                let g = grams + Double(random.next() % 20)
                meals.append((minute, g))
                doses.append((minute, (g / 12 * 20).rounded() / 20))
                log.carbs.append(CarbIntake(time: start.addingTimeInterval(minute * 60), amount: Carbohydrate(grams: g)))
                log.boluses.append(Bolus(time: start.addingTimeInterval(minute * 60), dose: InsulinUnits(doses.last!.1),
                                         carbInput: Carbohydrate(grams: g)))
            }
        }
        log.basalRates = [BasalRate(start: start, rate: InsulinRate(unitsPerHour: 0.8))]
        var glucose = 120.0
        for step in 0..<(days * 288) {
            let t = Double(step * 5)
            var appearing = 0.0, acting = 0.0
            for (m, g) in meals where m <= t { appearing += g * carbs.rateOfAppearance(after: t - m) * 5 }
            for (m, u) in doses where m <= t { acting += u * insulin.activity(after: t - m) * 5 }
            glucose += 3.5 * appearing - 40 * acting + 0.02 * (130 - glucose)
            glucose = min(max(glucose, 45), 380)
            let noisy = (glucose + noise * (Double(random.next() % 2001) / 1000 - 1)).rounded()
            log.glucose.append(GlucoseReading(time: start.addingTimeInterval(t * 60), value: .mgdL(noisy)))
        }
        return log
    }

    static func data(_ log: PatientLog) -> PatientData {
        PatientData(patient: log.patient, log: log, testStart: nil, files: [])
    }

    static func options(generations: Int = 3, population: Int = 24, horizons: [Int] = [30]) throws -> TrainingOptions {
        var o = TrainingOptions(grammar: try GrammarSource.bundled("glucose-symbolic"))
        o.evolution.populationSize = population
        o.evolution.generations = generations
        o.evolution.seed = 7
        o.horizons = horizons
        o.candidates = 5
        return o
    }
}

func temporaryFolder(_ name: String) -> URL {
    let url = ScratchSpace.root.appendingPathComponent("glucomodel-\(name)-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
