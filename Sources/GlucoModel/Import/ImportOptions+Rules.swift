import Foundation

extension ImportOptions {
    /// Import options that cannot go together: the rules of `--format`, `--columns` and
    /// `--glucose-units` and `--carb-units`, the same whether they come from the command line or a config file.
    public enum Problem: Error, CustomStringConvertible, Equatable {
        /// `--glucose-units` names the mapped CSV's glucose unit; without a mapping there is none.
        case unitsWithoutColumns
        /// `--carb-units` names the mapped CSV's carbohydrate unit; without a mapping there is none.
        case carbUnitsWithoutColumns
        /// `--format csv` is the mapped CSV, which needs the mapping.
        case csvWithoutColumns(option: String)
        /// A mapping reads every file as `csv`; another format named beside it.
        case formatWithColumns(option: String, given: String)

        public var description: String {
            let csv = MappedCSVImporter.formatName
            switch self {
            case .unitsWithoutColumns: return "--glucose-units goes with --columns (the mapped CSV's glucose columns)"
            case .carbUnitsWithoutColumns: return "--carb-units goes with --columns (the mapped CSV's carbs column)"
            case let .csvWithoutColumns(option): return "\(option) \(csv) needs --columns (which column holds which field)"
            case let .formatWithColumns(option, given): return "--columns reads the files as \(csv); \(option) \(given) cannot go with it"
            }
        }
    }

    /// The format every file is read in: `given` (a format option named `option`), or the mapped
    /// CSV's when `columns` are mapped; nil to detect each file's.
    /// - Throws: `Problem` for options that cannot go together.
    public static func format(_ given: String?, columns: Bool, glucoseUnits: Bool, carbUnits: Bool = false,
                              option: String = "--format") throws(Problem) -> String? {
        let csv = MappedCSVImporter.formatName
        if glucoseUnits, !columns { throw .unitsWithoutColumns }
        if carbUnits, !columns { throw .carbUnitsWithoutColumns }
        if columns {
            if let given, given.lowercased() != csv { throw .formatWithColumns(option: option, given: given) }
            return csv
        }
        if given?.lowercased() == csv { throw .csvWithoutColumns(option: option) }
        return given
    }
}
