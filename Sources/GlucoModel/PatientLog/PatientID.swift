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

        public var description: String {
            switch self {
            case .empty: return "patient id is empty"
            case let .tooLong(s): return "patient id '\(s.prefix(16))...' is longer than 64 characters"
            case .looksLikePersonalData: return "patient id looks like an e-mail or a name; use a pseudonymous id"
            case let .invalidCharacter(s, c): return "patient id '\(s)' has the character '\(c)'; use letters, digits, '-', '_' or '.'"
            }
        }
    }

    /// - Throws: `InvalidID` when the text is empty, too long, or could be personal data.
    public init(_ rawValue: String) throws {
        guard !rawValue.isEmpty else { throw InvalidID.empty }
        guard rawValue.count <= 64 else { throw InvalidID.tooLong(rawValue) }
        if rawValue.contains("@") || rawValue.contains(where: \.isWhitespace) {
            throw InvalidID.looksLikePersonalData(rawValue)
        }
        if let bad = rawValue.first(where: { !($0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0))) }) {
            throw InvalidID.invalidCharacter(rawValue, bad)
        }
        self.rawValue = rawValue
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
