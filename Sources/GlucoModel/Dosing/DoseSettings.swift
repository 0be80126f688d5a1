import Foundation

/// A patient's bolus-calculator settings, read from a documented JSON file:
///
/// ```json
/// { "patient": "adolescent_003", "carbRatio": 10, "insulinSensitivity": 45,
///   "target": 110, "suspendThreshold": 70, "maxBolus": 8,
///   "bolusIncrement": 0.05, "insulinPeakMinutes": 75, "insulinDurationMinutes": 360,
///   "basalSchedule": [{"start": "00:00", "unitsPerHour": 0.8}], "maxInsulinOnBoard": 6 }
/// ```
///
/// Every field the calculator needs is optional here so that a missing one is a refusal
/// with a reason, not a decoding crash or a silent default.
public struct DoseSettings: Codable, Hashable, Sendable {
    public var patient: PatientID?
    /// Carbohydrate ratio, grams covered by 1 U (ICR).
    public var carbRatio: Double?
    /// Insulin sensitivity factor, mg/dL lowered by 1 U (ISF).
    public var insulinSensitivity: Double?
    /// Correction target, mg/dL.
    public var target: Double?
    /// Below this (now or predicted) no insulin is suggested, mg/dL.
    public var suspendThreshold: Double?
    /// Largest bolus ever suggested, U.
    public var maxBolus: Double?
    /// The pump's bolus increment, U (default 0.05).
    public var bolusIncrement: Double?
    public var insulinPeakMinutes: Double?
    public var insulinDurationMinutes: Double?
    /// The scheduled basal (optional): without it, the programmed basal found in the data is
    /// the schedule insulin on board is counted against (`NetInsulinOnBoard`).
    public var basalSchedule: [BasalSchedule.Entry]?
    /// OpenAPS's max IOB (optional), U: a dose never lifts net insulin on board above it.
    public var maxInsulinOnBoard: Double?

    public init(patient: PatientID? = nil, carbRatio: Double? = nil, insulinSensitivity: Double? = nil,
                target: Double? = nil, suspendThreshold: Double? = nil, maxBolus: Double? = nil,
                bolusIncrement: Double? = nil, insulinPeakMinutes: Double? = nil, insulinDurationMinutes: Double? = nil,
                basalSchedule: [BasalSchedule.Entry]? = nil, maxInsulinOnBoard: Double? = nil) {
        self.patient = patient; self.carbRatio = carbRatio; self.insulinSensitivity = insulinSensitivity
        self.target = target; self.suspendThreshold = suspendThreshold; self.maxBolus = maxBolus
        self.bolusIncrement = bolusIncrement; self.insulinPeakMinutes = insulinPeakMinutes
        self.insulinDurationMinutes = insulinDurationMinutes
        self.basalSchedule = basalSchedule; self.maxInsulinOnBoard = maxInsulinOnBoard
    }

