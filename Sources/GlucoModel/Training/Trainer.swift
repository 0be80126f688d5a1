import Foundation
import GrammarEvolution

/// How long each part of training one patient and horizon took (seconds); written as
/// `timings/<patient>-h030.json` (docs/formats.md).
public struct TrainingTimings: Codable, Hashable, Sendable {
    /// The version of the file's fields (docs/formats.md).
    public var version = 1
    /// Grid, features, splits and the ARX fit.
    public var preparation = 0.0
    /// The whole evolutionary run, of which:
    public var evolution = 0.0
    public var mapping = 0.0
    public var variation = 0.0
    public var evaluation = 0.0
    /// Choosing the final model on validation days and scoring every model on every split.
    public var selection = 0.0
    public var trainingRows = 0
    public var generations = 0
}

/// The outcome of training one patient at one horizon.
public struct TrainedHorizon: Sendable {
    public var model: GlucoseModel
    public var results: [ResultRow]
    public var timings: TrainingTimings
    /// Every scored row: when the prediction is issued and the time it is for (`issued_at` + the
    /// horizon, both UTC ISO 8601 as in `predict`'s output), split, measured glucose at the target
    /// time and each model's prediction, mg/dL, as CSV
    /// (`issued_at,target_time,split,reference_mgdl,ge,arx,average,persistence`; docs/formats.md).
    public var predictionsCSV: String
}

/// Trains one patient's models: builds the clean series and the splits once, then one model
/// per horizon.
public struct PatientTrainer: Sendable {
    public let data: PatientData
    public let options: TrainingOptions
    public let grammar: Grammar
    public let series: PatientSeries
    public let splits: DataSplits
    /// The CGM's runs at its limits and flat lines in the patient's data (removed from what the
    /// series is built from unless `options.keepSensorLimits`).
    public let sensorLimitRuns: [SensorLimitRun]

    /// Rows needed per split: a day of training, 4 hours of validation, an hour of test.
    public static let minimumRows = (train: 288, validation: 48, test: 12)

    public init(data: PatientData, options: TrainingOptions, grammar: Grammar) throws {
        try options.checkEnsemble()
        guard !data.log.glucose.isEmpty else { throw TrainingError.noGlucose(data.patient) }
        let runs = SensorLimitDetector().runs(in: data.log.glucose)
        sensorLimitRuns = runs
        var data = data
        var leftOut = 0
        if !options.keepSensorLimits && !runs.isEmpty {
            let readings = data.log.glucose.count
            data.log.glucose.removeAll { $0.source == .cgm && runs.cover($0.time) }
            guard !data.log.glucose.isEmpty else {
                throw TrainingError.onlySensorLimitRuns(data.patient, readings: readings, runs: runs.count)
            }
            leftOut = readings - data.log.glucose.count
        }
        self.data = data
        self.options = options
        self.grammar = grammar
        series = PatientSeries(log: data.log, options: options.series)
        do {
            splits = try DataSplits.make(for: data, series: series, options: options)
        } catch let TrainingError.tooFewDays(p, have, need, _) where leftOut > 0 {
            throw TrainingError.tooFewDays(p, have: have, need: need, leftOut: leftOut)
        }
    }

