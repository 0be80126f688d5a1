import Foundation

/// The options of a training run (`glucomodel-train train`) as an experiment file:
/// `--config experiment.json` reads one, and every run writes its resolved options (every option,
/// defaults filled in) to `<out>/config.json`, so that `--config <out>/config.json` runs the same
/// experiment again. Keys are the command's long option names (docs/formats.md):
///
/// ```json
/// { "version": 1, "data": ["datasets"], "horizons": [30, 60], "population": 200, "seed": 7,
///   "fitness": "clarke", "columns": {"time": "date", "glucose": "CGM"}, "glucose-units": "mmol/L" }
/// ```
///
/// Every value may be `null` (the default). An unknown key, a key given twice or a value of the
/// wrong type or range is an `InputError` naming the file, the key's line and the key.
public struct TrainingRunConfig: Sendable, Equatable {
    /// The version of the file (raised when a key changes meaning or goes away).
    public static let version = 1
    /// Seeds below it are exact as JSON numbers (every Double below 2^52 with no fraction is a whole number).
    static let exactSeeds = 4_503_599_627_370_496.0

    public var data: [String]?
    public var store: String?
    public var format: String?
    public var columns: [CSVColumnMapping.Field: String]?
    public var glucoseUnits: GlucoseUnit?
    public var carbUnits: CSVColumnMapping.CarbUnit?
    public var dateOrder: DateOrder?
    public var timeZone: String?
    public var horizons: [Int]?
    public var out: String?
    public var population: Int?
    public var generations: Int?
    public var terms: Int?
    public var ensemble: Int?
    public var curves: FeatureCurves?
    /// `auto` or a number (`ARXRidge`).
    public var arxRidge: String?
    public var seed: UInt64?
    public var threads: Int?
    public var grammar: String?
    /// The hash of the grammar's text the run trained with (`GrammarSource.hash`), written by every
    /// run: a file read with `--config` whose grammar has changed since is said (`grammarChange`).
    public var grammarHash: String?
    public var fitness: TrainingFitness?
    public var base: ModelBase?
    public var shard: String?
    public var shards: String?
    public var taskID: Int?
    public var retrain: Bool?
    public var keepSensorLimits: Bool?
    public var perPatient: Bool?
    public var units: GlucoseUnit?

    public init() {}

    /// The keys, in the order a resolved file lists them.
    public static let keys = ["version", "data", "store", "format", "columns", "glucose-units", "carb-units", "date-order", "time-zone",
                              "horizons", "out", "population", "generations", "terms", "ensemble", "curves", "arx-ridge", "seed", "threads", "grammar", "grammar-hash", "fitness", "base",
                              "shard", "shards", "task-id", "retrain", "keep-sensor-limits", "per-patient", "units"]

    // MARK: Defaults

    public static let defaultData = ["datasets"]
    public static let defaultHorizons = [30, 60, 90, 120]
    public static let defaultOut = "out/train"
    public static let defaultSeed: UInt64 = 1
    public static let defaultGrammar = "glucose-symbolic"
    public static var defaultPopulation: Int { TrainingOptions.defaultEvolution.populationSize }

    /// What a run takes, from a config file or the command line alike (the command line had no
    /// upper bound: `--population 9223372036854775807` grew to 20 GB before it was killed; hunt H, stop 51).
    public static let populationRange = 2...10_000_000
    public static let generationsRange = 0...10_000_000
    public static let threadsRange = 1...4096
    public static let termsRange = 1...10
    public static let ensembleRange = 1...100

    /// `2 to 10,000,000`, for messages.
    public static func describe(_ range: ClosedRange<Int>) -> String {
        func grouped(_ n: Int) -> String {
            let digits = String(n)
            return digits.enumerated().map { i, c in (i > 0 && (digits.count - i) % 3 == 0 ? "," : "") + String(c) }.joined()
        }
        return "\(grouped(range.lowerBound)) to \(grouped(range.upperBound))"
    }
    public static var defaultGenerations: Int { TrainingOptions.defaultEvolution.generations }
    public static var defaultTerms: Int { TrainingOptions.defaultTerms }
    public static var defaultEnsemble: Int { TrainingOptions.defaultEnsemble }
    public static var defaultCurves: FeatureCurves { TrainingOptions.defaultCurves }
    public static var defaultARXRidge: String { ARXRidge.fixed(ARXModel.defaultRidge).text }

