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
                  | CARBS * 2 | pow(G0, 2)
            """
        var options = try SyntheticCohort.options()
        options.grammar = GrammarSource(name: "mine.bnf", text: text)
        do {
            _ = try CohortTrainer(options: options, settings: CohortRunSettings(output: temporaryFolder("grammar-check")))
            Issue.record("a grammar naming BG and CARBS was accepted")
        } catch let TrainingError.grammarUnknownVariables(grammar, names, lines, _, calls) {
            #expect(grammar == "mine.bnf")
            #expect(names == ["BG", "CARBS", "pow"] && lines == [3, 4, 4] && calls == [false, false, true])
        }
        let message = TrainingError.grammarUnknownVariables("mine.bnf", names: ["BG"], lines: [3], features: ["G0"]).description
        #expect(message == "mine.bnf: the grammar names variables the data does not have (line 3: 'BG'); the variables are G0")
        // A call is an unknown function, not a variable; a long list is cut at 10 (a range of
        // unknown names made a message of megabytes; hunt K, stop 52).
        let names = (0..<12).map { "Q\($0)" } + ["pow"]
        let both = TrainingError.grammarUnknownVariables("g.bnf", names: names, lines: Array(repeating: 1, count: 12) + [2], features: ["G0"],
                                                         calls: Array(repeating: false, count: 12) + [true]).description
        #expect(both.hasPrefix("g.bnf: the grammar names variables the data does not have (line 1: 'Q0', "))
        #expect(both.contains("line 1: 'Q9' and 2 more); the variables are G0; the grammar calls functions the evaluator does not have (line 2: 'pow'); the functions are "))
        #expect(both.hasSuffix(" lag") && both.contains(" exp ") && !both.contains("'Q10'"))
    }

    /// Before: `G[-1..2]` expands to `G-1` (G minus 1), `G0`, ... and `G[0-11]` is no range, so
    /// both were refused as naming an unknown variable `G`. Now the message says what is wrong with
    /// the range, at its line, as the grammar parser's own errors do. A `G` written alone is still
    /// an unknown variable.
    @Test func aRangeOfLagsBelowZeroOrMalformedSaysWhatIsWrong() throws {
        var options = try SyntheticCohort.options()
        func refusal(_ text: String) -> String {
            options.grammar = GrammarSource(name: "lags.bnf", text: text)
            do { _ = try CohortTrainer(options: options, settings: CohortRunSettings(output: temporaryFolder("grammar-lags"))) } catch {
                return "\(error)"
            }
            return "accepted"
        }
        let lags = "(G0 is the glucose at the time of prediction, G1 ... G11 the glucose 5 ... 55 minutes before)"
        #expect(refusal("<e> ::= <e> + <v> | <v>\n<v> ::= G[-1..2] | IOB")
                == "lags.bnf:2: 'G[-1..2]': a lag must be 0 or more \(lags); like G[0..2]")
        #expect(refusal("<e> ::= <e> + <v> | <v>\n<v> ::= IOB\n  | G[0-11] * 2")
                == "lags.bnf:3: 'G[0-11]': a range of lags is written G[lo..hi], outside quotes, with 0 <= lo <= hi <= 11, "
                + "like G[0..11] \(lags)")
        #expect(refusal("<e> ::= <e> + <v> | <v>\n<v> ::= IOB | G[1..3]") == "accepted")
        #expect(refusal("<e> ::= <e> + <v> | <v>\n<v> ::= IOB | G | HG[0..1]").hasPrefix(
            "lags.bnf: the grammar names variables the data does not have (line 2: 'G', line 2: 'HG0', line 2: 'HG1'); the variables are G0 "))
    }

    /// Before: `CARB1` (and `INS1` ...) without `--curves multi` was refused listing the variables,
    /// which do not hold it, and not saying which option gives it.
    @Test func aCurveAtSeveralSpeedsNamesItsOption() throws {
        var options = try SyntheticCohort.options()
        options.grammar = GrammarSource(name: "speeds.bnf", text: "<e> ::= <e> + <v> | <v>\n<v> ::= G0 | CARB1 | INS4 | CARB7")
        let features = (0..<12).map { "G\($0)" }.joined(separator: " ") + " IOB IA INS COB RA CARB EX HR"
        do {
            _ = try CohortTrainer(options: options, settings: CohortRunSettings(output: temporaryFolder("grammar-curves")))
            Issue.record("CARB1 was accepted without --curves multi")
        } catch {
            #expect("\(error)" == "speeds.bnf: the grammar names variables the data does not have (line 2: 'CARB1', line 2: 'CARB7', "
                    + "line 2: 'INS4'); the variables are \(features); CARB1 and INS4 are variables only with --curves multi or multi-free "
                    + "(the curves at several speeds, CARB1 ... CARB6 and INS1 ... INS4)")
        }
        let one = TrainingError.grammarUnknownVariables("s.bnf", names: ["INS1"], lines: [1], features: ["G0"]).description
        #expect(one.hasSuffix("; INS1 is a variable only with --curves multi or multi-free (the curves at several speeds, CARB1 ... CARB6 and INS1 ... INS4)"))
        // With the curves, CARB1 and INS4 are variables and CARB7 is not: no word of the option.
        for curves in [FeatureCurves.multi, .multiFree] {
            options.curves = curves
            do {
                _ = try CohortTrainer(options: options, settings: CohortRunSettings(output: temporaryFolder("grammar-curves")))
                Issue.record("CARB7 was accepted")
            } catch {
                #expect("\(error)".hasPrefix("speeds.bnf: the grammar names variables the data does not have (line 2: 'CARB7'); the variables are "))
                #expect(!"\(error)".contains("--curves"))
            }
        }
    }

    /// Before: README.md showed `x[0..37]` as the grammars' variable ranges, and a grammar copying it
    /// was refused (`x0` ... `x37` are no features). Every range README shows in code (a rule, or an
    /// alternative of `<v>`) makes a grammar the trainer accepts.
    @Test func theRangesREADMEShowsAreTheTrainersVariables() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let spans = readme.split(separator: "`", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 }.map { String($0.element) }
            .filter { !$0.contains("\n") && !$0.contains("--") && $0.range(of: #"[A-Za-z]\[-?[0-9]+\.\."#, options: .regularExpression) != nil }
        #expect(!spans.isEmpty)
        var options = try SyntheticCohort.options()
        for span in spans {
            options.grammar = GrammarSource(name: "readme.bnf", text: "<e> ::= <e> + <v> | <v>\n" + (span.contains("::=") ? span : "<v> ::= " + span))
            #expect(throws: Never.self, "\(span)") {
                try CohortTrainer(options: options, settings: CohortRunSettings(output: temporaryFolder("grammar-readme")))
            }
        }
    }

    /// Before: a grammar calling lag() trained with exit 0, every lagged expression scored +inf on
    /// training rows that begin at row 0 (and are not evenly spaced): the search was blind.
    @Test func aGrammarCallingLagIsRefusedWithItsLines() throws {
        var options = try SyntheticCohort.options()
        options.grammar = GrammarSource(name: "lagged.bnf", text: "<e> ::= <e> + <t> | <t>\n<t> ::= lag(IOB, 1) * 2 | G0")
        #expect(throws: TrainingError.grammarUsesLag("lagged.bnf", lines: [2])) {
            try CohortTrainer(options: options, settings: CohortRunSettings(output: temporaryFolder("grammar-lag")))
        }
        options.grammar = GrammarSource(name: "minus.bnf", text: "<e> ::= G1 \u{2212} G2")
        #expect(throws: GrammarError.self) {
            try CohortTrainer(options: options, settings: CohortRunSettings(output: temporaryFolder("grammar-minus")))
        }
    }

    /// Hunt BE (stop 61): a rule the start never reaches (a typo in a rule's name) and a grammar that
    /// names no feature trained without a word; an unreadable grammar file gave no reason. The shipped
    /// grammars warn of nothing.
    @Test func grammarWarningsAndUnreadableGrammarsAreSaid() throws {
        var options = try SyntheticCohort.options()
        let out = temporaryFolder("grammar-warnings")
        options.grammar = GrammarSource(name: "typo.bnf", text: "<e> ::= <e> + <v> | <v>\n<v> ::= G0 | IOB * <cc>\n<c> ::= 2 | 3\n<cc> ::= 1")
        #expect(try CohortTrainer(options: options, settings: CohortRunSettings(output: out)).grammarWarnings
                == ["grammar typo.bnf, line 3: rule <c> cannot be reached from the start rule <e>"])
        let unused = (0..<12).map { "<u\($0)> ::= G0" }.joined(separator: "\n")
        options.grammar = GrammarSource(name: "generated.bnf", text: "<e> ::= <e> + G0 | IOB\n" + unused)
        let many = try CohortTrainer(options: options, settings: CohortRunSettings(output: out)).grammarWarnings
        #expect(many.count == 11 && many.last == "grammar generated.bnf: 2 more rules cannot be reached from the start rule", "\(many)")
        options.grammar = GrammarSource(name: "constants.bnf", text: "<e> ::= <e> + <c> | <c>\n<c> ::= 1 | 2 | exp(3)")
        #expect(try CohortTrainer(options: options, settings: CohortRunSettings(output: out)).grammarWarnings
                == ["grammar constants.bnf: names no feature: every evolved expression is a constant, and each model the ARX alone"])
        for name in GrammarSource.bundledGrammarNames {
            options.grammar = try GrammarSource.bundled(name)
            #expect(try CohortTrainer(options: options, settings: CohortRunSettings(output: out)).grammarWarnings.isEmpty, "\(name)")
        }
        // A horizon off the 5-minute grid is refused before any data is read, not failed patient by patient.
        options.grammar = try GrammarSource.bundled("glucose-symbolic")
        options.horizons = [30, 7]
        #expect(throws: TrainingError.horizonNotOnGrid(horizon: 7, stepMinutes: 5)) {
            try CohortTrainer(options: options, settings: CohortRunSettings(output: out))
        }
        func reason(_ path: String) -> String {
            do { _ = try GrammarSource.load(path); return "read" } catch { return "\(error)" }
        }
        let folder = temporaryFolder("grammar-files")
        let latin1 = folder.appendingPathComponent("latin1.bnf")
        try Data("<e> ::= G0 # caf\u{E9}\n".utf8.map { $0 == 0xC3 ? 0xE9 : $0 }.filter { $0 != 0xA9 }).write(to: latin1)
        #expect(reason(folder.appendingPathComponent("none.bnf").path).hasSuffix("none.bnf': no such file"))
        #expect(reason(folder.path).hasSuffix("': it is a folder; give a grammar file"))
        #expect(reason(latin1.path).hasSuffix("latin1.bnf': not UTF-8 text at line 1; save the file as UTF-8"), "\(reason(latin1.path))")
        #expect(reason("glucose-symbolic.bnf") == "cannot read grammar file 'glucose-symbolic.bnf': no such file; the bundled grammars "
                + "are named without a folder or '.bnf': glucose-directed, glucose-symbolic")
    }

    @Test func bundledGrammarsNameOnlyFeatures() throws {
        for name in GrammarSource.bundledGrammarNames {
            let grammar = try Grammar(text: try GrammarSource.bundled(name).text, source: name)
            #expect(grammar.unknownNames(VariableNames(FeatureSet(horizonMinutes: 30).names)).isEmpty, "\(name)")
            #expect(grammar.lagLines().isEmpty && (try? Mapper(grammar: grammar)) != nil, "\(name)")
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
        // Audit 46: a file saved with a BOM (Windows Notepad) read "column 1: expected a value".
        try Data([0xEF, 0xBB, 0xBF] + Array("{\"patient\": \"p1\"}".utf8)).write(to: url)
        let bom = try #require(throws: InputError.self) { try DoseSettings.load(url) }
        #expect(bom.issue.message == "not valid JSON at line 1, column 1: a byte order mark (BOM) before the JSON, "
                + "which JSON does not allow: save the file as UTF-8 without BOM")
        #expect(JSONSyntax.problem(in: [0xFF, 0xFE] + Array("{\"a\": 1}".utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })?.message
                == "UTF-16 text: save the file as UTF-8")
    }

    /// Audit 46: `"bolusIncrement": .05` (or `5.`, `020`, `1e-400`) passed the syntax check and the
    /// decoder refused it: "not valid settings JSON: The given data was not valid JSON.", no line.
    @Test func aNumberJSONDoesNotAllowGivesItsLine() throws {
        let url = temporaryFolder("settings").appendingPathComponent("p1.json")
        for (number, why) in [(".05", "is not a JSON number"), ("5.", "is not a JSON number"), ("020", "is not a JSON number"),
                              ("-.5", "is not a JSON number"), ("1e-400", "is too small for a number")] {
            try Data("{\n  \"patient\": \"p1\",\n  \"bolusIncrement\": \(number)\n}\n".utf8).write(to: url)
            let error = try #require(throws: InputError.self) { try DoseSettings.load(url) }
            #expect(error.issue.location.line == 3, "\(number)")
            #expect(error.issue.message.hasPrefix("not valid JSON at line 3, column 21: '\(number)' \(why)"), "\(number)")
        }
        for number in ["0", "-0", "0.05", "20", "1E1", "10.0e+0", "2e-1", "5e-324", "0e5"] {
            #expect(JSONSyntax.problem(in: Array("{\"a\": \(number)}".utf8)) == nil, "\(number)")
        }
    }

    @Test func isfInMmolGetsAHint() {
        let problem = DoseRefusal.SettingProblem.outOfLimits("insulinSensitivity", value: 2.5, limits: DoseLimits.insulinSensitivity)
        #expect(problem.description.contains("looks like mmol/L per U") && problem.description.contains("45 mg/dL"))
        let carb = DoseRefusal.SettingProblem.outOfLimits("carbRatio", value: 1, limits: DoseLimits.carbRatio)
        #expect(!carb.description.contains("mmol"))
        // Hunt D: a target and a suspend threshold in mmol/L (6.1, 3.9) got no hint.
        let target = DoseRefusal.SettingProblem.outOfLimits("target", value: 6.1, limits: DoseLimits.correctionTarget)
        #expect(target.description.hasSuffix("(it looks like mmol/L: the file takes mg/dL, 6.1 mmol/L is about 110 mg/dL)"))
        let suspend = DoseRefusal.SettingProblem.outOfLimits("suspendThreshold", value: 3.9, limits: DoseLimits.suspendThreshold)
        #expect(suspend.description.hasSuffix("3.9 mmol/L is about 70 mg/dL)"))
        // 1 mmol/L is 18 mg/dL, below the suspend limits (67-110): no hint that would mislead.
        #expect(!DoseRefusal.SettingProblem.outOfLimits("suspendThreshold", value: 1, limits: DoseLimits.suspendThreshold).description.contains("mmol"))
    }

    /// Before: 1180 rows skipped for a bad time ended "... and 95 more warnings", of the 100 kept.
    @Test func warningLinesSayWhenTheWarningsWereCapped() {
        var summary = ImportSummary(file: "x.csv")
        summary.rowsRead = 1180
        for line in 1...1180 {
            summary.skip("bad time", line <= PatientLogBuilder.maxIssuesPerReason
                         ? ImportIssue(.warning, SourceLocation(file: "x.csv", line: line + 1, field: "time"), "not a time") : nil)
        }
        let lines = summary.warningLines(limit: 5)
        #expect(lines.count == 6)
        #expect(lines[5] == "... and 95 more warnings (the first of each kind; the summary line counts every row)")
        summary.skipped["bad time"] = 100
        #expect(summary.warningLines(limit: 5)[5] == "... and 95 more warnings")
    }

    @Test func controlCharactersAreEscaped() {
        #expect(TerminalText.escaped("p\u{1B}[2J\u{7}ok") == "p\\u{1B}[2J\\u{7}ok")
        // A right-to-left override turns what follows around on screen (hunt W): escaped too; a
        // letter of a right-to-left script is text, kept.
        #expect(TerminalText.escaped("ab\u{202E}cd\u{2066}e\u{200F}") == "ab\\u{202E}cd\\u{2066}e\\u{200F}")
        #expect(TerminalText.escaped("مريض") == "مريض")
        let issue = ImportIssue(.warning, SourceLocation(file: "a\u{1B}.csv", line: 2), "'\u{9B}31m' is not a number")
        #expect(issue.description == "a\\u{1B}.csv:2: warning: '\\u{9B}31m' is not a number")
        var summary = ImportSummary(file: "b\u{1B}]0;title\u{7}.csv")
        summary.rowsRead = 1
        #expect(summary.description.hasPrefix("b\\u{1B}]0;title\\u{7}.csv: 1 row read"))
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

    /// A Nightscout file (which names no patient) called `<stem>.json`.
    func nightscoutFile(_ stem: String) throws -> URL {
        let url = temporaryFolder("file-name-id").appendingPathComponent("\(stem).json")
        try Data(#"[{"type": "sgv", "sgv": 120, "date": 1767600000000}]"#.utf8).write(to: url)
        return url
    }

    /// Audit 39 (docs): a file name that is no id as it stands was rewritten into one: `John
    /// Smith.csv` became the patient `John_Smith`, `x y z.csv` `x_y_z`, `_x.csv` `x`, so a person's
    /// name went into every output as a pseudonymous id. README.md: "A file name that is no usable id
    /// is an error asking for `--patient`"; the import and the shard's scan now say so.
    @Test(arguments: ["John Smith", "x y z", "_x", "Jürgen_1", "a+b", "-p1", "..p1", String(repeating: "a", count: 65)])
    func aFileNameThatIsNoIdAsItStandsAsksForThePatientOption(_ stem: String) throws {
        let url = try nightscoutFile(stem)
        let error = try #require(throws: InputError.self) { try NightscoutImporter().importFile(at: url, options: Fixture.options) }
        #expect(error.issue.message.hasPrefix("the file does not name its patient, and its name is no usable id as it stands (patient id"))
        #expect(error.issue.message.hasSuffix("rename the file to a pseudonymous id (its name without the extension is the id), or import it with one (import-data --patient ID) and read the store (--store)"))
        #expect(throws: InputError.self) { try PatientIDScan.patient(of: url, options: Fixture.options) }
        var options = Fixture.options
        options.patient = try PatientID("p_7")
        #expect(try NightscoutImporter().importFile(at: url, options: options).log.patient.rawValue == "p_7")
    }

    /// Hunt C (stop 50): a GlucoModel CSV read with `--format ohio-xml` failed with "malformed XML:
    /// the document is empty" and nothing about the format option. The message now says what the
    /// content is; an error in a file of the format named stays as it was.
    @Test func aFormatNamedAgainstTheContentIsSaid() throws {
        let url = ScratchSpace.root.appendingPathComponent("p_fmt-\(UUID().uuidString).csv")
        defer { try? FileManager.default.removeItem(at: url) }
        try "patient,time,event,value,unit\np1,2026-01-01T00:00:00Z,glucose,120,mg/dL\n".write(to: url, atomically: true, encoding: .utf8)
        let error = try #require(throws: InputError.self) {
            try ImportFormats.importFile(at: url, format: "ohio-xml", options: Fixture.options)
        }
        #expect(error.issue.message.hasPrefix("malformed XML"), "\(error)")
        #expect(error.issue.message.hasSuffix("; the file's content is glucomodel-csv's, not ohio-xml's: leave the format option (--format) out to read each file as its content says"))
        #expect(try ImportFormats.importFile(at: url, options: Fixture.options).log.glucose.count == 1)
        try "time,event,value\n2026-01-01T00:00:00Z,glucose,120\n".write(to: url, atomically: true, encoding: .utf8)
        let own = try #require(throws: InputError.self) {
            try ImportFormats.importFile(at: url, format: "glucomodel-csv", options: Fixture.options)
        }
        #expect(own.issue.message.contains("no 'patient' column") && !own.issue.message.contains("format option"), "\(own)")
    }

    /// A file name that is an id as it stands (the bundled data's, the fixtures') is the id, unchanged.
    @Test(arguments: ["p1", "adolescent_003-ws-training", "child_003", "nightscout_both", "P_07.v2", "559"])
    func aFileNameThatIsAnIdIsKept(_ stem: String) throws {
        let url = try nightscoutFile(stem)
        let r = try NightscoutImporter().importFile(at: url, options: Fixture.options)
        #expect(r.log.patient.rawValue == stem)
        #expect(r.summary.warnings.contains { $0.message.contains("using id '\(stem)' from the file name") })
        #expect(try PatientIDScan.patient(of: url, options: Fixture.options).rawValue == stem)
    }

    /// The names a Dexcom preamble gives are taken out of its file name as whole words, with their
    /// separator; a name left inside a word, or nothing left, asks for the patient option.
    @Test func preambleNamesAreTakenOutAsWords() throws {
        let names = ["Jacinta", "Quintanilla"]
        func id(_ file: String) throws -> String { try PatientLogBuilder.patientID(fromFileName: file, scrub: names).rawValue }
        #expect(try id("Clarity_Export_Quintanilla_Jacinta_2026-11-20.csv") == "Clarity_Export_2026-11-20")
        #expect(try id("quintanilla-JACINTA-2026.csv") == "2026")
        #expect(try id("Clarity_Export_2026.csv") == "Clarity_Export_2026")
        for file in ["Jacinta Quintanilla.csv", "Quintanilla_Jacinta.csv", "Clarity_Export_JacintaQ_2026.csv",
                     "Clarity Export 2026.csv", "_Jacinta_x.csv"] {
            let error = #expect(throws: InputError.self, "\(file)") { try id(file) }
            #expect(error?.issue.message.contains("--patient") == true)
        }
    }
}

/// A settings file's keys: a misspelt limit or a key given twice is refused, naming the line.
@Suite struct SettingsKeyTests {
    func load(_ text: String) throws -> DoseSettings {
        let url = temporaryFolder("settings-keys").appendingPathComponent("p1.json")
        try Data(text.utf8).write(to: url)
        return try DoseSettings.load(url)
    }

    /// Before: the second carbRatio was dropped and the dose was computed with 2 g/U, five times the insulin.
    @Test func aKeyGivenTwiceIsRefusedWithBothLines() throws {
        let error = try #require(throws: InputError.self) {
            try load("{\n  \"patient\": \"p1\",\n  \"carbRatio\": 2,\n  \"insulinSensitivity\": 40,\n  \"carbRatio\": 20\n}\n")
        }
        #expect(error.issue.location.line == 5 && error.issue.location.field == "carbRatio")
        #expect(error.issue.message == "'carbRatio' is given twice (first at line 3)")
    }

    /// Before: `maxInsulinOnboard` was skipped and the dose had no IOB limit.
    @Test func anUnknownKeyIsRefusedWithTheNearestName() throws {
        let error = try #require(throws: InputError.self) {
            try load("{\"patient\": \"p1\",\n\"maxInsulinOnboard\": 0}")
        }
        #expect(error.issue.location.line == 2 && error.issue.location.field == "maxInsulinOnboard")
        #expect(error.issue.message.hasPrefix("unknown setting 'maxInsulinOnboard' (did you mean 'maxInsulinOnBoard'?); the settings are patient, carbRatio"))
        let spaced = try #require(throws: InputError.self) { try load("{\"maxBolus \": 1}") }
        #expect(spaced.issue.message.contains("did you mean 'maxBolus'?"))
        let other = try #require(throws: InputError.self) { try load("{\"comment\": \"x\"}") }
        #expect(!other.issue.message.contains("did you mean"))
    }

    /// Audit 39: a pump's carb-ratio schedule read "wrong type: Expected to decode Double but found
    /// an array instead", with no hint that the file holds one ratio.
    @Test func aScheduleWhereTheFileHoldsOneNumberSaysSo() throws {
        let error = try #require(throws: InputError.self) {
            try load("{\"patient\": \"p1\", \"target\": 110,\n\"carbRatio\": [{\"start\": \"00:00\", \"value\": 10},\n {\"start\": \"12:00\", \"value\": 8}]}")
        }
        #expect(error.issue.location.line == 2 && error.issue.location.field == "carbRatio")
        #expect(error.issue.message == "'carbRatio' is a list of 2 values, a schedule by time of day? "
                + "The settings hold one carb ratio (g/U) for the whole day, a number such as \"carbRatio\": 10")
        let isf = try #require(throws: InputError.self) { try load("{\"insulinSensitivity\": [40]}") }
        #expect(isf.issue.message.hasPrefix("'insulinSensitivity' is a list of 1 value, a schedule by time of day? "
                                            + "The settings hold one insulin sensitivity (mg/dL per U) for the whole day"))
        // Another wrong type in plain words, with the file, line and field (it read "wrong type:
        // Expected to decode Double but found a string instead.", with no line).
        let text = try #require(throws: InputError.self) { try load("{\"patient\": \"p1\",\n \"carbRatio\": \"10\"}") }
        #expect(text.issue.location.field == "carbRatio" && text.issue.location.line == 2)
        #expect(text.issue.message == "expected a number, found text in quotes (write the number without quotes: 12, not \"12\")")
    }

    @Test func aBasalEntrysKeysAreChecked() throws {
        let error = try #require(throws: InputError.self) {
            try load("{\"patient\": \"p1\",\n \"basalSchedule\": [{\"start\": \"00:00\", \"unitsPerHour\": 0.8},\n {\"start\": \"06:00\", \"rate\": 1}]}")
        }
        #expect(error.issue.location.line == 2 && error.issue.location.field == "basalSchedule[1].rate")
        let twice = try #require(throws: InputError.self) {
            try load("{\"basalSchedule\": [{\"start\": \"00:00\", \"unitsPerHour\": 0.8, \"unitsPerHour\": 8}]}")
        }
        #expect(twice.issue.message == "'unitsPerHour' is given twice")
    }

    /// Audit 46: a basal entry without its rate read "not valid settings JSON: DecodingError.keyNotFound:
    /// Key 'unitsPerHour' not found in keyed decoding container. Path: basalSchedule[0]. ..." with no
    /// field, a wrong type named "basalSchedule.Index 0.unitsPerHour", and a byte that is not UTF-8
    /// gave "[]" and no line.
    @Test func aBasalEntrysMissingOrNullOrMistypedValueNamesItsField() throws {
        let missing = try #require(throws: InputError.self) { try load("{\"basalSchedule\": [{\"start\": \"00:00\"}]}") }
        #expect(missing.issue.location.field == "basalSchedule[0].unitsPerHour")
        #expect(missing.issue.message == "missing; a basalSchedule entry is {\"start\": \"HH:mm\", \"unitsPerHour\": 0.8}")
        let null = try #require(throws: InputError.self) { try load("{\"basalSchedule\": [{\"start\": \"00:00\", \"unitsPerHour\": 1}, null]}") }
        #expect(null.issue.location.field == "basalSchedule[1]" && null.issue.message.hasPrefix("null; "))
        let text = try #require(throws: InputError.self) { try load("{\"target\": 110,\n\"basalSchedule\": [{\"start\": 0, \"unitsPerHour\": 1}]}") }
        #expect(text.issue.location.field == "basalSchedule[0].start" && text.issue.location.line == 2)
        #expect(text.issue.message == "expected text in quotes, found a number", "\(text.issue.message)")
        let url = temporaryFolder("settings-keys").appendingPathComponent("latin1.json")
        try Data(Array("{\"patient\": \"p1\",\n\"target\": 110,\n\"basalSchedule\": [{\"start\": \"00:00 ".utf8) + [0xE9]
                 + Array("\", \"unitsPerHour\": 1}]}".utf8)).write(to: url)
        let bytes = try #require(throws: InputError.self) { try DoseSettings.load(url) }
        #expect(bytes.issue.location.line == 3 && bytes.issue.location.field == nil)
        #expect(bytes.issue.message == "not UTF-8 text at line 3; save the file as UTF-8")
        let id = try #require(throws: InputError.self) { try load("{\"patient\": \"../p1\"}") }
        #expect(id.issue.location.field == "patient" && !id.issue.message.hasPrefix("not valid settings JSON"))
    }

    @Test func aFileThatIsNotAnObjectIsRefused() throws {
        let error = try #require(throws: InputError.self) { try load("[1, 2]") }
        #expect(error.issue.message.hasPrefix("expected a JSON object of settings"))
    }

    /// Every file the toolkit ships or writes still reads.
    @Test func theBundledSettingsAndAWrittenFileRead() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("datasets/settings")
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil).filter { $0.pathExtension == "json" }
        #expect(files.count >= 6)
        for file in files {
            // Read, and usable for dosing (their insulin curves within the limits, 360 minutes peaking at 65 or 75).
            let settings = try DoseSettings.load(file)
            #expect(settings.patient.map { (try? settings.checked(for: $0).get()) != nil } == true, "\(file.lastPathComponent)")
        }
        let full = DoseSettings(patient: try PatientID("p1"), carbRatio: 10, insulinSensitivity: 40, target: 110, suspendThreshold: 70,
                                maxBolus: 8, bolusIncrement: 0.05, insulinPeakMinutes: 75, insulinDurationMinutes: 360,
                                basalSchedule: [.init(start: "00:00", unitsPerHour: 0.8)], maxInsulinOnBoard: 6)
        #expect(try load(try full.jsonText()) == full)
    }
}
