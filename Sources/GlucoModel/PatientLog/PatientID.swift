/// A pseudonymous patient identifier.
///
/// Ids are opaque tokens chosen by the data's owner (e.g. `adolescent_003`, `559`).
/// They never hold a name or an e-mail: construction rejects text that looks like one
/// (an `@`, or white space), so no file the toolkit writes can carry it.
public struct PatientID: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String

    public enum InvalidID: Error, Equatable, CustomStringConvertible {
        case empty
        case tooLong(String)
        case looksLikePersonalData(String)
        case invalidCharacter(String, Character)
        case badStart(String)

        /// Why, never the text itself: an id that is not valid may be a name (`García`, `Ana.López`,
        /// a long one), and these words reach warnings, the store's import summaries, nightly's
        /// files and reports (hunt W). A single character, and where it is, is not personal data.
        public var description: String {
            switch self {
            case .empty: return "patient id is empty"
            case let .tooLong(s): return "patient id is longer than 64 characters (\(s.count))"
            case .looksLikePersonalData: return "patient id looks like an e-mail or a name; use a pseudonymous id"
            case let .invalidCharacter(s, c):
                let position = (s.firstIndex(of: c).map { s.distance(from: s.startIndex, to: $0) } ?? 0) + 1
                return "patient id has the character '\(TerminalText.escaped(String(c)))' (character \(position) of \(s.count)); use letters, digits, '-', '_' or '.'"
            case let .badStart(s):
                return "patient id must start with a letter or a digit, not '\(TerminalText.escaped(String(s.prefix(1))))'"
            }
        }
    }

    /// - Throws: `InvalidID` when the text is empty, too long, or could be personal data.
    public init(_ rawValue: String) throws {
        guard !rawValue.isEmpty else { throw InvalidID.empty }
        guard rawValue.count <= 64 else { throw InvalidID.tooLong(rawValue) }
        if PatientID.looksLikeEmail(rawValue) || rawValue.contains(where: \.isWhitespace) {
            throw InvalidID.looksLikePersonalData(rawValue)
        }
        if let bad = rawValue.first(where: { !($0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0))) }) {
            throw InvalidID.invalidCharacter(rawValue, bad)
        }
        // `.`, `..`, `.hidden`, `-x`: an id names a folder and appears on command lines.
        guard let first = rawValue.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic || ("0"..."9").contains(first) else {
            throw InvalidID.badStart(rawValue)
        }
        self.rawValue = rawValue
    }

    /// Whether `text` looks like an e-mail address: it has an `@`, or it ends in what an `@`
    /// replaced by `_` leaves (`name_example.com`: a `_` then a domain with a 2+ letter top level).
    public static func looksLikeEmail(_ text: String) -> Bool {
        if text.contains("@") { return true }
        guard let underscore = text.lastIndex(of: "_") else { return false }
        let domain = text[text.index(after: underscore)...].split(separator: ".", omittingEmptySubsequences: false)
        guard domain.count >= 2, domain.allSatisfy({ !$0.isEmpty }), let top = domain.last else { return false }
        return top.count >= 2 && top.allSatisfy { $0.isASCII && $0.isLetter }
    }

    public var description: String { rawValue }
    public static func < (a: PatientID, b: PatientID) -> Bool { a.rawValue < b.rawValue }

    public init(from decoder: any Decoder) throws {
        try self.init(decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }
}
