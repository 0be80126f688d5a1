import ArgumentParser
import GlucoModel

/// `--units mg/dL|mmol/L`: the unit a command prints glucose in. Computation stays in mg/dL;
/// only printing converts (`GlucoseUnit.convert`: mmol/L = mg/dL / 18.01559). Shared by every
/// command that prints glucose.
public struct GlucoseUnitsOption: ParsableArguments {
    @Option(help: "Unit glucose is printed in: mg/dL or mmol/L (default: mg/dL).")
    public var units: String?

    public init() {}

    public func validate() throws {
        if let units, GlucoseUnit(name: units) == nil {
            throw ValidationError("--units: expected mg/dL or mmol/L, got '\(units)'")
        }
    }

    /// The unit named, or nil when the option is not given.
    public var given: GlucoseUnit? { units.flatMap(GlucoseUnit.init(name:)) }

    /// The unit; valid after `validate()` (mg/dL when not given).
    public var unit: GlucoseUnit { given ?? .mgdL }
}
