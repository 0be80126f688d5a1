import ArgumentParser
import Foundation
import GlucoModel

extension ParsableCommand {
    /// `main()` as ArgumentParser runs it, but the message of an error it prints (a
    /// `ValidationError` quoting a grammar's rule name, a config file's value) has the control
    /// characters that came from files escaped, as `Console.write` escapes every other message:
    /// a rule name holding ESC turned the terminal red (hunt K, stop 52). Help and version text go
    /// to standard output as they are.
    public static func mainEscapingMessages(_ arguments: [String]? = nil) {
        do {
            var command = try parseAsRoot(arguments)
            try command.run()
        } catch {
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if code == .success {
                if !message.isEmpty { print(message) }
            } else if !message.isEmpty {
                FileHandle.standardError.write(Data((TerminalText.escaped(message, keepingLines: true) + "\n").utf8))
            }
            Foundation.exit(code.rawValue)
        }
    }
}
