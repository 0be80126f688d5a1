import Foundation
import GrammarEvolution
import Testing
@testable import GlucoModel

/// Property tests (issue #12): generated inputs the bundled data never shows must each end in a
/// result or a clear error, never a trap, a hang or a non-finite number in an output.
///
/// Short mode (the suite): a few thousand cheap cases and a couple of trainings, seconds in all.
/// Long mode: `scripts/property-long.sh N SEED` sets `GLUCOMODEL_PROPERTY_CASES=N` (shared by
/// the kinds by weight) and the seed; `GLUCOMODEL_PROPERTY_TRACE=FILE` makes every case write
/// `kind seed case` to `FILE.<kind>` first, so a trap, which kills the process, leaves the case to replay.
@Suite struct PropertyTests {
    enum Kind: String, CaseIterable {
        case numbers, ids, modelFiles, settings, grammars, dose, training

        /// Cases in short mode, and the share of a long run's N.
        var plan: (short: Int, weight: Double) {
            switch self {
            case .numbers: return (3000, 0.30)
            case .ids: return (3000, 0.25)
            case .modelFiles: return (400, 0.30)
            case .settings: return (300, 0.10)
            case .grammars: return (30, 0.03)
            case .dose: return (20, 0.0195)
            case .training: return (2, 0.0005)
            }
        }

        /// The least share of cases that must give a result, not a clear error: about half the share
        /// seed 12 gives (numbers 100%, ids 12%, settings 11%, model files 2.5%, grammars 7%, doses 100%), so that a
        /// kind whose every case is refused (the feature gone, or a guard catching them all) fails.
        /// Floors a healthy build meets for any seed (a Poisson miss below one in a thousand); training's
        /// two and grammars' thirty short cases are too few to ask it of.
        var leastResults: Double {
            switch self {
            case .numbers: return 0.5
            case .ids: return 0.05
            case .modelFiles: return 0.0025
            case .settings: return 0.02
            case .dose: return 0.4
            // Grammars' 30 short cases give about 2 results: none, by chance, for another seed.
            case .grammars, .training: return 0
            }
        }
        var salt: UInt64 { UInt64(Kind.allCases.firstIndex(of: self)! + 1) &* 0x9E37_79B9 }
    }

    static let environment = ProcessInfo.processInfo.environment
    static var seed: UInt64 { environment["GLUCOMODEL_PROPERTY_SEED"].flatMap { UInt64($0) } ?? 12 }
    static func cases(_ kind: Kind) -> Int {
        guard let n = environment["GLUCOMODEL_PROPERTY_CASES"].flatMap(Int.init) else { return kind.plan.short }
        return max(1, Int(Double(n) * kind.plan.weight))
    }

    /// Runs `check` on every case of `kind` with its own generator; `check` returns a failure
    /// description or nil. Prints one summary line per kind (the long script collects them).
    static func run(_ kind: Kind, _ check: (inout SplitMix64, Int) throws -> String?) rethrows {
        let n = cases(kind)
        // One trace file per kind (the kinds run in parallel): FILE.<kind> holds its running case.
        let trace = environment["GLUCOMODEL_PROPERTY_TRACE"].flatMap { path -> FileHandle? in
            // Nil (no trace) when the file cannot be made.
            guard FileManager.default.createFile(atPath: "\(path).\(kind.rawValue)", contents: nil) else { return nil }
            return FileHandle(forWritingAtPath: "\(path).\(kind.rawValue)")
        }
        var failures: [String] = []
        let started = Date()
        for i in 0..<n {
            if let trace {
                try? trace.truncate(atOffset: 0)
                trace.write(Data("\(kind.rawValue) seed \(seed) case \(i)\n".utf8))
            }
            var r = SplitMix64(seed: seed &* 0x2545_F491_4F6C_DD1D &+ kind.salt &+ UInt64(i))
            if let failure = try check(&r, i) { failures.append("case \(i): \(failure)") }
        }
        let errors = Tally.errors(kind)
        print("property \(kind.rawValue): \(n) cases (\(n - errors - failures.count) results, \(errors) clear errors), "
              + "\(failures.count) failures, \(String(format: "%.1f", Date().timeIntervalSince(started))) s"
              + (kind == .training ? "; \(Tally.skippedCount) models skipped candidates not finite on the validation days (trapped before #12)" : ""))
        #expect(failures.isEmpty, "\(kind.rawValue) (seed \(seed)): \(failures.prefix(5).joined(separator: "\n"))")
        let results = n - errors - failures.count
        #expect(Double(results) >= kind.leastResults * Double(n), "\(kind.rawValue) (seed \(seed)): \(results) results of \(n) cases")
    }

