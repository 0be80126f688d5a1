import Foundation
import Testing
@testable import GlucoModel

/// Split-conformal intervals (uncertainty.md): the rank `ceil((n + 1)(1 - alpha))`, the small-n
/// edge, the glucose bands, coverage on exchangeable data, and the model file's checks.
struct PredictionIntervalsTests {
    @Test func quantileIsTheConformalRank() {
        // |r| sorted: 1 1 2 3 3 4 5 5 6 9 (n = 10). 80%: ceil(11 * 0.8) = ceil(8.8) = 9 -> 6.
        // 95%: ceil(11 * 0.95) = ceil(10.45) = 11 > 10 -> no finite interval.
        let r: [Double] = [3, -1, 4, -1, 5, 9, -2, 6, 5, 3]
        #expect(PredictionIntervals.quantile(r, percent: 80) == 6)
        #expect(PredictionIntervals.quantile(r, percent: 95) == nil)
        // n = 4, 80%: (n + 1) * 0.8 = 4 exactly, rank 4 (the largest), not 5.
        #expect(PredictionIntervals.quantile([1, 2, 3, 4], percent: 80) == 4)
        // n = 19 is the smallest n with a finite 95% interval: rank ceil(20 * 0.95) = 19.
        let nineteen = (1...19).map(Double.init)
        #expect(PredictionIntervals.quantile(nineteen, percent: 95) == 19)
        #expect(PredictionIntervals.quantile(Array(nineteen.dropLast()), percent: 95) == nil)
        #expect(PredictionIntervals.quantile([], percent: 80) == nil)
        #expect(PredictionIntervals.quantile([1, .nan, 2, 3, 4], percent: 50) == nil)
    }

    @Test func tooFewCalibrationRowsGiveNoIntervals() {
        let rows = (0..<18).map(Double.init)
        #expect(PredictionIntervals(current: rows.map { _ in 120 }, predictions: rows, references: rows.map { $0 + 1 }) == nil)
        let more = (0..<19).map(Double.init)
        let intervals = PredictionIntervals(current: more.map { _ in 120 }, predictions: more, references: more.map { $0 + 1 })
        #expect(intervals?.bands.map(\.halfWidth95) == [1, 1, 1])
    }

    @Test func bandsWithEnoughRowsGetTheirOwnHalfWidths() throws {
        // 60 rows at 120 mg/dL with errors 1...60 (own band); 10 rows at 60 mg/dL with error 100
        // (too few: pooled); none above 180 (pooled). Pooled n = 70.
        var current: [Double] = [], predictions: [Double] = [], references: [Double] = []
        for e in 1...60 { current.append(120); predictions.append(150); references.append(150 + Double(e)) }
        for _ in 0..<10 { current.append(60); predictions.append(80); references.append(180) }
        let intervals = try #require(PredictionIntervals(current: current, predictions: predictions, references: references))
        let middle = intervals.bands[1]
        // Own band: 80% rank ceil(61 * 0.8) = 49 -> 49; 95% rank ceil(61 * 0.95) = 58 -> 58.
        #expect(middle == .init(glucoseFrom: 70, glucoseTo: 180, n: 60, pooled: false, halfWidth80: 49, halfWidth95: 58))
        // Pooled, sorted |r|: 1...60 then ten 100s. 80%: rank ceil(71 * 0.8) = 57 -> 57;
        // 95%: rank ceil(71 * 0.95) = 68 -> 100.
        #expect(intervals.bands[0] == .init(glucoseFrom: nil, glucoseTo: 70, n: 70, pooled: true, halfWidth80: 57, halfWidth95: 100))
        #expect(intervals.bands[2].pooled && intervals.bands[2].glucoseFrom == 180 && intervals.bands[2].glucoseTo == nil)
        // A prediction at 120 now: 150 ± 49 / ± 58; at 60 now: 80 ± 57 / 80 - 100 clamped to 10.
        let i = intervals.interval(prediction: 150, current: 120)
        #expect(i.lower80 == 101 && i.upper80 == 199 && i.lower95 == 92 && i.upper95 == 208)
        let low = intervals.interval(prediction: 80, current: 60)
        #expect(low.lower80 == 23 && low.upper80 == 137 && low.lower95 == 10 && low.upper95 == 180)
        // The edges belong to the band above: 70 and 180 are not "< 70" / "< 180".
        #expect(PredictionIntervals.band(of: 69.99) == 0 && PredictionIntervals.band(of: 70) == 1 && PredictionIntervals.band(of: 180) == 2)
    }