    /// Evolves the model for horizon `h` minutes, selects it on the validation days and
    /// scores it and the baselines on every split.
    /// - Parameters:
    ///   - checkpoint: where to checkpoint the run (and resume it from, if present).
    ///   - threads: threads for fitness evaluation (results do not depend on it).
    public func train(horizon h: Int, threads: Int = 1, checkpoint: URL? = nil,
                      statistics: URL? = nil,
                      progress: (@Sendable (_ search: Int, GenerationStatistics) -> Void)? = nil) throws -> TrainedHorizon {
        var timings = TrainingTimings()
        let clock = ContinuousClock()
        let start = clock.now
        let (features, table, ranges) = try rows(horizon: h)
        let stepMinutes = Int(series.step / 60)
        let signs = options.curves.holdsWeightSigns ? features.weightSigns : nil
        let arx: ARXModel
        switch options.arxRidge {
        case let .fixed(ridge): arx = try ARXModel.fit(table.rows(ranges.train), ridge: ridge, signs: signs)
        case .auto: arx = try ARXModel.fit(table.rows(ranges.train), choosingRidgeOn: table.rows(ranges.validation), signs: signs)
        }
        let linear = arx.linearValues(table)
        let residual = options.base == .arx ? zip(table.targets, linear).map { $0 - $1 } : table.targets
        timings.preparation = seconds(clock.now - start)
        timings.trainingRows = ranges.train.count

        let dataTable = try DataTable<Double>(columns: table.columns, names: table.names)
        let scaling = try ErrorFitness(table: dataTable, target: residual, rows: [ranges.train], metric: .rmse)
        let fitness: any FitnessEvaluator
        switch options.fitness {
        case .rmse, .nsga2: fitness = scaling
        case .mae: fitness = try ErrorFitness(table: dataTable, target: residual, rows: [ranges.train], metric: .mae)
        case .clarke:
            fitness = ClarkeWeightedFitness(scaling: scaling, base: options.base == .arx ? Array(linear[ranges.train]) : nil,
                                            references: Array(table.targets[ranges.train]))
        }
        let validation = try ErrorFitness(table: dataTable, target: residual, rows: [ranges.validation], metric: .rmse)
        let seeds: [Seed] = options.base == .none ? [.phenotype(arx.infix)] : []
        // An ensemble (`options.ensemble`): independent searches sharing the population, each with
        // its own seed, checkpoint and statistics, each choosing its model on the validation days.
        let searches = options.ensemble
        var choices: [Choice] = []
        var selectionTime = Duration.zero
        let extrapolation = Extrapolation(table: dataTable, rows: ranges.train)
        // A checkpoint resumes only the run it was written by: the same options and the same data
        // (not: more days in the export since a killed run, another --fitness or --curves, ...).
        // More generations continue the same search (fewer than the checkpoint's: the engine's
        // `checkpointMismatch`), so they are left out.
        var resumable = options
        resumable.evolution.generations = 0
        let rowsFingerprint = Self.dataFingerprint(table, ranges: ranges)
        let context = resumable.fingerprint + "|data=" + rowsFingerprint
        for k in 0..<searches {
            var parameters = options.evolution.member(k, of: searches)
            parameters.threads = threads
            if options.fitness == .nsga2 { parameters.selection = .nsga2 }
            let memberCheckpoint = checkpoint.map { Self.searchURL($0, search: k) }
            let evolution = try Evolution(
                grammar: grammar, variables: VariableNames(table.names), fitness: fitness, validation: validation,
                parameters: parameters, seeds: seeds,
                outputs: EvolutionOutputs(statisticsURL: statistics.map { Self.searchURL($0, search: k) },
                                          checkpointURL: memberCheckpoint, checkpointInterval: 5, checkpointContext: context))
            let resume = memberCheckpoint.flatMap { FileManager.default.fileExists(atPath: $0.path) ? $0 : nil }
            let evolved = clock.now
            let report = progress.map { report in { (s: GenerationStatistics) in report(k, s) } }
            let result: EvolutionResult
            do {
                result = try evolution.run(resumingFrom: resume, progress: report)
            } catch let error as EvolutionError where resume != nil {
                // A checkpoint only saves time. One that cannot be read (a disk that filled while
                // it was written, a hand edit) or was written by a run with other options or data
                // starts the search afresh: the model is the one a fresh run of this command trains.
                switch error {
                case .checkpointUnreadable, .checkpointMismatch: result = try evolution.run(resumingFrom: nil, progress: report)
                default: throw error
                }
            }
            timings.evolution += seconds(clock.now - evolved)
            timings.generations += result.statistics.count
            for s in result.statistics {
                timings.mapping += s.mappingSeconds
                timings.variation += s.variationSeconds
                timings.evaluation += s.evaluationSeconds
            }
            let selected = clock.now
            choices.append(try select(result, dataTable: dataTable, residual: residual, linear: linear,
                                      targets: table.targets, ranges: ranges, scaling: scaling, extrapolation: extrapolation))
            selectionTime += clock.now - selected
        }

        let selected = clock.now
        let choice = Self.mean(of: choices, population: options.evolution.populationSize)
        var model = GlucoseModel(
            patient: data.patient, horizonMinutes: h, features: features, base: options.base, arx: arx,
            expression: choice.program.infix(VariableNames(table.names)), program: choice.program,
            intercept: choice.intercept, slope: choice.slope, selection: choice.note,
            grammar: GrammarReference(name: options.grammar.name, hash: options.grammar.hash),
            seed: options.evolution.seed, evolution: options.evolution, fitness: options.fitness,
            settings: options.fingerprint,
            training: TrainingWindow(trainFrom: splits.start, trainTo: splits.validationStart,
                                     validationFrom: splits.validationStart, validationTo: splits.testStart,
                                     testFrom: splits.testStart, testTo: splits.end),
            metrics: [])
        if searches > 1 { model.searches = searches }
        model.data = rowsFingerprint
        model.evolvedRange = model.evolvedValues(table, rows: [ranges.train, ranges.validation])
        // No basal and no bolus go without saying when there is no insulin at all (CGM-only files
        // stay as they were).
        let absent = PatientLog.RecordInputs.allCases
            .filter { !$0.isSignal && !data.log.has($0) && (!$0.isPartOfInsulin || data.log.has(.insulin))
                && (!$0.isPartOfBasal || data.log.has(.basal)) }
            .map(\.rawValue)
        if !absent.isEmpty { model.absentRecords = absent }
        model.absentSignals = PatientLog.RecordInputs.allCases.filter { $0.isSignal && !data.log.has($0) }.map(\.rawValue)
        let kinds = ModelKind.allCases
        let predictions: [[Double]] = kinds.map { kind in
            switch kind {
            case .ge: return model.predict(table)
            case .arx: return arx.predict(table)
            case .average: return averagePredictions(table, series: series)
            case .persistence: return persistencePredictions(table)
            }
        }
        // Split-conformal intervals from the validation days' residuals, each band of the glucose at
        // the moment of prediction (G0) scaled by its training days' mean absolute error (normalised
        // conformal; per band alone where the training residuals give no scales); scored on every split.
        let current = table.columns[features.names.firstIndex(of: "G0")!]
        let ge = predictions[kinds.firstIndex(of: .ge)!]
        let calibration = (current: Array(current[ranges.validation]), ge: Array(ge[ranges.validation]),
                          reference: Array(table.targets[ranges.validation]))
        if let scales = PredictionIntervals.scales(current: Array(current[ranges.train]), predictions: Array(ge[ranges.train]),
                                                   references: Array(table.targets[ranges.train])) {
            model.intervals = PredictionIntervals(current: calibration.current, predictions: calibration.ge,
                                                  references: calibration.reference, scales: scales)
            if model.intervals != nil {
                model.intervals?.adaptation = .standard(scores: PredictionIntervals.scaledScores(
                    current: calibration.current, predictions: calibration.ge, references: calibration.reference, scales: scales))
            }
        } else {
            model.intervals = PredictionIntervals(current: calibration.current, predictions: calibration.ge,
                                                  references: calibration.reference)
        }
        // The intervals `predict` writes, row by row (adaptive: each row's from the day of rows before it).
        let halfWidths = model.intervals?.halfWidths(table, series: series, current: Array(current), predictions: ge,
                                                     targets: 0..<table.rowCount, horizonMinutes: h)
        for (split, range) in [("train", ranges.train), ("validation", ranges.validation), ("test", ranges.test)]
        where !range.isEmpty {
            for (kind, values) in zip(kinds, predictions) {
                var metrics = SplitMetrics(model: kind.rawValue, split: split, references: Array(table.targets[range]),
                                           predictions: Array(values[range]))
                metrics.record(HypoAlarmScore(predictions: Array(values[range]), steps: Array(table.steps[range]),
                                              glucose: series.glucose, stepMinutes: stepMinutes, horizonMinutes: h))
                if kind == .ge, let halfWidths {
                    metrics.record(PredictionIntervals.score(current: Array(current[range]), predictions: Array(values[range]),
                                                             references: Array(table.targets[range]), halfWidths: Array(halfWidths[range])))
                    let lower = range.map { PredictionIntervals.interval(prediction: values[$0], halfWidths: halfWidths[$0]).lower80 }
                    metrics.record(HypoAlarmScore(predictions: lower, steps: Array(table.steps[range]), glucose: series.glucose,
                                                  stepMinutes: stepMinutes, horizonMinutes: h), lowerBound: true)
                }
                model.metrics.append(metrics)
            }
        }
        timings.selection = seconds(clock.now - selected + selectionTime)
        let rows = model.metrics.map { ResultRow(patient: data.patient, horizonMinutes: h, metrics: $0) }
        var csv = "issued_at,target_time,split,reference_mgdl," + kinds.map(\.rawValue).joined(separator: ",") + "\n"
        for (split, range) in [("train", ranges.train), ("validation", ranges.validation), ("test", ranges.test)] {
            for r in range {
                let values = predictions.map { String(format: "%.2f", $0[r]) }
                let issued = series.time(at: table.steps[r])
                // The shortest text of the reference to 0.01 mg/dL: a grid value interpolated between
                // 3-minute readings wrote float noise (153.89999999999998).
                let reference = (table.targets[r] * 100).rounded() / 100
                csv += "\(issued.iso8601),\(issued.addingTimeInterval(Double(h) * 60).iso8601),\(split),\(reference),\(values.joined(separator: ","))\n"
            }
        }
        return TrainedHorizon(model: model, results: rows, timings: timings, predictionsCSV: csv)
    }

