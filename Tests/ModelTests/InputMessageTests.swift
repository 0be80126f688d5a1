import Foundation
import Testing
import GrammarEvolution
@testable import GlucoModel

/// Issue #12: messages that say where and what.
@Suite struct InputMessageTests {
    /// Before: the grammar trained a constant model (every phenotype failed to compile).
    @Test func grammarNamingUnknownVariablesIsAnErrorWithItsLines() throws {
        let text = """
            <e> ::= <e> + <v> | <v>
            # BG and CARBS are not features; G0, IOB, exp and lag are fine
            <v> ::= G0 | BG | exp(IOB) | lag(G0, 1)
                  | CARBS * 2
            """
        var options = try SyntheticCohort.options()
        options.grammar = GrammarSource(name: "mine.bnf", text: text)
        do {
            _ = try CohortTrainer(options: options, settings: CohortRunSettings(output: temporaryFolder("grammar-check")))
            Issue.record("a grammar naming BG and CARBS was accepted")
        } catch let TrainingError.grammarUnknownVariables(grammar, names, lines, _) {
            #expect(grammar == "mine.bnf")
            #expect(names == ["BG", "CARBS"] && lines == [3, 4])
        }
        let message = TrainingError.grammarUnknownVariables("mine.bnf", names: ["BG"], lines: [3], features: ["G0"]).description
        #expect(message == "mine.bnf: the grammar names variables the data does not have (line 3: 'BG'); the variables are G0")
    }

    @Test func bundledGrammarsNameOnlyFeatures() throws {
        for name in GrammarSource.bundledGrammarNames {
            let grammar = try Grammar(text: try GrammarSource.bundled(name).text, source: name)
            #expect(grammar.unknownNames(VariableNames(FeatureSet(horizonMinutes: 30).names)).isEmpty, "\(name)")
        }
    }

    /// The syntax error is on line 3, column 17: the comma missing after 10.
    @Test func settingsSyntaxErrorGivesLineAndColumn() throws {
        let url = temporaryFolder("settings").appendingPathComponent("p1.json")
        try Data("{\n  \"patient\": \"p1\",\n  \"carbRatio\": 10\n  \"target\": 110\n}\n".utf8).write(to: url)
        let error = try #require(throws: InputError.self) { try DoseSettings.load(url) }
        #expect(error.issue.location.line == 4)
        #expect(error.issue.message.hasPrefix("not valid JSON at line 4, column 3"))
        #expect(JSONSyntax.problem(in: Array("{\"a\": [1, 2,]}".utf8))?.column == 13)
        #expect(JSONSyntax.problem(in: Array("{\"a\": 1}".utf8)) == nil)
    }

    @Test func isfInMmolGetsAHint() {
        let problem = DoseRefusal.SettingProblem.outOfLimits("insulinSensitivity", value: 2.5, limits: DoseLimits.insulinSensitivity)
        #expect(problem.description.contains("looks like mmol/L per U") && problem.description.contains("45 mg/dL"))
        let carb = DoseRefusal.SettingProblem.outOfLimits("carbRatio", value: 1, limits: DoseLimits.carbRatio)
        #expect(!carb.description.contains("mmol"))
    }

    @Test func controlCharactersAreEscaped() {
        #expect(TerminalText.escaped("p\u{1B}[2J\u{7}ok") == "p\\u{1B}[2J\\u{7}ok")
        let issue = ImportIssue(.warning, SourceLocation(file: "a\u{1B}.csv", line: 2), "'\u{9B}31m' is not a number")
        #expect(issue.description == "a\\u{1B}.csv:2: warning: '\\u{9B}31m' is not a number")
        var summary = ImportSummary(file: "b\u{1B}]0;title\u{7}.csv")
        summary.rowsRead = 1
        #expect(summary.description.hasPrefix("b\\u{1B}]0;title\\u{7}.csv: 1 rows read"))
    }

    /// Before: a Dexcom export named like an e-mail address became the patient name_example.com.
    @Test func emailFileNameAsksForThePatientOption() throws {
        let dir = temporaryFolder("email-name")
        let url = dir.appendingPathComponent("name@example.com.json")
        try Data(#"[{"type": "sgv", "sgv": 120, "date": 1767600000000}]"#.utf8).write(to: url)
        let error = try #require(throws: InputError.self) { try NightscoutImporter().importFile(at: url, options: Fixture.options) }
        #expect(error.issue.message.contains("e-mail") && error.issue.message.contains("--patient"))
        var options = Fixture.options
        options.patient = try PatientID("p_7")
        #expect(try NightscoutImporter().importFile(at: url, options: options).log.patient.rawValue == "p_7")
    }
}
