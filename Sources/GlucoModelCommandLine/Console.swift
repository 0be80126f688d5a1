import Foundation
import GlucoModel

/// The one place the commands write messages for people: standard error, so that standard
/// output stays for results (CSV, JSON, tables) that other tools read.
public enum Console {
    /// A line of progress or a summary.
    public static func status(_ text: String) { write(text) }
    /// Something skipped or adjusted; the command goes on.
    public static func warn(_ text: String) { write("warning: " + text) }
    /// A line as it is (an error message that names its file, a report meant for stderr).
    /// Control characters that came from files (escape sequences) are escaped; line breaks and tabs stay.
    public static func write(_ text: String) {
        FileHandle.standardError.write(Data((TerminalText.escaped(text, keepingLines: true) + "\n").utf8))
    }
}