    struct Ranges { var train: Range<Int>, validation: Range<Int>, test: Range<Int> }

    /// The features, feature table and split rows of horizon `h` minutes.
    func rows(horizon h: Int) throws -> (FeatureSet, FeatureTable, Ranges) {
        let stepMinutes = Int(series.step / 60)
        guard h > 0, stepMinutes > 0, h % stepMinutes == 0 else {
            throw TrainingError.horizonNotOnGrid(horizon: h, stepMinutes: stepMinutes)
        }
        let features = options.features(horizonMinutes: h, stepMinutes: stepMinutes)
        let table = features.table(series, steps: 0..<series.count, requireTarget: true)
        return (features, table, try splitRows(table, horizon: h))
    }

    /// The fingerprint of the rows horizon `h`'s model is fitted, chosen and scored on
    /// (`GlucoseModel.data`): a finished model is reused only when its data give the same.
    public func dataFingerprint(horizon h: Int) throws -> String {
        let (_, table, ranges) = try rows(horizon: h)
        return Self.dataFingerprint(table, ranges: ranges)
    }

    /// A fingerprint of the rows a search is fitted and chosen on: every feature value and target,
    /// and the split (FNV-1a over their bits).
    static func dataFingerprint(_ table: FeatureTable, ranges: Ranges) -> String {
        var h = FNV1a()
        for column in table.columns { h.add(UInt64(column.count)); column.forEach { h.add($0.bitPattern) } }
        table.targets.forEach { h.add($0.bitPattern) }
        for range in [ranges.train, ranges.validation, ranges.test] { h.add(UInt64(range.lowerBound)); h.add(UInt64(range.upperBound)) }
        return h.hex
    }