    static func nonFinite(_ text: String) -> Bool {
        text.range(of: #"(?i)(^|[^a-z])(nan|inf)([^a-z]|$)"#, options: .regularExpression) != nil
    }

    @Test func numbers() {
        let alphabet = Array("0123456789012345678.eE+-x p,nafiINF \t_")
        Self.run(.numbers) { r, _ in
            let text = String((0..<Int.random(in: 0...10, using: &r)).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &r)] })
            for comma in [false, true] {
                guard let v = NumberText.read(text, decimalComma: comma) else { continue }
                guard v.isFinite else { return "'\(text)' read as \(v)" }
                var plain = text.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
                if comma { plain = plain.replacingOccurrences(of: ",", with: ".") }
                guard Double(plain) == v, !plain.lowercased().contains("x"), !plain.lowercased().contains("n") else {
                    return "'\(text)' read as \(v), Double says \(String(describing: Double(plain)))"
                }
            }
            return nil
        }
    }

    @Test func ids() {
        let alphabet = Array("ab09._-/@\\ \u{1B}\u{0}éZ.com")
        Self.run(.ids) { r, _ in
            let text = String((0..<Int.random(in: 0...9, using: &r)).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &r)] })
            guard let id = try? PatientID(text) else { Tally.error(.ids); return nil }
            let s = id.rawValue
            let ok = s != "." && s != ".." && !s.contains("/") && !s.contains("@") && !PatientID.looksLikeEmail(s)
                && s.unicodeScalars.allSatisfy { $0.isASCII && $0.value >= 0x20 } && (s.first!.isLetter || s.first!.isNumber)
            return ok ? nil : "accepted id '\(TerminalText.escaped(s))'"
        }
    }

    @Test func modelFiles() throws {
        var base = SplitMix64(seed: Self.seed)
        let models = (0..<8).map { i -> GlucoseModel in
            var m = DoseFixture.model(PropertyGen.expression(&base), horizon: 30, features: FeatureSet(horizonMinutes: 30))
            if i % 2 == 0 { m.base = .arx; m.arx.coefficients[0] = 1 }
            return m
        }
        let objects = try models.map { try JSONSerialization.jsonObject(with: GlucoseModel.encoder.encode($0)) as! [String: Any] }
        try Self.run(.modelFiles) { r, _ in
            let object = PropertyGen.mutate(objects[Int.random(in: 0..<objects.count, using: &r)], &r)
            var bytes = Array(try JSONSerialization.data(withJSONObject: object, options: [.fragmentsAllowed]))
            if Int.random(in: 0..<4, using: &r) == 0 { bytes = Mutator.mutate(bytes, &r) }
            let model: GlucoseModel
            do { model = try GlucoseModel.decode(Data(bytes), path: "case.json") } catch let error as ModelFileError {
                Tally.error(.modelFiles)
                return error.description.hasPrefix("case.json") ? nil : "error without the file: \(error)"
            } catch { return "not a ModelFileError: \(error)" }
            do { try model.program.check(columns: model.features.names.count) } catch { return "accepted a bad program: \(error)" }
            for _ in 0..<4 {
                let p = model.predict(row: PropertyGen.row(&r, count: model.features.names.count))
                if !p.isNaN, !GlucoseModel.plausibleRange.contains(p) { return "prediction \(p) outside the plausible range" }
            }
            return nil
        }
    }

    @Test func settings() throws {
        let folder = temporaryFolder("property-settings")
        let url = folder.appendingPathComponent("p.json")
        let patient = try PatientID("prop_p")
        try Self.run(.settings) { r, _ in
            try Data(PropertyGen.settingsJSON(&r, patient: patient.rawValue).utf8).write(to: url)
            let settings: DoseSettings
            do { settings = try DoseSettings.load(url) } catch let error as InputError {
                Tally.error(.settings)
                return error.issue.location.file == url.path ? nil : "error without the file: \(error)"
            } catch { return "not an InputError: \(error)" }
            switch settings.checked(for: patient) {
            case let .success(s):
                let values = [s.carbRatio, s.insulinSensitivity, s.target, s.suspendThreshold, s.maxBolus, s.bolusIncrement]
                return values.allSatisfy { $0.isFinite && $0 > 0 } ? nil : "checked settings with \(values)"
            case let .failure(refusal):
                Tally.error(.settings)
                return refusal.description.isEmpty ? "a refusal without a reason" : nil
            }
        }
    }

    @Test func grammars() throws {
        let names = FeatureSet(horizonMinutes: 30).names
        var columns: [[Double]] = []
        for j in 0..<names.count {
            columns.append((0..<64).map { (i: Int) -> Double in Double((i * 7 + j * 13) % 50) - 10 })
        }
        let table = try DataTable<Double>(columns: columns, names: names)
        let target: [Double] = (0..<64).map { Double($0) }
        let fitness = try ErrorFitness<Double>(table: table, target: target, rows: [2..<64])
        try Self.run(.grammars) { r, _ in
            let text = PropertyGen.grammar(&r)
            let grammar: Grammar
            do { grammar = try Grammar(text: text, source: "g.bnf").validated() } catch {
                Tally.error(.grammars)
                return "\(error)".isEmpty ? "an error without a message" : nil
            }
            _ = grammar.unknownNames(VariableNames(names))
            // A grammar none of whose expressions could compile is refused by the mapper, with its line.
            let mapper: Mapper
            do { mapper = try Mapper(grammar: grammar, variables: VariableNames(names)) } catch let GrammarError.invalid(_, report) {
                Tally.error(.grammars)
                return report.errors.allSatisfy { $0.line != nil && !$0.message.isEmpty } ? nil : "a refusal without its line: \(report)"
            }
            for _ in 0..<10 {
                let genome = (0..<Int.random(in: 0...40, using: &r)).map { _ in Genome.Codon(truncatingIfNeeded: r.next() >> 33) }
                guard let program = mapper.map(genome).program else { continue }
                do { try program.check(columns: names.count) } catch { return "mapper made a bad program: \(error)" }
                let error = fitness.errors(of: [program], threads: 1)[0]
                if error.isNaN || error < 0 { return "fitness \(error) for \(program.infix(VariableNames(names)))" }
            }
            return nil
        }
    }

    @Test func dose() throws {
        try Self.run(.dose) { r, _ in
            let glucose = Double(Int.random(in: 40...400, using: &r))
            let models = [30, 60].map { DoseFixture.model(PropertyGen.expression(&r), horizon: $0, features: FeatureSet(horizonMinutes: $0)) }
            // A few mg/dL of noise: a line flat for two hours is refused as a stuck sensor, which made
            // every case a refusal (and the property check nothing) until stop 53 (hunt T).
            var log = DoseFixture.flatLog(glucose: glucose, through: 120)
            for i in log.glucose.indices { log.glucose[i].value = .mgdL(glucose + Double(Int.random(in: -3...3, using: &r))) }
            let suggestion = DoseAdvisor.suggest(log: log, carbs: Double(Int.random(in: 0...150, using: &r)), at: DoseFixture.at(120),
                                                 settings: DoseFixture.checked(), models: DoseFixture.models(models))
            if case .refused = suggestion.decision { Tally.error(.dose) }
            if let units = suggestion.decision.units, !(units.isFinite && units >= 0 && units <= DoseFixture.checked().maxBolus) {
                return "suggested \(units) U"
            }
            let text = suggestion.report + (try suggestion.json())
            return Self.nonFinite(text) ? "non-finite number in the output: \(suggestion.report)" : nil
        }
    }

    @Test func training() throws {
        try Self.run(.training) { r, _ in try Self.trainingCase(&r) }
    }

    /// Cases the long run found, replayed in every run: (seed, case) of `scripts/property-long.sh 120000 1`.
    /// Case 58 trained a model with slope -7.4e47 (a near-constant expression scaled up) that the
    /// model reader then refused.
    @Test func foundCasesStayFixed() throws {
        for (seed, i) in [(UInt64(1), UInt64(58))] {
            var r = SplitMix64(seed: seed &* 0x2545_F491_4F6C_DD1D &+ Kind.training.salt &+ i)
            let failure = try Self.trainingCase(&r)
            #expect(failure == nil, "seed \(seed) case \(i): \(failure ?? "")")
        }
    }

    static func trainingCase(_ r: inout SplitMix64) throws -> String? {
        let (log, traits) = PropertyGen.patient(&r)
        var options = try SyntheticCohort.options(generations: Int.random(in: 0...2, using: &r), population: Int.random(in: 4...12, using: &r))
        options.evolution.seed = r.next()
        options.base = Bool.random(using: &r) ? .arx : .none
        options.fitness = TrainingFitness.allCases[Int.random(in: 0..<TrainingFitness.allCases.count, using: &r)]
        let horizon = [5, 10, 30, 45, 60, 120, 7][Int.random(in: 0..<7, using: &r)]
        options.ensemble = Int.random(in: 1...3, using: &r)
        let grammar = try Grammar(text: options.grammar.text, source: options.grammar.name).validated()
        let trained: TrainedHorizon
        do {
            let trainer = try PatientTrainer(data: SyntheticCohort.data(log), options: options, grammar: grammar)
            trained = try trainer.train(horizon: horizon)
        } catch let error as TrainingError {
            Tally.error(.training)
            return "\(error)".isEmpty ? "an error without a message" : nil
        } catch { return "\(traits) h\(horizon): unexpected \(error)" }
        do { _ = try trained.model.validated(path: "trained") } catch { return "\(traits) h\(horizon): trained an invalid model: \(error)" }
        // The path that trapped before issue #12 (a candidate finite on training, not on validation).
        if trained.model.selection.contains("not finite on the validation days") { Tally.skippedCandidates(.training) }
        let model = String(decoding: try GlucoseModel.encoder.encode(trained.model), as: UTF8.self)
        if Self.nonFinite(model) { return "\(traits) h\(horizon): non-finite number in the model file" }
        if Self.nonFinite(trained.predictionsCSV) { return "\(traits) h\(horizon): non-finite number in the predictions" }
        return nil
    }
}

/// Cases per kind that ended in a clear error (or a refusal) rather than a result.
enum Tally {
    nonisolated(unsafe) private static var counts: [PropertyTests.Kind: Int] = [:]
    private static let lock = NSLock()
    static func error(_ kind: PropertyTests.Kind) { lock.withLock { counts[kind, default: 0] += 1 } }
    static func errors(_ kind: PropertyTests.Kind) -> Int { lock.withLock { counts[kind] ?? 0 } }
    /// Trained models whose selection skipped a candidate (the path that trapped before issue #12).
    nonisolated(unsafe) private static var skipped = 0
    static func skippedCandidates(_ kind: PropertyTests.Kind) { lock.withLock { skipped += 1 } }
    static var skippedCount: Int { lock.withLock { skipped } }
}
