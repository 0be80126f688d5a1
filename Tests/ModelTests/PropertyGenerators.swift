import Foundation
import GrammarEvolution
@testable import GlucoModel

/// Generators for the property tests: what the bundled data never shows, from one seeded
/// `SplitMix64` per case, so case `n` of a seed is always the same input.
enum PropertyGen {
    static let start = Fixture.date("2026-01-05T00:00:00Z")

    /// A synthetic patient with one or more of: random gaps, sensor floors and ceilings
    /// (40/400 runs), constant glucose, huge boluses, no insulin, no carbohydrates, one day only.
    static func patient(_ r: inout SplitMix64, id: String = "prop_p") -> (log: PatientLog, traits: [String]) {
        var traits: [String] = []
        let oneDay = Int.random(in: 0..<6, using: &r) == 0
        let days = oneDay ? 1 : Int.random(in: 4...6, using: &r)
        if oneDay { traits.append("one day") }
        var log = SyntheticCohort.patient(id, days: days, seed: r.next(), noise: Double.random(in: 0...20, using: &r))
        if Bool.random(using: &r) {
            traits.append("gaps")
            for _ in 0..<Int.random(in: 1...6, using: &r) {
                let from = Int.random(in: 0..<max(1, log.glucose.count), using: &r)
                let length = Int.random(in: 1...120, using: &r)
                log.glucose.removeSubrange(from..<min(log.glucose.count, from + length))
            }
        }
        if Bool.random(using: &r) {
            traits.append("floors/ceilings")
            for _ in 0..<Int.random(in: 1...4, using: &r) where !log.glucose.isEmpty {
                let from = Int.random(in: 0..<log.glucose.count, using: &r), value = Bool.random(using: &r) ? 40.0 : 400.0
                for i in from..<min(log.glucose.count, from + Int.random(in: 5...60, using: &r)) {
                    log.glucose[i].value = .mgdL(value)
                }
            }
        }
        if Int.random(in: 0..<5, using: &r) == 0 {
            traits.append("constant")
            let value = Double(Int.random(in: 40...400, using: &r))
            for i in log.glucose.indices { log.glucose[i].value = .mgdL(value) }
        }
        if Int.random(in: 0..<4, using: &r) == 0 {
            traits.append("huge boluses")
            for i in log.boluses.indices where Bool.random(using: &r) { log.boluses[i].dose = InsulinUnits(Double.random(in: 50...300, using: &r)) }
        }
        if Int.random(in: 0..<4, using: &r) == 0 {
            traits.append("no insulin")
            log.boluses = []; log.basalRates = []
        }
        if Int.random(in: 0..<5, using: &r) == 0 {
            traits.append("no carbs")
            log.carbs = []
        }
        return (log, traits)
    }

    /// A random infix expression over the model features, with operations that overflow,
    /// divide by zero and take logs of anything.
    static func expression(_ r: inout SplitMix64, depth: Int = 0) -> String {
        let leaves = ["G0", "G1", "G11", "IOB", "IA", "INS", "COB", "RA", "CARB", "EX", "HR"]
        if depth > 3 || Int.random(in: 0..<3, using: &r) == 0 {
            return Bool.random(using: &r) ? leaves[Int.random(in: 0..<leaves.count, using: &r)]
                : ["0", "1", "-1", "1e300", "1e-300", "0.5", "700"][Int.random(in: 0..<7, using: &r)]
        }
        let a = expression(&r, depth: depth + 1), b = expression(&r, depth: depth + 1)
        switch Int.random(in: 0..<10, using: &r) {
        case 0: return "(\(a) + \(b))"
        case 1: return "(\(a) - \(b))"
        case 2: return "(\(a) * \(b))"
        case 3: return "(\(a) / \(b))"
        case 4: return "exp(\(a))"
        case 5: return "log(\(a))"
        case 6: return "aq(\(a), \(b))"
        case 7: return "sqrt(\(a))"
        case 8: return "max(\(a), \(b))"
        default: return "square(\(a))"
        }
    }

