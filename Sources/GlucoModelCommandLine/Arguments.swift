import ArgumentParser
import GlucoModel

// The library's option values read from the command line, declared once for both executables.
extension TrainingFitness: ExpressibleByArgument {}
extension ModelBase: ExpressibleByArgument {}
extension FeatureCurves: ExpressibleByArgument {}
extension DateOrder: ExpressibleByArgument {}
extension DoseMethod: ExpressibleByArgument {}
extension CGMMetricsReport.Format: ExpressibleByArgument {}

/// Reads a number option (`@Option(transform: DecimalArgument.read)`) as every data and settings
/// file's number is read (`NumberText`): decimal only, finite. ArgumentParser's own `Double` reads
/// hexadecimal (`--carbs 0x10` was 16 g, `0x1p4` too), `nan` and `inf`; those are refused here, and
/// the error names the option and the value. Whole-number options (`Int`) read decimal digits only.
public enum DecimalArgument {
    @Sendable public static func read(_ text: String) throws -> Double {
        guard let value = NumberText.read(text) else {
            throw ValidationError("expected a decimal number (hexadecimal, nan and inf are refused)")
        }
        return value
    }
}

/// Reads a whole-number option parsed `.unconditional` (so that `--seed -1` is a value refused by
/// name, not "Missing value"): the next option taken as its value (`--seed --threads 1`) is said to
/// be a missing value (hunt U, stop 53: "The value '--threads' is invalid").
public enum WholeArgument {
    @Sendable public static func read<T: FixedWidthInteger>(_ text: String) throws -> T {
        if text.hasPrefix("--") { throw ValidationError("no value given: '\(text)' is the next option") }
        guard let value = T(text) else {
            // A whole number out of the type's range says the range (hunt AP: `--seed -1` read only
            // "expected a whole number", where --population gives its limits).
            let whole = text.trimmingCharacters(in: .whitespaces).wholeMatch(of: /[-+]?[0-9]+/) != nil
            throw ValidationError(whole ? "expected a whole number from \(T.min) to \(T.max)" : "expected a whole number")
        }
        return value
    }
}