    /// Where search `k` of an ensemble keeps its checkpoint or statistics: search 0 at `url`, the
    /// others beside it (`adult_001-h030.json`, `adult_001-h030-s2.json`, ...).
    public static func searchURL(_ url: URL, search k: Int) -> URL {
        guard k > 0 else { return url }
        let ext = url.pathExtension
        return url.deletingPathExtension().deletingLastPathComponent()
            .appendingPathComponent("\(url.deletingPathExtension().lastPathComponent)-s\(k + 1)").appendingPathExtension(ext)
    }

    /// The ensemble's model: the mean of its searches' models (each `intercept + slope * program`
    /// on the base), as one program, intercept and slope 1; one search's choice as it is.
    static func mean(of choices: [Choice], population: Int) -> Choice {
        guard choices.count > 1 else { return choices[0] }
        let n = Double(choices.count)
        let intercept = choices.map(\.intercept).reduce(0, +) / n
        let evolved = choices.filter { $0.slope != 0 }
        let each = choices.enumerated().map { "\($0 + 1)) \($1.note)" }.joined(separator: "; ")
        let note = "mean of \(choices.count) searches sharing population \(population): " + each
        guard !evolved.isEmpty else {
            return Choice(program: Program(instructions: [.constant(0)]), intercept: intercept, slope: 0, note: note)
        }
        let program = LinearCombination.program(evolved.map(\.program), coefficients: evolved.map { $0.slope / n }).simplified()
        return Choice(program: program, intercept: intercept, slope: 1, note: note)
    }

