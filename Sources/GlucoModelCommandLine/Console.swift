import Foundation
import GlucoModel
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one place the commands write messages for people: standard error, so that standard
/// output stays for results (CSV, JSON, tables) that other tools read.
public enum Console {
    /// A line of progress or a summary.
    public static func status(_ text: String) { write(text) }
    /// Something skipped or adjusted; the command goes on.
    public static func warn(_ text: String) { write("warning: " + text) }
    /// A part of the work that failed (a patient, a model, a file), the command going on with the
    /// rest: its exit status says so (a failed patient was a "warning:" above the table; hunt BE).
    public static func failed(_ text: String) { write("error: " + text) }
    /// A line as it is (an error message that names its file, a report meant for stderr).
    /// Control characters that came from files (escape sequences) are escaped; line breaks and tabs stay.
    public static func write(_ text: String) {
        standardError(TerminalText.escaped(text, keepingLines: true) + "\n")
    }

    /// Writes `text` to standard error as it is. A message that cannot be written (a full log disk,
    /// a closed descriptor, a log pipe whose reader is gone) is lost and the command goes on: what it
    /// writes to files and standard output, and its exit status, say how it went. `FileHandle`'s
    /// `write(_:)` trapped there (exit 132), between a nightly's quarantine move and the summary that
    /// records it (hunt AG, stop 57).
    public static func standardError(_ text: String) {
        try? StandardOutputError.writeAll(Array(text.utf8), to: STDERR_FILENO)
    }
}