    /// This configuration with every option `other` sets taking the place of this one's (the
    /// command line over the file). The source (`data`, `store`) and the sharding (`shard`,
    /// `shards`, `task-id`) are replaced as wholes: naming data on the command line drops the
    /// file's store, and `--shard` drops the file's `shards`.
    public func overridden(by other: TrainingRunConfig) -> TrainingRunConfig {
        var c = self
        if other.data?.isEmpty == false || other.store != nil { c.data = other.data; c.store = other.store }
        if other.shard != nil || other.shards != nil {
            c.shard = other.shard; c.shards = other.shards; c.taskID = other.taskID
        } else if other.taskID != nil {
            // A task id alone picks a task of the file's job array (`shards`): a task's own
            // config.json keeps the array, never its task (see `resolved`).
            c.taskID = other.taskID
        }
        func take<T>(_ path: WritableKeyPath<TrainingRunConfig, T?>) { if let v = other[keyPath: path] { c[keyPath: path] = v } }
        take(\.format); take(\.columns); take(\.glucoseUnits); take(\.carbUnits); take(\.dateOrder); take(\.timeZone); take(\.horizons)
        take(\.out); take(\.population); take(\.generations); take(\.terms); take(\.ensemble); take(\.curves); take(\.arxRidge); take(\.seed); take(\.threads)
        // A grammar given here is not the file's: the file's hash is not its.
        if let g = other.grammar { c.grammar = g; c.grammarHash = other.grammarHash }
        take(\.fitness); take(\.base); take(\.retrain); take(\.keepSensorLimits); take(\.perPatient); take(\.units)
        return c
    }

    /// Why the models will not be those of the run this file was written by, or nil: its grammar's
    /// text has changed since (hunt BE, stop 61: `--config OUT/config.json` after the grammar file
    /// was edited trained other models without a word, where README promises the same, byte for byte).
    public func grammarChange(_ loaded: GrammarSource) -> String? {
        guard let grammarHash, grammarHash != loaded.hash else { return nil }
        return "the grammar \(grammar ?? Self.defaultGrammar) is not the one this file was written with (its hash was \(grammarHash), "
            + "now \(loaded.hash)): the models may differ from that run's, and record the new hash"
    }

    /// The trainer's options these say (the grammar loaded by name or path), every unset one at its
    /// default: what `glucomodel-train` trains with, testable without the executable (it mapped them
    /// itself, with its own copies of the defaults; hunt N, stop 52).
    /// - Throws: `TrainingError` for a grammar that cannot be loaded.
    public func trainingOptions() throws -> TrainingOptions {
        var options = TrainingOptions(grammar: try GrammarSource.load(grammar ?? Self.defaultGrammar))
        options.horizons = horizons ?? Self.defaultHorizons
        if let fitness { options.fitness = fitness }
        if let base { options.base = base }
        options.evolution.seed = seed ?? Self.defaultSeed
        options.keepSensorLimits = keepSensorLimits ?? false
        if let population { options.evolution.populationSize = population }
        if let generations { options.evolution.generations = generations }
        if let terms { options.terms = terms }
        if let ensemble { options.ensemble = ensemble }
        if let curves { options.curves = curves }
        if let ridge = arxRidge.flatMap(ARXRidge.init(text:)) { options.arxRidge = ridge }
        return options
    }

    /// Every option with its value or default, as the run uses it: the time zone named (this
    /// machine's when none was), the data folder when neither data nor a store was named, the mapped
    /// CSV's format and unit when columns are mapped. `threads` stays nil (all cores: results do not
    /// depend on it, and a file made on one machine should not pin another's). A task's own shard
    /// (`shard`, `task-id`) is not kept: every task of a job array writes the same file.
    public func resolved(machineTimeZone: TimeZone = .current) -> TrainingRunConfig {
        var c = self
        if c.store == nil, c.data?.isEmpty ?? true { c.data = Self.defaultData }
        if c.store != nil { c.data = [] }
        if c.columns != nil {
            c.format = c.format ?? MappedCSVImporter.formatName
            c.glucoseUnits = c.glucoseUnits ?? .mgdL
            c.carbUnits = c.carbUnits ?? .grams
        }
        c.timeZone = c.timeZone ?? machineTimeZone.identifier
        c.horizons = c.horizons ?? Self.defaultHorizons
        c.out = c.out ?? Self.defaultOut
        c.population = c.population ?? Self.defaultPopulation
        c.generations = c.generations ?? Self.defaultGenerations
        c.terms = c.terms ?? Self.defaultTerms
        c.ensemble = c.ensemble ?? Self.defaultEnsemble
        c.curves = c.curves ?? Self.defaultCurves
        c.arxRidge = c.arxRidge ?? Self.defaultARXRidge
        c.seed = c.seed ?? Self.defaultSeed
        c.grammar = c.grammar ?? Self.defaultGrammar
        c.fitness = c.fitness ?? .rmse
        c.base = c.base ?? .arx
        c.shard = nil
        c.taskID = nil
        c.retrain = c.retrain ?? false
        c.keepSensorLimits = c.keepSensorLimits ?? false
        c.perPatient = c.perPatient ?? false
        c.units = c.units ?? .mgdL
        return c
    }

