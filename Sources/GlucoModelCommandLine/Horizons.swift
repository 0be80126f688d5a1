import ArgumentParser
import GlucoModel

/// Prediction horizons given as minutes, comma-separated (`30,60,90,120`): whole minutes from 1
/// to 1440 (`GlucoseModel.horizonRange`, what a model file may hold). A horizon given twice counts
/// once (`TrainingOptions.distinct`), as `predict` has always read it.
/// The one parser of every `--horizons` option.
public struct HorizonList: ExpressibleByArgument, Sendable, Equatable, CustomStringConvertible {
    public var minutes: [Int]

    public init?(argument: String) {
        let values = argument.split(separator: ",", omittingEmptySubsequences: false)
            .map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !values.isEmpty, values.allSatisfy({ GlucoseModel.horizonRange.contains($0 ?? 0) }) else { return nil }
        minutes = TrainingOptions.distinct(values.compactMap { $0 })
    }

    public var description: String { minutes.map(String.init).joined(separator: ",") }
    public var defaultValueDescription: String { description }
}

extension HorizonList {
    /// Minutes separated by commas, as `init?(argument:)` reads them.
    public static let usage = "whole minutes from 1 to 1440 like 30,60,90,120"

    /// The `transform` of every `--horizons` option: a value that is no list of horizons is refused
    /// saying what one is (`--horizons 2000` said only "The value '2000' is invalid"; hunt N, stop 52).
    @Sendable public static func read(_ text: String) throws -> HorizonList {
        guard let list = HorizonList(argument: text) else { throw ValidationError("expected \(usage)") }
        return list
    }
}
