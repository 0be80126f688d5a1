import ArgumentParser
import GlucoModel

/// `--units mg/dL|mmol/L`: the unit a command prints glucose in. Computation stays in mg/dL;
/// only printing converts (`GlucoseUnit.convert`, mmol/L = mg/dL / 18.0156).
struct GlucoseUnitsOption: ParsableArguments {
    @Option(help: "Unit glucose is printed in: mg/dL or mmol/L.")
    var units: String = GlucoseUnit.mgdL.rawValue

    func validate() throws {
        guard GlucoseUnit(name: units) != nil else {
            throw ValidationError("--units: expected mg/dL or mmol/L, got '\(units)'")
        }
    }

    var unit: GlucoseUnit { GlucoseUnit(name: units) ?? .mgdL }
}