    /// The column mapping, with its glucose and carbohydrate units (mg/dL and g unless set); nil when no columns are mapped.
    /// - Throws: `CSVColumnMapping.Problem` for a mapping without time or measurements.
    public func columnMapping() throws(CSVColumnMapping.Problem) -> CSVColumnMapping? {
        guard let columns else { return nil }
        return try CSVColumnMapping(columns: columns, glucoseUnit: glucoseUnits ?? .mgdL, carbUnit: carbUnits ?? .grams)
    }
}

// MARK: Reading

extension TrainingRunConfig {
    /// Reads an experiment file.
    /// - Throws: `InputError` naming the file, and the line and key of a bad key or value.
    public static func load(_ url: URL) throws -> TrainingRunConfig {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw InputError(SourceLocation(file: url.path), "cannot read the configuration file")
        }
        return try parse(Array(data), file: url.path)
    }

    /// Reads the text of an experiment file (`file` names it in errors).
    public static func parse(_ bytes: [UInt8], file: String) throws -> TrainingRunConfig {
        let members: [(key: String, line: Int, value: JSONValue)]?
        do { members = try JSONParser.members(bytes) } catch {
            let p = JSONSyntax.problem(in: bytes)
            throw InputError(SourceLocation(file: file, line: p?.line),
                             "not valid JSON at line \(p?.line ?? 1), column \(p?.column ?? 1): \(p?.message ?? error.message)")
        }
        guard let members else {
            throw InputError(SourceLocation(file: file, line: 1), "expected a JSON object of options, e.g. {\"horizons\": [30, 60]}")
        }
        var c = TrainingRunConfig()
        var seen: [String: Int] = [:]
        for (key, line, value) in members {
            let at = SourceLocation(file: file, line: line, field: key)
            guard keys.contains(key) else {
                throw InputError(at, "unknown option '\(key)'; the options are \(keys.joined(separator: ", "))")
            }
            if let first = seen[key] { throw InputError(at, "'\(key)' is given twice (first at line \(first))") }
            seen[key] = line
            try c.set(key, value, at: at)
        }
        if let columns = c.columns {
            do { _ = try CSVColumnMapping(columns: columns) } catch {
                throw InputError(SourceLocation(file: file, line: seen["columns"], field: "columns"), error.description)
            }
        }
        return c
    }

    private mutating func set(_ key: String, _ value: JSONValue, at: SourceLocation) throws {
        if value == .null { return }
        func bad(_ expected: String, _ got: JSONValue? = nil) -> InputError {
            InputError(at, "expected \(expected), got \((got ?? value).brief)")
        }
        // Where a number is expected, "200" is text to JSON: say so, not that 200 is out of range.
        func badNumber(_ expected: String, _ got: JSONValue? = nil) -> InputError {
            guard case let .string(s) = got ?? value else { return bad(expected, got) }
            return InputError(at, "expected \(expected), got the string \((got ?? value).brief)"
                                  + (Double(s) != nil ? " (write numbers without quotes)" : ""))
        }
        func string() throws -> String {
            guard case let .string(s) = value, !s.isEmpty else { throw bad("a non-empty string") }
            return s
        }
        func integer(_ range: ClosedRange<Int>, _ what: String) throws -> Int {
            guard case let .number(v) = value else { throw badNumber("a number (\(what))") }
            // `Int(exactly:)`: 2^63 passed `v <= Double(Int.max)` (which is 2^63) and `Int(v)` trapped
            // (hunt H, stop 51); now it is refused as any number out of range.
            guard let exact = Int(exactly: v), range.contains(exact) else {
                throw bad(what)
            }
            return exact
        }
        func bool() throws -> Bool {
            guard case let .bool(b) = value else { throw bad("true or false") }
            return b
        }
        func named<T>(_ make: (String) -> T?, _ expected: String) throws -> T {
            guard case let .string(s) = value, let v = make(s) else { throw bad(expected) }
            return v
        }
        switch key {
        case "version":
            let v = try integer(1...Int.max, "a version number")
            guard v <= Self.version else {
                throw InputError(at, "version \(v) is newer than this glucomodel-train reads (\(Self.version)); update the toolkit")
            }
        case "data":
            switch value {
            case let .string(s) where !s.isEmpty: data = [s]
            case let .array(items):
                data = try items.map { item in
                    guard case let .string(s) = item, !s.isEmpty else { throw bad("a list of file or folder paths", item) }
                    return s
                }
            default: throw bad("a path or a list of paths")
            }
        case "store": store = try string()
        case "format":
            format = try named({ ImportFormats.named($0)?.formatName }, "a format name (\(ImportFormats.names.joined(separator: ", ")))")
        case "columns":
            switch value {
            case let .string(s):
                do { columns = try CSVColumnMapping(parsing: s).columns } catch { throw InputError(at, error.description) }
            case let .object(pairs):
                var map: [CSVColumnMapping.Field: String] = [:]
                for (name, column) in pairs {
                    guard let field = CSVColumnMapping.Field(rawValue: name) else {
                        throw InputError(at, "unknown field '\(name)'; expected one of \(CSVColumnMapping.Field.allCases.map(\.rawValue).joined(separator: ", "))")
                    }
                    guard case let .string(s) = column, !s.isEmpty else { throw InputError(at, "field '\(name)': expected a column name") }
                    guard map[field] == nil else { throw InputError(at, "field '\(name)' is given twice") }
                    map[field] = s
                }
                columns = map
            default: throw bad("an object of field: column (e.g. {\"time\": \"date\", \"glucose\": \"CGM\"})")
            }
        case "glucose-units": glucoseUnits = try named(GlucoseUnit.init(name:), "mg/dL or mmol/L")
        case "carb-units": carbUnits = try named(CSVColumnMapping.CarbUnit.init(name:), CSVColumnMapping.CarbUnit.expected)
        case "units": units = try named(GlucoseUnit.init(name:), "mg/dL or mmol/L")
        case "date-order": dateOrder = try named(DateOrder.init(rawValue:), "dmy or mdy")
        case "time-zone":
            let name = try string()
            guard (try? TimeArgument.timeZone(named: name)) != nil else {
                throw bad("an IANA time zone name like Europe/Madrid, or a fixed offset like +01:00")
            }
            timeZone = name
        case "horizons":
            guard case let .array(items) = value, !items.isEmpty else { throw bad("a list of positive minutes like [30, 60]") }
            horizons = TrainingOptions.distinct(try items.map { item in
                guard case let .number(v) = item, v == v.rounded(), v >= 1, v <= 24 * 60 else {
                    throw badNumber("a list of whole minutes from 1 to 1440 like [30, 60]", item)
                }
                return Int(v)
            })
        case "out": out = try string()
        case "population": population = try integer(Self.populationRange, "a population of \(Self.describe(Self.populationRange))")
        case "generations": generations = try integer(Self.generationsRange, "a number of generations, \(Self.describe(Self.generationsRange))")
        case "terms": terms = try integer(Self.termsRange, "a number of evolved terms, \(Self.describe(Self.termsRange))")
        case "ensemble": ensemble = try integer(Self.ensembleRange, "a number of searches, \(Self.describe(Self.ensembleRange))")
        case "curves": curves = try named(FeatureCurves.init(rawValue:), FeatureCurves.allCases.map(\.rawValue).joined(separator: ", "))
        case "arx-ridge":
            let text: String
            switch value {
            case let .string(s): text = s
            case let .number(v): text = String(format: "%g", v)
            default: throw bad("\"auto\" or a ridge weight from 0 to 1")
            }
            guard let ridge = ARXRidge(text: text) else { throw bad("\"auto\" or a ridge weight from 0 to 1") }
            arxRidge = ridge.text
        case "seed":
            switch value {
            // A JSON number is read as a Double: from 2^52 on it has no fractions and rounds odd
            // numbers (9007199254740993 would train seed ...992, 4503599627370496.5 seed ...496), so a
            // seed that large must be a string, which is exact.
            case let .number(v) where v == v.rounded() && v >= 0 && v < Self.exactSeeds: seed = UInt64(v)
            case let .string(s) where UInt64(s) != nil: seed = UInt64(s)
            default: throw bad("a whole number from 0, as a string from 2^52 (4503599627370496) on")
            }
        case "threads": threads = try integer(Self.threadsRange, "a thread count of \(Self.describe(Self.threadsRange))")
        case "grammar": grammar = try string()
        case "grammar-hash":
            let text = try string()
            guard text.count == 16, text.allSatisfy(\.isHexDigit) else { throw bad("16 hexadecimal digits (the grammar's hash)", value) }
            grammarHash = text.lowercased()
        case "fitness": fitness = try named(TrainingFitness.init(rawValue:), TrainingFitness.allCases.map(\.rawValue).joined(separator: ", "))
        case "base": base = try named(ModelBase.init(rawValue:), "arx or none")
        case "shard":
            let text = try string()
            do { _ = try Shard(text) } catch { throw InputError(at, "\(error)") }
            shard = text
        case "shards":
            switch value {
            case let .string(s) where s == "auto" || (Int(s) ?? 0) >= 1: shards = s
            case let .number(v) where v == v.rounded() && v >= 1 && v < 1e9: shards = String(Int(v))
            default: throw bad("a shard count of 1 or more, or \"auto\"")
            }
        case "task-id": taskID = try integer(0...Int(Int32.max), "a task id, 0 or more")
        case "retrain": retrain = try bool()
        case "keep-sensor-limits": keepSensorLimits = try bool()
        case "per-patient": perPatient = try bool()
        default: preconditionFailure("every key of `keys` is handled")
        }
    }
}