    /// Multi-gene: from the chosen single expression (or the base alone), adds the candidate whose
    /// joint least-squares fit on the training rows (`LinearCombination`) lowers the validation
    /// RMSE most, while it lowers it by at least `TrainingOptions.termGain`, up to `options.terms`
    /// terms. The sum is stored as one program with intercept `c0` and slope 1.
    func multiTerm(from single: (choice: Choice, error: Double), candidates: [Program], dataTable: DataTable<Double>,
                   residual: [Double], ranges: Ranges, validation: ErrorFitness<Double>,
                   rmse: (Double, Double, [Double]?) -> Double) throws -> (choice: Choice, error: Double) {
        let training = try ErrorFitness(table: dataTable, target: residual, rows: [ranges.train], linearScaling: false)
        let target = Array(residual[ranges.train])
        let limit = GlucoseModel.coefficientLimit
        var pool: [(program: Program, train: [Double], validation: [Double])] = []
        for program in candidates {
            let t = training.predict(program).values, v = validation.predict(program).values
            guard t.allSatisfy(\.isFinite), v.allSatisfy(\.isFinite), !pool.contains(where: { $0.program == program }) else { continue }
            pool.append((program, t, v))
        }
        var chosen: [Int] = single.choice.slope == 0 ? [] : pool.indices.filter { pool[$0].program.simplified() == single.choice.program }.prefix(1).map { $0 }
        if single.choice.slope != 0, chosen.isEmpty { return single }
        var best = single, fitted: (intercept: Double, coefficients: [Double])?
        while chosen.count < options.terms {
            var step: (index: Int, error: Double, fit: (intercept: Double, coefficients: [Double]))?
            for i in pool.indices where !chosen.contains(i) {
                let terms = chosen + [i]
                guard let fit = LinearCombination.fit(terms.map { pool[$0].train }, target: target),
                      fit.intercept.magnitude <= limit, fit.coefficients.allSatisfy({ $0.magnitude <= limit }) else { continue }
                var sum = [Double](repeating: 0, count: pool[i].validation.count)
                for (k, term) in terms.enumerated() {
                    for r in sum.indices { sum[r] += fit.coefficients[k] * pool[term].validation[r] }
                }
                let error = rmse(fit.intercept, 1, sum)
                if error.isFinite, step == nil || error < step!.error { step = (i, error, fit) }
            }
            guard let step, step.error < best.error * (1 - TrainingOptions.termGain) else { break }
            chosen.append(step.index)
            fitted = step.fit
            best.error = step.error
        }
        guard let fitted, chosen.count >= 2 else { return single }
        let program = LinearCombination.program(chosen.map { pool[$0].program }, coefficients: fitted.coefficients).simplified()
        return (Choice(program: program, intercept: fitted.intercept, slope: 1,
                       note: "evolved: \(chosen.count) terms fitted jointly by least squares, chosen by validation RMSE"), best.error)
    }

    /// Row ranges of each split. A row belongs to the split its moment falls in, and a
    /// training or validation row whose target lies in the next split is left out.
    func splitRows(_ table: FeatureTable, horizon h: Int) throws -> Ranges {
        let time = { (r: Int) in self.series.time(at: table.steps[r]) }
        let ahead = Double(h) * 60
        let n = table.rowCount
        func first(_ p: (Int) -> Bool) -> Int { (0..<n).first(where: p) ?? n }
        let trainEnd = first { time($0).addingTimeInterval(ahead) >= splits.validationStart }
        let validationStart = first { time($0) >= splits.validationStart }
        let validationEnd = max(validationStart, first { time($0).addingTimeInterval(ahead) >= splits.testStart })
        let testStart = first { time($0) >= splits.testStart }
        let need = PatientTrainer.minimumRows
        // A test period with too few usable rows (e.g. every reading at the sensor's floor) is not
        // scored, rather than failing the patient: the model is still trained and selected, and its
        // test rows are simply absent from the metrics and results.csv.
        let test = n - testStart >= need.test ? testStart..<n : n..<n
        let ranges = Ranges(train: 0..<trainEnd, validation: validationStart..<validationEnd, test: test)
        let periods = [DateInterval(start: splits.start, end: max(splits.start, splits.validationStart)),
                       DateInterval(start: splits.validationStart, end: max(splits.validationStart, splits.testStart))]
        for (name, range, minimum, period) in [("training", ranges.train, need.train, periods[0]),
                                               ("validation", ranges.validation, need.validation, periods[1])]
        where range.count < minimum {
            let every = series.readingSteps.map { $0 * Int(series.step / 60) }
            throw TrainingError.tooFewRows(data.patient, horizon: h, split: name, rows: range.count, need: minimum, period: period,
                                           readingMinutes: every.flatMap { h % $0 == 0 ? nil : $0 })
        }
        return ranges
    }

    struct Choice { var program: Program, intercept: Double, slope: Double, note: String }

