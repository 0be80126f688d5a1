import ArgumentParser
import GlucoModel
import Testing
@testable import glucomodel_predict
@testable import glucomodel_train

/// Audit 39 (docs): the command line read numbers as `Double(String)` does, so `dose --carbs 0x10`
/// was 16 g, `--carbs 0x1p4` 16 g, `nightly --low 0x40` 64 mg/dL and `metrics --days 0x10` 16 days,
/// while README.md says hexadecimal is refused (as the data files refuse it). Every number option
/// now reads as the files do (`NumberText`).
@Suite struct NumberOptionTests {
    static let dose = ["--patient", "p_a", "--settings", "s.json", "--data", "p_a.csv"]
    static let nightly = ["--store", "s.sqlite", "--inbox", "in", "--models", "m", "--out", "o"]

    /// Decimal text, as the files take it: the value it says.
    @Test func decimalNumbersAreRead() throws {
        #expect(try Dose.parse(Self.dose + ["--carbs", "16"]).carbs == 16)
        #expect(try Dose.parse(Self.dose + ["--carbs", "1.6e1"]).carbs == 16)
        #expect(try Dose.parse(Self.dose + ["--carbs", "0"]).carbs == 0)
        let night = try Nightly.parse(Self.nightly + ["--low", "64.5", "--high", "+300"])
        #expect(try night.thresholds() == AlertThresholds(low: 64.5, high: 300))
        // The rules are the library's (AlertThresholds): a unit slip, and a low not below the high.
        #expect(throws: AlertThresholdProblem.implausible(option: "--low", given: 70, unit: .mmolL, mgdL: 70 * GlucoseValue.mgdLPerMmolL)) {
            try AlertThresholds(low: 70, high: nil, in: .mmolL)
        }
        #expect(throws: AlertThresholdProblem.notBelow) { try AlertThresholds(low: 200, high: 180, in: .mgdL) }
        #expect(try AlertThresholds(low: 3.9, high: 13.9, in: .mmolL).low == 3.9 * GlucoseValue.mgdLPerMmolL)
        #expect(try Metrics.parse(["a.csv", "--days", "7.5"]).days == 7.5)
        #expect(try Metrics.parse(["a.csv"]).days == 14)
        _ = try glucomodel_train.Train.parse(["--data", "datasets", "--arx-ridge", "1e-4"])
        // 0x1p-10 is 0.00098, a ridge weight within 0-1: it was read.
        #expect(throws: (any Error).self) { try glucomodel_train.Train.parse(["--data", "datasets", "--arx-ridge", "0x1p-10"]) }
        // A negative ridge is refused by name, not "Missing value" (hunt BE, stop 61); -0 is 0.
        do {
            _ = try glucomodel_train.Train.parse(["--data", "datasets", "--arx-ridge", "-0.1"])
            Issue.record("--arx-ridge -0.1 was read")
        } catch {
            #expect(glucomodel_train.Train.message(for: error) == "--arx-ridge must be auto or a number from 0 to 1", "\(glucomodel_train.Train.message(for: error))")
        }
        #expect(ARXRidge(text: "-0")?.text == "0" && ARXRidge(text: "-0") == ARXRidge(text: "0"))
    }

    @Test(arguments: ["0x10", "0X10", "0x1p4", "0x1.8p1", "nan", "NaN", "inf", "infinity", "1e999", "16g", "1_6"])
    func hexadecimalAndNonFiniteNumbersAreRefused(_ text: String) {
        let cases: [(option: String, parse: () throws -> Void, message: (any Error) -> String)] = [
            ("--carbs", { _ = try Dose.parse(Self.dose + ["--carbs", text]) }, { Dose.message(for: $0) }),
            ("--low", { _ = try Nightly.parse(Self.nightly + ["--low", text]) }, { Nightly.message(for: $0) }),
            ("--high", { _ = try Nightly.parse(Self.nightly + ["--high", text]) }, { Nightly.message(for: $0) }),
            ("--days", { _ = try Metrics.parse(["a.csv", "--days", text]) }, { Metrics.message(for: $0) }),
        ]
        for c in cases {
            do {
                try c.parse()
                Issue.record("\(c.option) \(text) was read")
            } catch {
                let message = c.message(error)
                #expect(message.contains("'\(text)'") && message.contains(c.option)
                        && message.contains("expected a decimal number (hexadecimal, nan and inf are refused)"), "\(message)")
            }
        }
        #expect(throws: (any Error).self) { try glucomodel_train.Train.parse(["--data", "datasets", "--arx-ridge", text]) }
    }

    /// A value starting with a minus (`-0x10`, `-inf`) reads as an option: no value, refused too.
    /// The dose's own numbers take it as their value, so that it is named as the number it is not.
    @Test(arguments: ["-0x10", "-inf"])
    func aValueLikeAnOptionIsNoNumber(_ text: String) {
        for option in ["--carbs", "--insulin-on-board"] {
            do {
                _ = try Dose.parse(Self.dose + [option, text])
                Issue.record("\(option) \(text) was read")
            } catch {
                let message = Dose.message(for: error)
                #expect(message.contains("'\(text)'") && message.contains(option) && message.contains("expected a decimal number"), "\(message)")
            }
        }
        #expect(throws: (any Error).self) { try Metrics.parse(["a.csv", "--days", text]) }
    }

    /// A negative dose number is read as itself (the dose then refuses it, invalid_carbs or
    /// invalid_stated_iob, as DoseGuardTests show); ArgumentParser said 'Missing value for --carbs'.
    @Test func negativeDoseNumbersAreReadAsNumbers() throws {
        #expect(try Dose.parse(Self.dose + ["--carbs", "-5"]).carbs == -5)
        #expect(try Dose.parse(Self.dose + ["--carbs", "0", "--insulin-on-board", "-1.5"]).insulinOnBoard == -1.5)
        // The option after it is still an option.
        #expect(try Dose.parse(Self.dose + ["--carbs", "-5", "--format", "json"]).format == .json)
    }
}

