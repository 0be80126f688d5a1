import Foundation
import GrammarEvolution

/// A grammar to train with: the text and the name it is known by.
public struct GrammarSource: Sendable, Hashable {
    public var name: String
    public var text: String

    public init(name: String, text: String) {
        self.name = name
        self.text = text
    }

    /// A grammar shipped with the toolkit (`glucose-directed`, `glucose-symbolic`).
    public static func bundled(_ name: String) throws -> GrammarSource {
        guard let url = Bundle.module.url(forResource: name, withExtension: "bnf", subdirectory: "grammars") else {
            throw TrainingError.unknownGrammar(name, available: bundledGrammarNames)
        }
        return GrammarSource(name: name, text: try String(contentsOf: url, encoding: .utf8))
    }

    public static let bundledGrammarNames = ["glucose-directed", "glucose-symbolic"]

    /// A grammar file of the user's; a bundled grammar's name works too.
    /// - Throws: `TrainingError.unreadableGrammar` with the reason (no such file, a folder, not
    ///   UTF-8 text at a line, permission; a name like a bundled grammar's says which are bundled):
    ///   the reason was not given (hunt BE, stop 61).
    public static func load(_ pathOrName: String) throws -> GrammarSource {
        if bundledGrammarNames.contains(pathOrName) { return try bundled(pathOrName) }
        guard !pathOrName.isEmpty else { throw TrainingError.unreadableGrammar(pathOrName, reason: "an empty path") }
        let url = URL(fileURLWithPath: pathOrName)
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), isFolder.boolValue {
            throw TrainingError.unreadableGrammar(pathOrName, reason: "it is a folder; give a grammar file")
        }
        if let problem = FileOpenError.problem(url) {
            let stem = url.deletingPathExtension().lastPathComponent.lowercased()
            let bundledHint = bundledGrammarNames.contains(stem) && problem.reason == "no such file"
                ? "; the bundled grammars are named without a folder or '.bnf': \(bundledGrammarNames.joined(separator: ", "))" : ""
            throw TrainingError.unreadableGrammar(pathOrName, reason: problem.reason + bundledHint)
        }
        if let line = try? UTF8Check.firstInvalidLine(in: url) {
            throw TrainingError.unreadableGrammar(pathOrName, reason: "not UTF-8 text at line \(line); save the file as UTF-8")
        }
        do {
            return GrammarSource(name: url.lastPathComponent, text: try String(contentsOf: url, encoding: .utf8))
        } catch {
            throw TrainingError.unreadableGrammar(pathOrName, reason: "\(error.localizedDescription)")
        }
    }

    public var hash: String { FNV1a.hex(text) }
}

