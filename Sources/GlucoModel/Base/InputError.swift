/// Where in an input a problem was found: file, line (1-based) and field.
public struct SourceLocation: Hashable, Sendable, Codable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    public var field: String?
    /// The 1-based index of the record in a JSON export written on one line (an API's, Tidepool's),
    /// where every line is 1 (`JSONElementStream.isPacked`); nil otherwise.
    public var record: Int?

    public init(file: String, line: Int? = nil, field: String? = nil, record: Int? = nil) {
        self.file = file; self.line = line; self.field = field; self.record = record
    }

    public var description: String {
        var s = file
        if let line { s += ":\(line)" }
        if let record { s += " (record \(record))" }
        if let field { s += " [\(field)]" }
        return s
    }
}

/// A problem found while importing: a warning (the row is skipped or adjusted and
/// the import goes on) or an error (the file cannot be imported).
public struct ImportIssue: Hashable, Sendable, Codable, CustomStringConvertible {
    public enum Severity: String, Sendable, Codable { case warning, error }

    public var severity: Severity
    public var location: SourceLocation
    /// What was wrong and what was expected, e.g. "'abc' is not a number; expected mg/dL".
    public var message: String

    public init(_ severity: Severity, _ location: SourceLocation, _ message: String) {
        self.severity = severity; self.location = location; self.message = message
    }

    /// Printable: control characters a file put in the message or its name are escaped.
    public var description: String { TerminalText.escaped("\(location): \(severity): \(message)") }
}

/// A file that cannot be read at all (unreadable, not the format, truncated, a bad field):
/// the one "bad input" error of every reader (importers, model and settings files, CSVs).
public struct InputError: Error, Hashable, Sendable, CustomStringConvertible {
    public var issue: ImportIssue
    public init(_ location: SourceLocation, _ message: String) {
        issue = ImportIssue(.error, location, message)
    }
    public var description: String { issue.description }
}

/// The former name of `InputError` (every reader's error, not only the importers').
@available(*, deprecated, renamed: "InputError")
public typealias ImportError = InputError