// MARK: Writing

extension TrainingRunConfig {
    /// The file's text: every key of `keys`, in that order, one a line; unset values as `null`.
    public var json: String {
        func q(_ s: String) -> String { "\"" + CGMMetricsReport.jsonEscape(s) + "\"" }
        func opt(_ s: String?) -> String { s.map(q) ?? "null" }
        func num(_ v: Int?) -> String { v.map(String.init) ?? "null" }
        func flag(_ b: Bool?) -> String { b.map { $0 ? "true" : "false" } ?? "null" }
        let mapped = columns.map { m in
            "{" + m.keys.sorted().map { "\(q($0.rawValue)): \(q(m[$0]!))" }.joined(separator: ", ") + "}"
        } ?? "null"
        let seedText = seed.map { Double($0) < Self.exactSeeds ? String($0) : q(String($0)) } ?? "null"
        let shardsText = shards.map { Int($0).map(String.init) ?? q($0) } ?? "null"
        let values: [(String, String)] = [
            ("version", String(Self.version)),
            ("data", data.map { "[" + $0.map(q).joined(separator: ", ") + "]" } ?? "null"),
            ("store", opt(store)), ("format", opt(format)), ("columns", mapped),
            ("glucose-units", opt(glucoseUnits?.rawValue)),
            ("carb-units", opt(carbUnits?.rawValue)), ("date-order", opt(dateOrder?.rawValue)),
            ("time-zone", opt(timeZone)),
            ("horizons", horizons.map { "[" + $0.map(String.init).joined(separator: ", ") + "]" } ?? "null"),
            ("out", opt(out)), ("population", num(population)), ("generations", num(generations)), ("terms", num(terms)),
            ("ensemble", num(ensemble)), ("curves", opt(curves?.rawValue)),
            ("arx-ridge", arxRidge.map { $0 == "auto" ? q($0) : $0 } ?? "null"), ("seed", seedText),
            ("threads", num(threads)), ("grammar", opt(grammar)), ("grammar-hash", opt(grammarHash)), ("fitness", opt(fitness?.rawValue)), ("base", opt(base?.rawValue)),
            ("shard", opt(shard)), ("shards", shardsText), ("task-id", num(taskID)), ("retrain", flag(retrain)),
            ("keep-sensor-limits", flag(keepSensorLimits)), ("per-patient", flag(perPatient)), ("units", opt(units?.rawValue)),
        ]
        assert(values.map(\.0) == Self.keys)
        return "{\n" + values.map { "  \(q($0.0)): \($0.1)" }.joined(separator: ",\n") + "\n}\n"
    }

    /// Writes `json` to `url` atomically.
    public func write(to url: URL) throws {
        let file = try AtomicTextFile(url: url)
        file.writeLine(String(json.dropLast()))
        try file.commit()
    }
}