    @Test func coverageIsCountedPerBandOfTheGlucoseNow() throws {
        // The intervals of the test above: 70-180 now: ± 49 / ± 58; below 70 and from 180: pooled ± 57 / ± 100.
        var current: [Double] = [], predictions: [Double] = [], references: [Double] = []
        for e in 1...60 { current.append(120); predictions.append(150); references.append(150 + Double(e)) }
        for _ in 0..<10 { current.append(60); predictions.append(80); references.append(180) }
        let intervals = try #require(PredictionIntervals(current: current, predictions: predictions, references: references))
        // 120 now, 150 predicted: errors 40 (in both), 55 (95% only), 70 (neither); 60 now, 80
        // predicted, 100 measured (both); 200 now, 150 predicted and measured (both); a NaN reference is skipped.
        let score = intervals.score(current: [120, 120, 120, 60, 200, 200], predictions: [150, 150, 150, 80, 150, 150],
                                    references: [190, 205, 220, 100, 150, .nan])
        #expect(score.n == 5 && score.coverage80 == 60 && score.coverage95 == 80)
        #expect(score.bands.map(\.n) == [1, 3, 1])
        #expect(score.bands[1].coverage80 == 100.0 / 3 && score.bands[1].coverage95 == 200.0 / 3)
        #expect(score.bands[0].coverage80 == 100 && score.bands[2].coverage95 == 100)
        var metrics = SplitMetrics(model: "ge", split: "test", references: [190], predictions: [150])
        metrics.record(score)
        #expect(metrics.rows70To180 == 3 && metrics.coverage95In70To180 == 200.0 / 3 && metrics.rowsBelow70 == 1)
        let line = ResultRow(patient: try PatientID("p1"), horizonMinutes: 30, metrics: metrics).csvLine
        // Then the interval scores, width + (2 / alpha) distance outside, by hand: 80% [101, 199]
        // (98) for 190, 205, 220: 98, 98 + 10 * 6, 98 + 10 * 21; [23, 137] for 100: 114; [93, 207]
        // for 150: 114: 792 / 5 = 158.4. 95% [92, 208] (116): 116, 116, 116 + 40 * 12; [10, 180]
        // (clamped at 10): 170; [50, 250]: 200: 1198 / 5 = 239.6.
        #expect(line.hasSuffix(",1,100.000,100.000,3,33.333,66.667,1,100.000,100.000,158.400,239.600"))
        // No rows in a band: its fields stay empty.
        let none = intervals.score(current: [120], predictions: [150], references: [150])
        var empty = SplitMetrics(model: "ge", split: "test", references: [150], predictions: [150])
        empty.record(none)
        #expect(empty.rowsBelow70 == nil && empty.coverage80Below70 == nil && empty.rows70To180 == 1)
    }

    @Test func coverageOnExchangeableDataIsNominal() throws {
        // Exchangeable errors (seeded Gaussian): with n = 99 calibration rows, the expected coverage
        // of a new row is exactly rank / (n + 1) = 80/100 and 95/100. Averaged over 400 repetitions of
        // 100 test rows, the standard error is about 0.3 points; allow 4 of them.
        var rng = SplitMix64(seed: 11)
        var covered80 = 0.0, covered95 = 0.0, n = 0.0
        for _ in 0..<400 {
            let calibration = (0..<99).map { _ in rng.gaussian() * 20 }
            let intervals = try #require(PredictionIntervals(current: calibration.map { _ in 120 }, predictions: calibration.map { _ in 0 },
                                                             references: calibration))
            let test = (0..<100).map { _ in rng.gaussian() * 20 }
            let score = intervals.score(current: test.map { _ in 120 }, predictions: test.map { _ in 100 }, references: test.map { 100 + $0 })
            covered80 += score.coverage80; covered95 += score.coverage95; n += 1
        }
        #expect(abs(covered80 / n - 80) < 1.3, "\(covered80 / n)")
        #expect(abs(covered95 / n - 95) < 0.9, "\(covered95 / n)")
    }

    @Test func modelFilesCheckTheirIntervals() throws {
        var model = ModelFileValidationTests.model()
        let rows = (0..<40).map(Double.init)
        model.intervals = PredictionIntervals(current: rows.map { _ in 120 }, predictions: rows, references: rows.map { $0 * 1.1 })
        let data = try GlucoseModel.encoder.encode(model)
        #expect(try GlucoseModel.decode(data, path: "m.json").intervals == model.intervals)
        // A 95% half-width below the 80% one, a negative or non-finite one, or missing bands: refused by name.
        let edits: [((inout GlucoseModel) -> Void, String)] = [
            ({ m in m.intervals!.bands[1].halfWidth80 = 1; m.intervals!.bands[1].halfWidth95 = 0.5 }, "intervals.bands[1].halfWidth95"),
            ({ m in m.intervals!.bands[0].halfWidth80 = -1 }, "intervals.bands[0].halfWidth80"),
            ({ m in m.intervals!.bands.removeLast() }, "intervals.bands"),
        ]
        for (edit, field) in edits {
            var bad = model
            edit(&bad)
            #expect {
                try GlucoseModel.decode(try GlucoseModel.encoder.encode(bad), path: "m.json")
            } throws: { "\($0)".contains("m.json") && "\($0)".contains(field) }
        }
        // A file without intervals (written before them) still reads.
        model.intervals = nil
        #expect(try GlucoseModel.decode(try GlucoseModel.encoder.encode(model), path: "m.json").intervals == nil)
    }
}