/// Everything that decides a training run, besides the data.
public struct TrainingOptions: Sendable {
    /// Each horizon once (`distinct`): a cohort run trains one job per patient and horizon, and two
    /// jobs of the same horizon would share, and race for, one checkpoint and one model file.
    public var horizons: [Int] = [30, 60, 90, 120]
    public var grammar: GrammarSource
    public var evolution: EvolutionParameters
    public var fitness: TrainingFitness = .rmse
    public var base: ModelBase = .arx
    public var glucoseLags = 12
    public var series = SeriesOptions()
    /// Share of the days before the test period kept for selecting the final model.
    public var validationFraction = 0.2
    /// Share of the days held out for testing when no OhioT1DM testing file says which.
    public var testFraction = 0.2
    /// Fewest days of training data (before validation) a patient needs.
    public var minimumTrainingDays = 2.0
    /// Candidates from the final population compared on the validation days.
    public var candidates = 20
    /// The most evolved terms a model may hold (multi-gene): after the best single expression is
    /// chosen, candidates are added one at a time, all terms refitted jointly by least squares on
    /// the training rows (`LinearCombination`), while each addition lowers the validation RMSE by
    /// at least `termGain`. 1: a single expression. The default 3 was picked by measurement
    /// (docs/accuracy.md).
    public var terms = TrainingOptions.defaultTerms
    public static let defaultTerms = 3
    /// The most an evolved expression may grow just beyond the training data (`Extrapolation`:
    /// every feature stretched by half its span above its training range) to compete for the model.
    /// Polynomials of degree up to about 11 pass; an exponential of glucose, scaled to nothing
    /// where the training days went and thousands of mg/dL a few mg/dL above, does not
    /// (docs/accuracy.md, "Expressions that explode beyond the training data").
    public static let extrapolationLimit = 100.0
    /// The least relative gain in validation RMSE that admits another term.
    public static let termGain = 0.005
    /// Independent searches whose models are averaged (an ensemble): each evolves its share of
    /// `evolution.populationSize` with its own seed (`EvolutionParameters.member(_:of:)`) and
    /// chooses its model on the validation days, and the model is their mean, stored as one
    /// program. The searches share the population, so the time is that of one search. 1: one
    /// search. The default 3 was picked by measurement (docs/accuracy.md, "Ensembles").
    public var ensemble = TrainingOptions.defaultEnsemble
    public static let defaultEnsemble = 3
    /// Train on CGM readings at the sensor's limits and on flat lines too (`SensorLimitDetector`);
    /// by default they are removed before the series is built, so they neither teach nor grade.
    public var keepSensorLimits = false
    /// The insulin and carbohydrate curves the features carry, the series' own only (`.single`, the
    /// default, and `.singleHeld`) or those and the same amounts through curves at several speeds
    /// (`.multi`, `.multiFree`; `FeatureSet.multiSpeed`), and whether the linear part's weights are
    /// held to their signs (`FeatureSet.weightSigns`: `.singleHeld` and `.multi`). Held, single
    /// predicts as well as free and no longer learns insulin the wrong way round (it mostly gives
    /// insulin no weight: the logs do not separate it from the meal); in the closed-loop trial its
    /// doses gave less time below 54 and 70 summed over two seeds, but more for 11 patient-runs and
    /// less for 7, so free single stays the default (docs/accuracy.md, "Held weights with the
    /// series' own curves").
    public var curves = TrainingOptions.defaultCurves
    /// The ARX fit's ridge weight (`--arx-ridge`): the default, another, or chosen on the
    /// validation days (docs/accuracy.md, "The ARX's ridge").
    public var arxRidge = ARXRidge.fixed(ARXModel.defaultRidge)
    public static let defaultCurves = FeatureCurves.single

    public init(grammar: GrammarSource, evolution: EvolutionParameters = TrainingOptions.defaultEvolution) {
        self.grammar = grammar
        self.evolution = evolution
    }

    /// The default budget: one patient and horizon trains in seconds on two cores.
    public static var defaultEvolution: EvolutionParameters {
        var p = EvolutionParameters()
        p.populationSize = 600
        p.generations = 100
        p.mutationProbability = 0.05
        p.tournamentSize = 5
        p.seed = 1
        return p
    }

    /// Throws when the population cannot be shared by `ensemble` searches of at least 2 each.
    public func checkEnsemble() throws { try Self.checkEnsemble(ensemble, population: evolution.populationSize) }

    /// Throws when `population` cannot be shared by `searches` searches of at least 2 each.
    public static func checkEnsemble(_ searches: Int, population: Int) throws {
        guard searches >= 1, population >= 2 * searches else {
            throw TrainingError.populationTooSmall(population, searches: searches)
        }
    }

    /// The feature set of a model at horizon `h` minutes on a grid of `stepMinutes`.
    public func features(horizonMinutes h: Int, stepMinutes: Int) -> FeatureSet {
        let extra = curves.hasSeveralSpeeds ? FeatureSet.multiSpeed(insulin: series.insulinModel, carbs: series.carbModel)
                                     : (carbs: [], insulin: [])
        return FeatureSet(glucoseLags: glucoseLags, horizonMinutes: h, stepMinutes: stepMinutes,
                          insulin: series.insulinModel, carbs: series.carbModel,
                          carbCurves: extra.carbs, insulinCurves: extra.insulin)
    }

    /// A digest of every setting that shapes a model: a finished model is reused on resume
    /// only when it was trained with the same settings (`FeatureCurves.fingerprintKey`).
    public var fingerprint: String {
        FNV1a.hex([grammar.hash, evolution.fingerprint, "\(evolution.generations)", fitness.rawValue, base.rawValue,
                   "\(glucoseLags)", "\(series.step)", "\(series.maxFilledGap)", "\(series.insulinModel)",
                   "\(series.carbModel)", "\(validationFraction)", "\(testFraction)", "\(candidates)"].joined(separator: "|")
              + (keepSensorLimits ? "|keep-sensor-limits" : "") + (terms != 1 ? "|terms=\(terms)" : "") + curves.fingerprintKey
              + (ensemble != 1 ? "|ensemble=\(ensemble)" : "") + (arxRidge != .fixed(ARXModel.defaultRidge) ? "|arx-ridge=\(arxRidge.text)" : ""))
    }
}