    /// Reads a settings file; a malformed file is an error naming the file and the field.
    public static func load(_ url: URL) throws -> DoseSettings {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw InputError(SourceLocation(file: url.path), "cannot read the settings file")
        }
        if let syntax = JSONSyntax.problem(in: Array(data)) {
            throw InputError(SourceLocation(file: url.path, line: syntax.line),
                             "not valid JSON at line \(syntax.line), column \(syntax.column): \(syntax.message)")
        }
        try checkKeys(Array(data), file: url.path)
        /// `basalSchedule[0].start`, as the key checks name it; nil for the whole file.
        func field(_ keys: [any CodingKey]) -> String? { keys.isEmpty ? nil : keys.fieldPath }
        /// The line of the setting a coding path starts at (of `basalSchedule` for one of its entries).
        func line(_ keys: [any CodingKey]) -> Int? {
            guard let key = keys.first?.stringValue, let members = try? JSONParser.members(Array(data)) else { return nil }
            return members.first { $0.key == key }?.line
        }
        do { return try JSONDecoder().decode(DoseSettings.self, from: data) } catch let DecodingError.typeMismatch(type, ctx) {
            throw InputError(SourceLocation(file: url.path, line: line(ctx.codingPath), field: field(ctx.codingPath)),
                             DecodingText.wrongType(type, ctx))
        } catch let DecodingError.keyNotFound(key, ctx) {
            // Only a basal entry has required keys: every setting may be absent (a refusal later).
            throw InputError(SourceLocation(file: url.path, field: field(ctx.codingPath + [key])),
                             "missing; a basalSchedule entry is {\"start\": \"HH:mm\", \"unitsPerHour\": 0.8}")
        } catch let DecodingError.valueNotFound(_, ctx) {
            throw InputError(SourceLocation(file: url.path, field: field(ctx.codingPath)),
                             "null; a basalSchedule entry is {\"start\": \"HH:mm\", \"unitsPerHour\": 0.8}")
        } catch let DecodingError.dataCorrupted(ctx) {
            // The syntax check passed, so bytes that are not UTF-8 (or a lone \uD800 escape) are left.
            if ctx.codingPath.isEmpty, let line = try? UTF8Check.firstInvalidLine(in: url) {
                throw InputError(SourceLocation(file: url.path, line: line), "not UTF-8 text at line \(line); save the file as UTF-8")
            }
            throw InputError(SourceLocation(file: url.path, field: field(ctx.codingPath)), "not valid settings JSON: \(ctx.debugDescription)")
        } catch let error as PatientID.InvalidID {
            throw InputError(SourceLocation(file: url.path, field: "patient"), error.description)
        } catch {
            throw InputError(SourceLocation(file: url.path), "not valid settings JSON: \(error)")
        }
    }
}

extension DoseSettings {
    /// The keys a settings file may hold, and those of a `basalSchedule` entry.
    static let keys = ["patient", "carbRatio", "insulinSensitivity", "target", "suspendThreshold", "maxBolus",
                       "bolusIncrement", "insulinPeakMinutes", "insulinDurationMinutes", "basalSchedule", "maxInsulinOnBoard"]
    static let basalEntryKeys = ["start", "unitsPerHour"]
    /// The settings that are one number for the whole day: what each is, and an example.
    static let numbers: [String: (what: String, example: String)] = [
        "carbRatio": ("carb ratio (g/U)", "10"), "insulinSensitivity": ("insulin sensitivity (mg/dL per U)", "40"),
        "target": ("correction target (mg/dL)", "110"), "suspendThreshold": ("suspend threshold (mg/dL)", "70"),
        "maxBolus": ("largest bolus (U)", "8"), "bolusIncrement": ("bolus increment (U)", "0.05"),
        "insulinPeakMinutes": ("insulin peak (minutes)", "75"), "insulinDurationMinutes": ("insulin duration (minutes)", "360"),
        "maxInsulinOnBoard": ("most insulin on board (U)", "6"),
    ]

    /// Refuses a key the settings do not have and a key given twice, naming its line. A decoder
    /// would skip a misspelt `maxInsulinOnboard` (the limit silently gone) and keep one of two
    /// `carbRatio`s without a word; in a file that sets insulin doses both are errors.
    static func checkKeys(_ bytes: [UInt8], file: String) throws {
        let members: [(key: String, line: Int, value: JSONValue)]?
        do { members = try JSONParser.members(bytes) } catch { return }  // JSONSyntax has reported syntax
        guard let members else {
            throw InputError(SourceLocation(file: file, line: 1),
                             "expected a JSON object of settings, e.g. {\"patient\": \"p_017\", \"carbRatio\": 10, ...}")
        }
        func check(_ key: String, among known: [String], seen: inout [String: Int], line: Int, field: String) throws {
            let at = SourceLocation(file: file, line: line, field: field)
            guard known.contains(key) else {
                let near = known.first { $0.lowercased() == key.trimmingCharacters(in: .whitespaces).lowercased() }
                throw InputError(at, "unknown setting '\(TerminalText.escaped(key))'"
                                 + (near.map { " (did you mean '\($0)'?)" } ?? "") + "; the settings are \(known.joined(separator: ", "))")
            }
            if let first = seen[key] {
                throw InputError(at, "'\(key)' is given twice" + (first == line ? "" : " (first at line \(first))"))
            }
            seen[key] = line
        }
        var seen: [String: Int] = [:]
        for (key, line, value) in members {
            try check(key, among: keys, seen: &seen, line: line, field: key)
            // A pump's schedule of ratios (or sensitivities, or targets) by time of day: the file
            // holds one, and the decoder's "expected Double, found an array" did not say so.
            if case let .array(values) = value, let number = numbers[key] {
                throw InputError(SourceLocation(file: file, line: line, field: key),
                                 "'\(key)' is a list of \(Plural.of(values.count, "value")), a schedule by time of day? "
                                 + "The settings hold one \(number.what) for the whole day, a number such as \"\(key)\": \(number.example)")
            }
            guard key == "basalSchedule", case let .array(entries) = value else { continue }
            for (i, entry) in entries.enumerated() {
                guard case let .object(pairs) = entry else { continue }  // the decoder names a wrong type
                var entrySeen: [String: Int] = [:]
                for (entryKey, _) in pairs {
                    try check(entryKey, among: basalEntryKeys, seen: &entrySeen, line: line,
                              field: "basalSchedule[\(i)].\(entryKey)")
                }
            }
        }
    }
}