extension PredictionIntervalsTests {
    @Test func predictionsCarryTheIntervalOfTheGlucoseNow() throws {
        // Calibration: 40 rows at 180 mg/dL with errors 1...40 (fewer than 50: pooled everywhere).
        // 80%: rank ceil(41 * 0.8) = 33 -> 33; 95%: rank ceil(41 * 0.95) = 39 -> 39.
        var model = DoseFixture.model("G0 + 5", horizon: 30, features: FeatureSet(horizonMinutes: 30))
        let errors = (1...40).map(Double.init)
        model.intervals = PredictionIntervals(current: errors.map { _ in 180 }, predictions: errors.map { _ in 100 },
                                              references: errors.map { 100 + $0 })
        #expect(model.intervals?.bands[2] == .init(glucoseFrom: 180, glucoseTo: nil, n: 40, pooled: true, halfWidth80: 33, halfWidth95: 39))
        let rows = try Predictor(models: DoseFixture.models([model])).predict(DoseFixture.flatLog(glucose: 180))
        let ge = try #require(rows.first { $0.model == "ge" })
        #expect(ge.prediction == 185)
        #expect(ge.bounds == PredictionBounds(lower80: 152, upper80: 218, lower95: 146, upper95: 224))
        #expect(ge.csvLine(units: .mgdL, intervals: true).hasSuffix(",ge,185.0,180.0,152.0,218.0,146.0,224.0"))
        #expect(ge.csvLine(units: .mgdL, intervals: false) == ge.csvLine)
        let arx = try #require(rows.first { $0.model == "arx" })
        #expect(arx.bounds == nil && arx.csvLine(units: .mgdL, intervals: true).hasSuffix(",,,,"))
        #expect(PredictionRow.csvHeader(units: .mmolL, intervals: true).hasSuffix("prediction_mmoll,reference_mmoll,lower_80,upper_80,lower_95,upper_95"))
    }
}

extension SplitMix64 {
    /// A standard normal draw (Box-Muller) from the fuzz harness's seeded generator.
    mutating func gaussian() -> Double {
        let u = max(Double.random(in: 0..<1, using: &self), 1e-300), v = Double.random(in: 0..<1, using: &self)
        return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
    }
}