/// Which insulin and carbohydrate curves a model's features carry (`--curves`), and whether the
/// least-squares part holds its weights to their signs (`FeatureSet.weightSigns`).
public enum FeatureCurves: String, CaseIterable, Sendable, Codable {
    /// The series' own curves only (`INS`, `CARB`, ...), the weights free: insulin may be learnt to
    /// raise glucose (docs/accuracy.md, "How the models answer a dose"). Its models advise insulin,
    /// as they did in the closed-loop trials.
    case single
    /// As `single` with the weights held to their signs.
    case singleHeld = "single-held"
    /// Those and `CARB1`... and `INS1`...: the same amounts through curves at several speeds, the
    /// least-squares part's weights held to their signs (`FeatureSet.weightSigns`).
    case multi
    /// As `multi` with the weights free: closer predictions on logs whose boluses come with their
    /// meals, but a meal eaten without insulin may be predicted to lower glucose, so these models
    /// do not advise insulin (`DoseAdvisor`; docs/accuracy.md).
    case multiFree = "multi-free"

    /// Whether the features carry the curves at several speeds.
    public var hasSeveralSpeeds: Bool { self == .multi || self == .multiFree }
    /// Whether the least-squares part holds its weights to `FeatureSet.weightSigns`.
    public var holdsWeightSigns: Bool { self == .singleHeld || self == .multi }

    /// The key in the resume fingerprint. `multi-free` keeps the key `multi` had before its
    /// weights were held, since its fit is that one.
    var fingerprintKey: String {
        switch self {
        case .single: return ""
        case .singleHeld: return "|curves=single-held"
        case .multi: return "|curves=multi-held"
        case .multiFree: return "|curves=multi"
        }
    }
}

/// Why a patient (or a patient's horizon) could not be trained.
public enum TrainingError: Error, CustomStringConvertible, Equatable {
    case unknownGrammar(String, available: [String])
    case unreadableGrammar(String, reason: String)
    case noGlucose(PatientID)
    /// Every reading is at the sensor's limits or in a flat line (`SensorLimitRun`), removed before training.
    case onlySensorLimitRuns(PatientID, readings: Int, runs: Int)
    /// Too few days before the validation period; `leftOut` readings were removed as sensor-limit
    /// runs (a patient at the sensor's floor 4 of 6 days read "1.6 days" without a word of why).
    case tooFewDays(PatientID, have: Double, need: Double, leftOut: Int = 0)
    /// The data's own test period (an OhioT1DM testing file's first record) does not begin after the
    /// data does: there would be no days before it to train on (hunt AP: it was left unsaid, and the
    /// last days were held out instead, the testing file's trained on). `files`: the testing files.
    case testPeriodNotAfterData(PatientID, testStart: Date, dataStart: Date, files: [String])
    case horizonNotOnGrid(horizon: Int, stepMinutes: Int)
    /// Too few rows in a split; `period` is the split's days (a stray record years from the rest
    /// of the data stretches the periods so that the data falls in one of them). `readingMinutes`:
    /// the CGM's interval when the horizon is not a multiple of it (a 15-minute CGM at 20 minutes:
    /// no target ever falls on a reading).
    case tooFewRows(PatientID, horizon: Int, split: String, rows: Int, need: Int, period: DateInterval? = nil, readingMinutes: Int? = nil)
    /// A population too small to share among the ensemble's searches (`TrainingOptions.ensemble`).
    case populationTooSmall(Int, searches: Int)
    /// The grammar names variables the features do not have: grammar, (name, line) pairs, the features.
    case grammarUnknownVariables(String, names: [String], lines: [Int], features: [String], calls: [Bool] = [])
    case grammarUsesLag(String, lines: [Int])