/// Plausible limits for settings, from Loop's guardrails (docs/dosing.md, "Settings file").
public enum DoseLimits {
    public static let suspendThreshold: ClosedRange<Double> = 67...110
    public static let correctionTarget: ClosedRange<Double> = 87...180
    public static let insulinSensitivity: ClosedRange<Double> = 10...500
    public static let carbRatio: ClosedRange<Double> = 2...150
    public static let maxBolus: ClosedRange<Double> = 0.05...30
    public static let bolusIncrement: ClosedRange<Double> = 0.001...1
    /// OpenAPS caps max IOB at a few times the largest bolus; 0 forbids any dose.
    public static let maxInsulinOnBoard: ClosedRange<Double> = 0...60
    /// Duration of insulin action, minutes: 3 to 24 h. Three hours is OpenAPS's floor for any
    /// curve (oref0 raises a shorter one to 3 h, and to 5 h for the exponential curves used here);
    /// Loop's curves last 5 h (inhaled Afrezza) or 6 h, and a pump's bolus calculator offers 2-8 h.
    /// A curve shorter than its insulin counts a bolus as gone while it still acts, and the next
    /// dose stacks on it: 6 "minutes" (a pump's 6 h) read no insulin on board 15 minutes after a
    /// 3.1 U bolus and advised a correction (audit 39).
    public static let insulinDurationMinutes: ClosedRange<Double> = 180...1440
    /// Peak of the insulin curve, minutes: from 25, below every real insulin's (Loop's fastest,
    /// inhaled Afrezza, peaks at 29; OpenAPS takes a custom peak from 35), up to below half the
    /// duration, which the curve needs (`ExponentialInsulinModel`) and is checked with it.
    public static let insulinPeakMinutes: ClosedRange<Double> = 25...720
}

/// Settings that passed every check, with no optional left.
public struct CheckedDoseSettings: Hashable, Sendable, Codable {
    /// The patient the settings belong to: suggestions for anyone else are refused.
    public var patient: PatientID
    public var carbRatio: Double
    public var insulinSensitivity: Double
    public var target: Double
    public var suspendThreshold: Double
    public var maxBolus: Double
    public var bolusIncrement: Double
    public var insulin: ExponentialInsulinModel
    /// The settings' basal schedule, or nil: then the data's programmed basal is used.
    public var basalSchedule: BasalSchedule?
    /// Net insulin on board a dose may not lift above (U), when set.
    public var maxInsulinOnBoard: Double?
}

