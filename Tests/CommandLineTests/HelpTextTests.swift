import ArgumentParser
import Foundation
import Testing
@testable import glucomodel_predict
@testable import glucomodel_train

/// Every subcommand's help text, pinned (as swift-argument-parser's own tests do): a change to an
/// option, its default or its words shows up here and must be made on purpose. To update a pin,
/// run with GLUCOMODEL_WRITE_HELP=1 and review the diff of Tests/CommandLineTests/Help/.
@Suite struct HelpTextTests {
    static let commands: [(name: String, command: any ParsableCommand.Type)] = [
        ("train", glucomodel_train.Train.self), ("collect", Collect.self), ("import-data", ImportData.self),
        ("bench-eval", BenchEval.self),
        ("predict", Predict.self), ("score", Score.self), ("metrics", Metrics.self), ("dose", Dose.self),
        ("settings", glucomodel_predict.Settings.self), ("nightly", Nightly.self), ("report", glucomodel_predict.Report.self),
    ]

    /// The pins, read from the source tree (so that rewriting them needs no rebuild).
    static let pinned = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Help")

    @Test(arguments: commands.map(\.name))
    func helpTextIsPinned(_ name: String) throws {
        let command = try #require(Self.commands.first { $0.name == name }).command
        let text = command.helpMessage(columns: 100)
        if ProcessInfo.processInfo.environment["GLUCOMODEL_WRITE_HELP"] == "1" {
            // A run that writes the pins checks nothing: it never passes (hunt T, stop 53); review the diff.
            let file = Self.pinned.appendingPathComponent("\(name).txt")
            if (try? String(contentsOf: file, encoding: .utf8)) != text {
                try Data(text.utf8).write(to: file)
                Issue.record("\(name).txt rewritten: review the diff")
            }
            return
        }
        let expected = try String(contentsOf: Self.pinned.appendingPathComponent("\(name).txt"), encoding: .utf8)
        #expect(text == expected)
    }
}
