import ArgumentParser
import GlucoModel

/// `--units mg/dL|mmol/L`: the unit a command prints glucose in. Computation stays in mg/dL;
/// only printing converts (`GlucoseUnit.convert`: mmol/L = mg/dL / 18.0156). Shared by every
/// command that prints glucose.
public struct GlucoseUnitsOption: ParsableArguments {
    @Option(help: "Unit glucose is printed in: mg/dL or mmol/L.")
    public var units: String = GlucoseUnit.mgdL.rawValue

    public init() {}

    public func validate() throws {
        guard GlucoseUnit(name: units) != nil else {
            throw ValidationError("--units: expected mg/dL or mmol/L, got '\(units)'")
        }
    }

    /// The unit; valid after `validate()` (mg/dL otherwise).
    public var unit: GlucoseUnit { GlucoseUnit(name: units) ?? .mgdL }
}