extension DoseSettings {
    /// Checks that the settings name `patient` and that every needed setting is present and
    /// within its plausible limits (`DoseLimits`).
    ///
    /// - Returns: the checked settings, or `.wrongPatient` when the file names another patient
    ///   (nothing else is checked then: the whole file is someone else's), or `.settings` with
    ///   every problem found (a missing `patient` field is one of them).
    public func checked(for patient: PatientID) -> Result<CheckedDoseSettings, DoseRefusal> {
        if let own = self.patient, own != patient {
            return .failure(.wrongPatient(expected: patient, found: own, source: "settings"))
        }
        var problems: [DoseRefusal.SettingProblem] = []
        if self.patient == nil { problems.append(.missing("patient")) }
        func need(_ name: String, _ value: Double?, _ limits: ClosedRange<Double>) -> Double {
            guard let value else { problems.append(.missing(name)); return .nan }
            guard value.isFinite, limits.contains(value) else {
                problems.append(.outOfLimits(name, value: value, limits: limits)); return .nan
            }
            return value
        }
        let icr = need("carbRatio", carbRatio, DoseLimits.carbRatio)
        let isf = need("insulinSensitivity", insulinSensitivity, DoseLimits.insulinSensitivity)
        let tgt = need("target", target, DoseLimits.correctionTarget)
        let sus = need("suspendThreshold", suspendThreshold, DoseLimits.suspendThreshold)
        let maxB = need("maxBolus", maxBolus, DoseLimits.maxBolus)
        let inc = need("bolusIncrement", bolusIncrement ?? 0.05, DoseLimits.bolusIncrement)
        let duration = need("insulinDurationMinutes", insulinDurationMinutes ?? 360, DoseLimits.insulinDurationMinutes)
        // The peak is below half the duration; without a usable duration, below half the longest.
        let peakLimits = DoseLimits.insulinPeakMinutes.lowerBound...(duration.isFinite ? duration / 2 : DoseLimits.insulinPeakMinutes.upperBound)
        var peak = need("insulinPeakMinutes", insulinPeakMinutes ?? 75, peakLimits)
        if duration.isFinite, peak == peakLimits.upperBound {
            problems.append(.inconsistent("insulinPeakMinutes \(peak) is not below half of insulinDurationMinutes \(duration)"))
            peak = .nan
        }
        var schedule: BasalSchedule?
        if let entries = basalSchedule {
            do { schedule = try BasalSchedule(entries) } catch { problems.append(.inconsistent(error.description)) }
        }
        var maxIOB: Double?
        if let m = maxInsulinOnBoard { maxIOB = need("maxInsulinOnBoard", m, DoseLimits.maxInsulinOnBoard) }
        if tgt.isFinite, sus.isFinite, tgt < sus {
            problems.append(.inconsistent("target \(tgt) mg/dL is below the suspend threshold \(sus) mg/dL"))
        }
        guard problems.isEmpty else { return .failure(.settings(problems)) }
        return .success(CheckedDoseSettings(
            patient: patient, carbRatio: icr, insulinSensitivity: isf, target: tgt, suspendThreshold: sus, maxBolus: maxB,
            bolusIncrement: inc, insulin: ExponentialInsulinModel(peakMinutes: peak, durationMinutes: duration),
            basalSchedule: schedule, maxInsulinOnBoard: maxIOB))
    }

    /// The settings checked for `patient` (`checked(for:)`), for a command that cannot work
    /// without them (`settings`, `dose --audit`): a file naming another patient, or with a setting
    /// missing or implausible, is bad input, as a file that cannot be read is, not a wrong command line.
    /// - Throws: `InputError` naming `file` and every problem.
    public func checked(for patient: PatientID, file: String) throws -> CheckedDoseSettings {
        switch checked(for: patient) {
        case let .success(settings): return settings
        case let .failure(refusal): throw InputError(SourceLocation(file: file), refusal.description)
        }
    }
}

extension DoseSettings {
    /// The settings as the file format writes them (sorted keys, absent fields left out).
    public func jsonText() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    /// Writes the settings atomically to `url`, never over `original` (the file they were read
    /// from): the clinician's settings stay as they are.
    public func write(to url: URL, notOver original: URL) throws {
        try ReadFiles([original.path], role: "the current settings file").check(output: url)
        let file = try AtomicTextFile(url: url)
        file.writeLine(try jsonText())
        try file.commit()
    }
}
