import Foundation
import GrammarEvolution
@testable import GlucoModel

/// adolescent_003 (training + testing file) with tiny models trained once for all report tests.
enum ReportFixture {
    static let patient = try! PatientID("adolescent_003")

    static let data: PatientData = {
        // datasets/ sits at the package root: three levels above this test file.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let files = ["training", "testing"].map { root.appendingPathComponent("datasets/adolescent_003-ws-\($0).xml") }
        let loaded = CohortLoader.load(files, options: Fixture.options)
        precondition(loaded.failures.isEmpty && loaded.patients.count == 1, "cannot load adolescent_003: \(loaded.failures)")
        return loaded.patients[0]
    }()

    /// Population 20, 3 generations, horizons 30 and 60: seconds, enough for every section.
    static let models: ModelSet = {
        var options = TrainingOptions(grammar: try! .bundled("glucose-directed"))
        options.horizons = [30, 60]
        options.evolution.populationSize = 20
        options.evolution.generations = 3
        let grammar = try! Grammar(text: options.grammar.text, source: options.grammar.name)
        let trainer = try! PatientTrainer(data: data, options: options, grammar: grammar)
        var models: [Int: GlucoseModel] = [:]
        for h in options.horizons { models[h] = try! trainer.train(horizon: h, threads: 1).model }
        return ModelSet(patient: patient, models: models)
    }()

    /// The testing file's days: from its first reading to the end of the data.
    static var period: DateInterval { try! ReportPeriod.resolve(log: data.log, from: data.testStart) }

    static let report: PatientReport = try! PatientReport(log: data.log, models: models, period: period)
}

extension String {
    /// The text between `<section id="ID"` and the next `</section>`, or "" when absent.
    func section(_ id: String) -> String {
        guard let start = range(of: "<section id=\"\(id)\""),
              let end = self[start.upperBound...].range(of: "</section>") else { return "" }
        return String(self[start.lowerBound..<end.upperBound])
    }

    func occurrences(of needle: String) -> Int { components(separatedBy: needle).count - 1 }
}