    public var description: String {
        switch self {
        case let .unknownGrammar(name, available):
            return "no bundled grammar '\(name)'; available: \(available.joined(separator: ", ")), or give a file path"
        case let .unreadableGrammar(path, reason): return "cannot read grammar file '\(path)': \(reason)"
        case let .noGlucose(p): return "\(p): no glucose readings; nothing to learn from"
        case let .onlySensorLimitRuns(p, readings, runs):
            return "\(p): all \(readings) glucose readings are in \(runs == 1 ? "a run" : "\(runs) runs") at the sensor's floor or ceiling or flat lines "
                + "(a stuck or failed sensor), which training leaves out; nothing to learn from (--keep-sensor-limits keeps them)"
        case let .tooFewDays(p, have, need, leftOut):
            // Rounded down, so that 1.97 days reads "1.9 ... at least 2.0", not "2.0 ... at least 2.0".
            return "\(p): \(String(format: "%.1f", (have * 10).rounded(.down) / 10)) days of training data; at least \(String(format: "%.1f", need)) needed"
                + (leftOut > 0 ? " (\(Plural.of(leftOut, "reading")) at the sensor's floor or ceiling or in flat lines were left out; "
                    + "--keep-sensor-limits keeps them)" : "")
        case let .testPeriodNotAfterData(p, test, start, files):
            let named = files.isEmpty ? "its testing data" : Plural.list(files)
            return "\(p): the held-out test period (\(named), from \(test.iso8601)) does not begin after the data does (\(start.iso8601)), "
                + "so no day before it is left to train on: a testing file holds the days after the training file's. Check the "
                + "files' names (-ws-training, -ws-testing), or rename the testing file so that the last days are held out"
        case let .horizonNotOnGrid(h, step):
            return "horizon \(h) min is not a positive multiple of the \(step)-minute grid"
        case let .tooFewRows(p, h, split, rows, need, period, readingMinutes):
            if let every = readingMinutes {
                return "\(p) at \(h) min: the CGM records every \(every) minutes, so a target \(h) minutes ahead never falls on a reading "
                    + "(\(Plural.of(rows, "usable \(split) row")), at least \(need) needed); use horizons that are multiples of \(every) minutes"
            }
            let days = period.map { "; the \(split) period runs from \($0.start.iso8601) to \($0.end.iso8601)"
                + ($0.duration > 366 * 86_400 ? " (a stray record far from the rest of the data?)" : "") } ?? ""
            return "\(p) at \(h) min: \(Plural.of(rows, "usable \(split) row")) (glucose with 1 h of history and a measured target); at least \(need) needed" + days
        case let .populationTooSmall(population, searches):
            return "population \(population) shared by \(searches) searches leaves fewer than 2 each; give a population of at least \(2 * max(1, searches)) or fewer searches"
        case let .grammarUnknownVariables(grammar, names, lines, features, calls):
            // At most 10 named: a range (`Q[0..499]`) of unknown names made a message of megabytes.
            func listed(_ items: [(name: String, line: Int)]) -> String {
                items.prefix(10).map { "line \($0.line): '\($0.name)'" }.joined(separator: ", ")
                    + (items.count > 10 ? " and \(items.count - 10) more" : "")
            }
            let all = zip(names, lines).enumerated().map { (i, e) in (name: e.0, line: e.1, call: i < calls.count && calls[i]) }
            let functions = all.filter(\.call).map { ($0.name, $0.line) }, variables = all.filter { !$0.call }.map { ($0.name, $0.line) }
            var parts: [String] = []
            if !variables.isEmpty {
                parts.append("the grammar names variables the data does not have (\(listed(variables))); the variables are \(features.joined(separator: " "))")
                // The curves at several speeds are variables only with those curves (hunt: the
                // list of variables did not say which option gives them).
                let multi = FeatureSet.multiSpeedNames.filter { !features.contains($0) }
                let named = variables.map(\.0).filter(multi.contains)
                if !named.isEmpty {
                    parts.append("\(Plural.list(named)) \(named.count == 1 ? "is a variable" : "are variables") only with --curves multi or "
                                 + "multi-free (the curves at several speeds, \(FeatureSet.multiSpeedRanges))")
                }
            }
            if !functions.isEmpty {
                parts.append("the grammar calls functions the evaluator does not have (\(listed(functions))); the functions are "
                             + Operation.functions.keys.sorted().joined(separator: " ") + " lag")
            }
            return "\(grammar): " + parts.joined(separator: "; ")
        case let .grammarUsesLag(grammar, lines):
            return "\(grammar): the grammar calls lag() (line \(lines.map(String.init).joined(separator: ", "))), which reads the feature "
                + "table's row before; the trainer's rows are not evenly spaced (rows without a glucose at the horizon are left out), so "
                + "no lagged expression can be scored: use the lagged features (G1 ... G11 are glucose 5 ... 55 minutes before)"
        }
    }
}

extension TrainingOptions {
    /// `horizons` with each horizon once, in the order first given (`30,60,30` is 30 and 60).
    public static func distinct(_ horizons: [Int]) -> [Int] {
        var seen = Set<Int>()
        return horizons.filter { seen.insert($0).inserted }
    }
}