    /// The final model: of the best distinct programs of the last population (and the Pareto
    /// front), the one whose scaled predictions have the lowest RMSE on the validation days;
    /// with an ARX base, the base alone competes too. A program that grows more than
    /// `TrainingOptions.extrapolationLimit`-fold just beyond the training rows (`Extrapolation`)
    /// does not compete.
    func select(_ result: EvolutionResult, dataTable: DataTable<Double>, residual: [Double], linear: [Double],
                targets: [Double], ranges: Ranges, scaling: ErrorFitness<Double>,
                extrapolation: Extrapolation) throws -> Choice {
        var seen = Set<Program>()
        let ranked = ([result.best] + result.paretoFront + result.population.sorted { $0.fitness < $1.fitness })
            .compactMap(\.program).filter { seen.insert($0).inserted }
        let candidates = ranked.prefix(max(1, options.candidates))
        let wild = Set(candidates.filter { !(extrapolation.growth(of: $0) <= TrainingOptions.extrapolationLimit) })
        let raw = try ErrorFitness(table: dataTable, target: residual, rows: [ranges.validation], linearScaling: false)
        let base = options.base == .arx ? Array(linear[ranges.validation]) : nil
        let y = Array(targets[ranges.validation])
        func rmse(_ intercept: Double, _ slope: Double, _ f: [Double]?) -> Double {
            var sum = 0.0
            for i in y.indices {
                var p = (base?[i] ?? 0) + intercept
                if let f { p += slope * f[i] }
                let e = GlucoseModel.clamp(p) - y[i]
                sum += e * e
            }
            let value = (sum / Double(max(1, y.count))).squareRoot()
            return value.isFinite ? value : .infinity
        }
        var best: (choice: Choice, error: Double)?
        if options.base == .arx {
            // With no candidate at all the search never had an expression to compare (hunt BE, stop 61).
            let note = candidates.isEmpty ? "base only: the search made no valid expression (every genome mapped to nothing or failed to compile)"
                : "base only: no evolved expression beat ARX on the validation days"
            best = (Choice(program: Program(instructions: [.constant(0)]), intercept: 0, slope: 0, note: note), rmse(0, 0, nil))
        }
        // A candidate whose training fit is finite may still overflow on the validation days;
        // it cannot be scored there, so it is skipped (and counted in the model's note).
        var nonFinite = 0, oversized = 0
        for (rank, program) in candidates.enumerated() where !wild.contains(program) {
            let fit = scaling.predict(program)
            guard fit.error.isFinite, fit.intercept.isFinite, fit.slope.isFinite else { continue }
            // A scaling beyond what a model file may hold (a near-constant expression blown up)
            // would be written and then refused when read: skipped like a non-finite one.
            let limit = GlucoseModel.coefficientLimit
            guard fit.intercept.magnitude <= limit, fit.slope.magnitude <= limit else { oversized += 1; continue }
            let values = raw.predict(program).values
            guard values.count == y.count, values.allSatisfy(\.isFinite) else { nonFinite += 1; continue }
            let error = rmse(fit.intercept, fit.slope, values)
            guard error.isFinite else { nonFinite += 1; continue }
            if best == nil || error < best!.error {
                best = (Choice(program: program.simplified(), intercept: fit.intercept, slope: fit.slope,
                               note: "evolved: candidate \(rank + 1) of \(candidates.count) by validation RMSE"), error)
            }
        }
        if options.terms > 1, let single = best {
            best = try multiTerm(from: single, candidates: candidates.filter { !wild.contains($0) }, dataTable: dataTable, residual: residual,
                                 ranges: ranges, validation: raw, rmse: rmse)
        }
        if var chosen = best {
            if nonFinite > 0 { chosen.choice.note += "; \(nonFinite) candidate(s) skipped: not finite on the validation days" }
            if oversized > 0 { chosen.choice.note += "; \(oversized) candidate(s) skipped: scaling beyond ±\(GlucoseModel.coefficientLimit)" }
            if !wild.isEmpty {
                chosen.choice.note += "; \(wild.count) candidate(s) skipped: growing more than \(Int(TrainingOptions.extrapolationLimit))-fold just beyond the training data"
            }
            best = chosen
        }
        guard let best else {
            return Choice(program: Program(instructions: [.constant(0)]), intercept: residual[ranges.train].reduce(0, +)
                / Double(ranges.train.count), slope: 0, note: "no valid evolved expression; mean of the training targets")
        }
        return best.choice
    }

    private func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
    }
}