    /// A random BNF grammar: rules over operators, features, unknown names, codon constants,
    /// ranges, recursion with and without a way out, stray symbols.
    static func grammar(_ r: inout SplitMix64) -> String {
        let rules = (0..<Int.random(in: 1...4, using: &r)).map { "<r\($0)>" }
        let pieces = ["G0", "IOB", "x[0..3]", "G[1..2]", "BG", "+", "-", "*", "/", "exp(", "(", ")", ",", "aq(", "<GECodonValue-0+9>",
                      "<GECodonValue--1.0+1.0>", "1.5", "lag(G0, 1)", "\"", "|", "<undefined>", "::=", "#", "''"]
        var text = ""
        for (i, rule) in rules.enumerated() {
            let alternatives = (0..<Int.random(in: 1...4, using: &r)).map { _ in
                (0..<Int.random(in: 1...5, using: &r)).map { _ in
                    Int.random(in: 0..<3, using: &r) == 0 ? rules[Int.random(in: 0..<rules.count, using: &r)]
                        : pieces[Int.random(in: 0..<pieces.count, using: &r)]
                }.joined(separator: " ")
            }
            text += "\(rule) ::= \(alternatives.joined(separator: i % 2 == 0 ? " | " : "\n    | "))\n"
        }
        return text
    }

    /// A random settings JSON text: fields missing, negative, huge, non-finite strings, mmol/L-like, wrong types.
    static func settingsJSON(_ r: inout SplitMix64, patient: String) -> String {
        let values = ["10", "45", "2.5", "-1", "0", "1e308", "\"nan\"", "\"12\"", "null", "[]", "110", "70", "8", "0.05", "75", "360", "1e-9"]
        var fields: [String] = []
        if Int.random(in: 0..<6, using: &r) != 0 { fields.append("\"patient\": \"\(Int.random(in: 0..<4, using: &r) != 0 ? patient : "someone")\"") }
        let valid = ["carbRatio": "10", "insulinSensitivity": "45", "target": "110", "suspendThreshold": "70", "maxBolus": "8",
                     "bolusIncrement": "0.05", "insulinPeakMinutes": "75", "insulinDurationMinutes": "360"]
        let mostlyValid = Bool.random(using: &r)
        for key in valid.keys.sorted() where Int.random(in: 0..<(mostlyValid ? 30 : 5), using: &r) != 0 {
            let value = mostlyValid && Int.random(in: 0..<10, using: &r) != 0 ? valid[key]! : values[Int.random(in: 0..<values.count, using: &r)]
            fields.append("\"\(key)\": \(value)")
        }
        var text = "{" + fields.joined(separator: ", ") + "}"
        if Int.random(in: 0..<8, using: &r) == 0, !text.isEmpty {
            text.remove(at: text.index(text.startIndex, offsetBy: Int.random(in: 0..<text.count, using: &r)))
        }
        return text
    }

    /// A feature row with ordinary, extreme and missing values.
    static func row(_ r: inout SplitMix64, count: Int) -> [Double] {
        (0..<count).map { _ in
            switch Int.random(in: 0..<8, using: &r) {
            case 0: return [0, -1, 1e300, -1e300, 1e-300, .greatestFiniteMagnitude][Int.random(in: 0..<6, using: &r)]
            default: return Double.random(in: 0...400, using: &r)
            }
        }
    }

    /// A mutation of a valid model's JSON object: a field replaced by a random value, a program
    /// token replaced or removed, an array shortened.
    static func mutate(_ object: [String: Any], _ r: inout SplitMix64) -> Any {
        let replacements: [Any] = [0, -1, 5, 1e308, -1e308, 100_000_000, "nan", "inf", "-inf", "x", NSNull(), [Any](), [String: Any](),
                                   ["x99"], ["add"], [1, 2], ["x0@0"], ["x0@-3"], 0.5, true]
        func pick() -> Any { replacements[Int.random(in: 0..<replacements.count, using: &r)] }
        func walk(_ value: Any, depth: Int) -> Any {
            if var dict = value as? [String: Any], !dict.isEmpty {
                let keys = dict.keys.sorted()
                let key = keys[Int.random(in: 0..<keys.count, using: &r)]
                switch Int.random(in: 0..<6, using: &r) {
                case 0: dict[key] = nil
                case 1, 2: dict[key] = pick()
                default: dict[key] = walk(dict[key]!, depth: depth + 1)
                }
                return dict
            }
            if var array = value as? [Any], !array.isEmpty {
                let i = Int.random(in: 0..<array.count, using: &r)
                switch Int.random(in: 0..<4, using: &r) {
                case 0: array.remove(at: i)
                case 1: array[i] = pick()
                case 2: array[i] = ["x\(Int.random(in: 0...30, using: &r))", "mul", "exp", "neg", "div", 1e308, 0][Int.random(in: 0..<7, using: &r)]
                default: array[i] = walk(array[i], depth: depth + 1)
                }
                return array
            }
            return pick()
        }
        var result: Any = object
        for _ in 0..<Int.random(in: 1...3, using: &r) { result = walk(result, depth: 0) }
        return result
    }
}
