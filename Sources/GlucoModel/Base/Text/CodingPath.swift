import Foundation

/// A decoder's coding path as a message names a field: `basalSchedule[0].unitsPerHour`
/// (model files and settings files alike; Swift's own text reads `basalSchedule.Index 0.unitsPerHour`).
extension Array where Element == any CodingKey {
    public var fieldPath: String {
        map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().drop { $0 == "." }.description
    }
}

/// A decoder's refusal in plain words for a person who edited the file: `expected a number, found
/// text in quotes (write 12, not "12")`, where Foundation says `Expected to decode Double but found
/// a string instead.`
public enum DecodingText {
    /// What a field of `type` holds, as a person writes it.
    public static func expected(_ type: Any.Type) -> String {
        switch type {
        case is Double.Type, is Float.Type: return "a number"
        case is Int.Type, is Int64.Type, is Int32.Type, is UInt64.Type, is UInt32.Type, is UInt.Type: return "a whole number"
        case is String.Type: return "text in quotes"
        case is Bool.Type: return "true or false"
        default:
            let name = String(describing: type)
            return name.hasPrefix("Array") || name.hasPrefix("[") ? "a list [...]" : "an object {...}"
        }
    }

    /// What was found instead, from Foundation's description (`... but found a string instead.`).
    static func found(_ description: String) -> String? {
        guard let range = description.range(of: "found ") else { return nil }
        var what = description[range.upperBound...].replacingOccurrences(of: " instead", with: "")
            .trimmingCharacters(in: CharacterSet(charactersIn: ". ")).lowercased()
        // Foundation says "found a string" of one type and "found number" of another.
        for article in ["a ", "an "] where what.hasPrefix(article) { what.removeFirst(article.count) }
        switch what {
        case "string": return "text in quotes"
        case "number": return "a number"
        case "bool", "boolean": return "true or false"
        case "array", "list": return "a list [...]"
        case "dictionary", "object": return "an object {...}"
        case "null", "null value": return "null"
        default: return what.isEmpty ? nil : what
        }
    }

    /// A type mismatch: what the field holds and what was found, with how to write a number given as text.
    public static func wrongType(_ type: Any.Type, _ context: DecodingError.Context) -> String {
        let want = expected(type)
        guard let found = found(context.debugDescription) else { return "expected \(want)" }
        let hint = want.hasSuffix("number") && found == "text in quotes" ? " (write the number without quotes: 12, not \"12\")" : ""
        return "expected \(want), found \(found)" + hint
    }
}