/// Hunt R (stop 53): `train --seed -1` said "Missing value for '--seed <seed>'" (ArgumentParser took
/// the minus for an option), as `dose --carbs -5` did before audit 46. The value is read, and refused
/// by name; a negative task id or population reaches the rules that name their bounds.
@Suite struct NegativeTrainNumberTests {
    @Test func aNegativeSeedIsRefusedAsTheValueItIs() throws {
        do {
            _ = try glucomodel_train.Train.parse(["--data", "datasets", "--seed", "-1"])
            Issue.record("--seed -1 was read")
        } catch {
            let message = glucomodel_train.Train.message(for: error)
            #expect(message.contains("'-1'") && message.contains("--seed") && !message.contains("Missing value"), "\(message)")
            // With the range (hunt AP, stop 59); a value that is no number at all is said so.
            #expect(message.contains("expected a whole number from 0 to 18446744073709551615"), "\(message)")
        }
        do {
            _ = try glucomodel_train.Train.parse(["--data", "datasets", "--seed", "1.5"])
            Issue.record("--seed 1.5 was read")
        } catch {
            let message = glucomodel_train.Train.message(for: error)
            #expect(message.hasSuffix("expected a whole number") || message.contains("expected a whole number\n"), "\(message)")
        }
        for (arguments, message) in [(["--shards", "2", "--task-id", "-1"], "--task-id must be 0 or more"),
                                     (["--population", "-5"], "--population must be 2 to 10,000,000")] {
            do {
                _ = try glucomodel_train.Train.parse(["--data", "datasets"] + arguments)
                Issue.record("\(arguments) was read")
            } catch {
                #expect(glucomodel_train.Train.message(for: error).contains(message), "\(glucomodel_train.Train.message(for: error))")
            }
        }
        #expect(try glucomodel_train.Train.parse(["--data", "datasets", "--seed", "7", "--threads", "2"]).seed == 7)
        // The next option taken as the value is said to be a missing value (hunt U, stop 53).
        do {
            _ = try glucomodel_train.Train.parse(["--data", "datasets", "--seed", "--threads", "1"])
            Issue.record("--seed --threads was read")
        } catch {
            #expect(glucomodel_train.Train.message(for: error).contains("no value given: '--threads' is the next option"))
        }
    }
}