/// Normalised intervals: each band scaled by its training days' mean absolute error.
extension PredictionIntervalsTests {
    @Test func scalesAreEachBandsMeanAbsoluteTrainingError() throws {
        // 60 rows at 120 now with errors ±10 (mean 10), 50 rows at 60 now with errors 30 and -50
        // alternating (mean 40), 5 rows at 200 now (too few: pooled). Pooled mean over 115 rows:
        // (60·10 + 25·30 + 25·50 + 5·4) / 115 = 2620 / 115.
        var current: [Double] = [], predictions: [Double] = [], references: [Double] = []
        for i in 0..<60 { current.append(120); predictions.append(100); references.append(i % 2 == 0 ? 110 : 90) }
        for i in 0..<50 { current.append(60); predictions.append(100); references.append(i % 2 == 0 ? 130 : 50) }
        for _ in 0..<5 { current.append(200); predictions.append(100); references.append(104) }
        let scales = try #require(PredictionIntervals.scales(current: current, predictions: predictions, references: references))
        #expect(scales[0] == .init(scale: 40, rows: 50, pooled: false))
        #expect(scales[1] == .init(scale: 10, rows: 60, pooled: false))
        #expect(scales[2] == .init(scale: 2620.0 / 115, rows: 115, pooled: true))
        // Too few rows, a non-finite value, or a perfect fit (scale 0): no scales.
        #expect(PredictionIntervals.scales(current: Array(current.prefix(49)), predictions: Array(predictions.prefix(49)),
                                           references: Array(references.prefix(49))) == nil)
        #expect(PredictionIntervals.scales(current: current, predictions: predictions.map { _ in .nan }, references: references) == nil)
        #expect(PredictionIntervals.scales(current: current, predictions: references, references: references) == nil)
    }

    @Test func scaledHalfWidthsAreOneQuantileTimesEachScale() throws {
        // Scales 40 / 10 / 20. Calibration: 19 rows, scaled residuals |r|/s = 0.1, 0.2, ..., 1.9
        // (rows alternate bands; each residual is k/10 times its band's scale).
        let scales: [PredictionIntervals.Scale] = [.init(scale: 40, rows: 50, pooled: false),
                                                   .init(scale: 10, rows: 60, pooled: false),
                                                   .init(scale: 20, rows: 115, pooled: true)]
        var current: [Double] = [], predictions: [Double] = [], references: [Double] = []
        for k in 1...19 {
            let g: Double = [60, 120, 200][k % 3], s = [40.0, 10, 20][k % 3]
            current.append(g); predictions.append(100); references.append(100 + Double(k) / 10 * s)
        }
        let intervals = try #require(PredictionIntervals(current: current, predictions: predictions, references: references, scales: scales))
        // n = 19: 80% rank ceil(20 · 0.8) = 16 -> 1.6; 95% rank ceil(20 · 0.95) = 19 -> 1.9.
        #expect(abs(intervals.bands[0].halfWidth80 - 64) < 1e-9 && abs(intervals.bands[0].halfWidth95 - 76) < 1e-9)
        #expect(abs(intervals.bands[1].halfWidth80 - 16) < 1e-9 && abs(intervals.bands[1].halfWidth95 - 19) < 1e-9)
        #expect(abs(intervals.bands[2].halfWidth80 - 32) < 1e-9 && intervals.bands[2].pooled && intervals.bands[2].n == 19)
        #expect(intervals.bands[0].scale == 40 && intervals.bands[0].scaleRows == 50)
        // 18 rows: no finite 95% interval, so none.
        #expect(PredictionIntervals(current: Array(current.dropLast()), predictions: Array(predictions.dropLast()),
                                    references: Array(references.dropLast()), scales: scales) == nil)
        // The file keeps the scales and checks them.
        var model = ModelFileValidationTests.model()
        model.intervals = intervals
        #expect(try GlucoseModel.decode(try GlucoseModel.encoder.encode(model), path: "m.json").intervals == intervals)
        for bad in [0, -1, Double.nan] {
            var edited = model
            edited.intervals!.bands[1].scale = bad
            #expect {
                try GlucoseModel.decode(try GlucoseModel.encoder.encode(edited), path: "m.json")
            } throws: { "\($0)".contains("intervals.bands[1].scale") }
        }
    }

    @Test func scaledCoverageHoldsInEachBandWhereErrorsDiffer() throws {
        // Errors three times larger below 70 than in range (SD 30 against 10), exchangeable within
        // each band. Scales from 600 training rows, calibration on 99 rows, 100 test rows a band,
        // 300 repetitions: the expected coverage is 80/100 and 95/100 in each band (the scaled
        // residuals are exchangeable); the mean over 30,000 rows has a binomial SE of 0.23 / 0.13
        // points, and the scale's own error adds a little: allow 1.5 / 1.0 points. One pooled
        // half-width (no scales) covers the lows far less.
        var rng = SplitMix64(seed: 5)
        func rows(_ n: Int) -> (current: [Double], predictions: [Double], references: [Double]) {
            var c: [Double] = [], p: [Double] = [], r: [Double] = []
            for i in 0..<n {
                let low = i % 2 == 0
                c.append(low ? 60 : 120); p.append(100); r.append(100 + rng.gaussian() * (low ? 30 : 10))
            }
            return (c, p, r)
        }
        var covered = [[Double]](repeating: [0, 0], count: 2), pooledLow80 = 0.0
        let repetitions = 300
        for _ in 0..<repetitions {
            let training = rows(600), calibration = rows(99), test = rows(200)
            let scales = try #require(PredictionIntervals.scales(current: training.current, predictions: training.predictions,
                                                                 references: training.references))
            let scaled = try #require(PredictionIntervals(current: calibration.current, predictions: calibration.predictions,
                                                          references: calibration.references, scales: scales))
            let score = scaled.score(current: test.current, predictions: test.predictions, references: test.references)
            for (i, band) in [0, 1].enumerated() {
                covered[i][0] += score.bands[band].coverage80; covered[i][1] += score.bands[band].coverage95
            }
            // Unscaled on 40 of the rows: every band under 50 rows, so one pooled half-width for all.
            let few = (current: Array(calibration.current.prefix(40)), predictions: Array(calibration.predictions.prefix(40)),
                       references: Array(calibration.references.prefix(40)))
            let pooled = try #require(PredictionIntervals(current: few.current, predictions: few.predictions, references: few.references))
            pooledLow80 += pooled.score(current: test.current, predictions: test.predictions, references: test.references).bands[0].coverage80
        }
        for i in 0..<2 {
            let c80 = covered[i][0] / Double(repetitions), c95 = covered[i][1] / Double(repetitions)
            #expect(abs(c80 - 80) < 1.5 && abs(c95 - 95) < 1.0, "band \(i): \(c80) / \(c95)")
        }
        #expect(pooledLow80 / Double(repetitions) < 65, "pooled below 70: \(pooledLow80 / Double(repetitions))")
    }
}
