import Foundation
import Testing
import GrammarEvolution
@testable import GlucoModel

/// Issue #12: every model file is validated completely when read; a bad field is named, never run.
@Suite struct ModelFileValidationTests {
    /// A valid model with an ARX base (coefficient 1 on G0) and an evolved part `0.5 * IOB`.
    static func model() -> GlucoseModel {
        var m = DoseFixture.model("G0 + 0.5 * IOB", horizon: 30, features: FeatureSet(horizonMinutes: 30))
        m.base = .arx
        m.arx.coefficients[0] = 1
        return m
    }

    static func json(_ model: GlucoseModel) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: GlucoseModel.encoder.encode(model)) as! [String: Any]
    }

    /// Writes `object` as a model file and reads it back.
    static func read(_ object: [String: Any]) throws -> GlucoseModel {
        let url = temporaryFolder("model-validation").appendingPathComponent("h030.json")
        try JSONSerialization.data(withJSONObject: object).write(to: url)
        return try GlucoseModel.read(from: url)
    }

    static func setting(_ object: [String: Any], _ path: [String], _ value: Any) -> [String: Any] {
        var o = object
        if path.count == 1 { o[path[0]] = value } else {
            o[path[0]] = setting(o[path[0]] as! [String: Any], Array(path.dropFirst()), value)
        }
        return o
    }

    /// Version 2 is flat: the program is a token array, and no key is a compiler-made `_0`.
    @Test func roundTripIsFlatAndVersioned() throws {
        let m = Self.model()
        let text = String(decoding: try GlucoseModel.encoder.encode(m), as: UTF8.self)
        #expect(!text.contains("_0"))
        let object = try Self.json(m)
        #expect(object["version"] as? Int == 2)
        // G0 is column 0, IOB column 12 (after G0..G11): G0 + 0.5 * IOB in postfix.
        let tokens = object["program"] as! [Any]
        #expect(tokens.count == 5)
        #expect(tokens[0] as? String == "x0" && (tokens[1] as? NSNumber)?.doubleValue == 0.5)
        #expect(tokens[2] as? String == "x12" && tokens[3] as? String == "mul" && tokens[4] as? String == "add")
        #expect(try Self.read(object) == m)
    }

    /// The expression people read (the report's appendix) is the program that runs: an expression
    /// edited alone (or a program edited alone) is refused, naming the field; the same expression
    /// written otherwise (spacing, parentheses) is read.
    @Test func anExpressionThatIsNotTheProgramIsRefused() throws {
        let object = try Self.json(Self.model())
        #expect(object["expression"] as? String == "G0 + 0.5 * IOB")
        #expect(throws: ModelFileError.invalidField("h030.json", field: "expression", reason: "'G0 + 2 * IOB' is not the program, "
            + "which is what runs ('G0 + 0.5 * IOB'); the two are written together: edit neither by hand, or retrain "
            + "(glucomodel-train --retrain)").self) {
            try Self.decode(Self.setting(object, ["expression"], "G0 + 2 * IOB"))
        }
        #expect(throws: ModelFileError.self) { try Self.decode(Self.setting(object, ["program"], ["x0", 2, "x12", "mul", "add"])) }
        #expect(throws: ModelFileError.self) { try Self.decode(Self.setting(object, ["expression"], "not an expression (")) }
        #expect(try Self.decode(Self.setting(object, ["expression"], "G0+(0.5*IOB)")).program == Self.model().program)
    }

    static func decode(_ object: [String: Any]) throws -> GlucoseModel {
        try GlucoseModel.decode(JSONSerialization.data(withJSONObject: object), path: "h030.json")
    }

    /// Hunt R (stop 53): a 50 MB model file (an unknown key holding 25 million numbers) took 1.1 GB
    /// to read. A file beyond 16 MB is refused before it is read; one just under is read.
    @Test func aModelFileFarLargerThanAnyTheTrainerWritesIsRefused() throws {
        var object = try Self.json(Self.model())
        let text = String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        object["notes"] = String(repeating: "x", count: GlucoseModel.maximumFileBytes - text.utf8.count - 20)
        #expect(try Self.read(object).horizonMinutes == 30)
        object["notes"] = String(repeating: "x", count: GlucoseModel.maximumFileBytes + 1)
        #expect(throws: ModelFileError.self) { try Self.read(object) }
        do { _ = try Self.read(object) } catch {
            #expect("\(error)".contains("bytes, larger than any model file the trainer writes (the most read is 16777216 bytes, 16 MB)"), "\(error)")
        }
    }

    /// A version-1 file (program as `{"instructions": [{"variable": {"_0": 0}}, ...]}`) is still read.
    @Test func readsVersionOneFiles() throws {
        var object = try Self.json(Self.model())
        object["version"] = 1
        object["program"] = ["instructions": [["variable": ["_0": 0]], ["constant": ["_0": 0.5]],
                                              ["lagged": ["column": 12, "lag": 1]], ["operation": ["_0": 2]],
                                              ["operation": ["_0": 0]]]]
        object["expression"] = "G0 + 0.5 * lag(IOB, 1)"  // the text written with that program
        let m = try Self.read(object)
        #expect(m.program.instructions == [.variable(0), .constant(0.5), .lagged(column: 12, lag: 1),
                                           .operation(.mul), .operation(.add)])
        object["version"] = 3
        #expect(throws: ModelFileError.self) { try Self.read(object) }
    }

    /// Each edit of a valid file (the new value as JSON text), with the field the error must name.
    @Test(arguments: [
        (["features", "stepMinutes"], "0", "features.stepMinutes"),
        (["features", "stepMinutes"], "-5", "features.stepMinutes"),
        (["features", "glucoseLags"], "-1", "features.glucoseLags"),
        (["features", "glucoseLags"], "100000000", "features.glucoseLags"),
        (["features", "insulin", "durationMinutes"], "0", "features.insulin.durationMinutes"),
        (["features", "insulin", "peakMinutes"], "200", "features.insulin.peakMinutes"),
        (["features", "carbs", "ka"], "0", "features.carbs.ka"),
        (["horizonMinutes"], "33", "horizonMinutes"),
        (["program"], #"["x99"]"#, "program"),
        (["program"], "[]", "program"),
        (["program"], #"["add"]"#, "program"),
        (["program"], "[1, 2]", "program"),
        (["program"], #"["x0@-1"]"#, "program"),
        (["intercept"], #""nan""#, "intercept"),
        (["slope"], #""inf""#, "slope"),
        (["arx", "intercept"], #""-inf""#, "arx.intercept"),
        (["arx", "coefficients"], "[1.0, 2.0]", "arx.coefficients"),
        (["searches"], "1", "searches"),
        (["searches"], "101", "searches"),
    ])
    func malformedFieldIsNamed(path: [String], value: String, field: String) throws {
        let parsed = try JSONSerialization.jsonObject(with: Data(value.utf8), options: .fragmentsAllowed)
        let object = Self.setting(try Self.json(Self.model()), path, parsed)
        do {
            _ = try Self.read(object)
            Issue.record("accepted \(path) = \(value)")
        } catch let error as ModelFileError {
            switch error {
            case let .invalidField(file, named, _):
                #expect(named == field)
                #expect(file.hasSuffix("h030.json"))
            case let .malformed(file, why):
                // Tokens that are not instructions fail in decoding; the message names the program.
                #expect(field == "program" && why.contains("program") && file.hasSuffix("h030.json"))
            default: Issue.record("unexpected \(error)")
            }
        }
    }

    /// A missing field is named by its path, without Swift's internals.
    @Test func missingFieldIsNamed() throws {
        var object = try Self.json(Self.model())
        var features = object["features"] as! [String: Any]
        features["stepMinutes"] = nil
        object["features"] = features
        do {
            _ = try Self.read(object)
            Issue.record("a model without features.stepMinutes was accepted")
        } catch let ModelFileError.malformed(file, why) {
            #expect(file.hasSuffix("h030.json"))
            #expect(why == "field features.stepMinutes is missing")
        }
    }

    /// Before: `"version": "2"` said "not a GlucoModel model file", a key given twice was read
    /// silently, and `"horizonMinutes": 30.5` said "not valid JSON" of a file that is.
    @Test func versionDuplicateKeysAndUnholdableNumbersAreNamed() throws {
        let text = String(decoding: try GlucoseModel.encoder.encode(Self.model()), as: UTF8.self)
        func decode(_ t: String) -> ModelFileError? {
            do { _ = try GlucoseModel.decode(Data(t.utf8), path: "m.json"); return nil } catch { return error as? ModelFileError }
        }
        #expect(decode(text) == nil)
        let version = text.replacingOccurrences(of: #""version" : 2"#, with: #""version" : "2""#)
        #expect(version != text)
        #expect(decode(version) == .invalidField("m.json", field: "version", reason: "'2'; expected a version number"))
        let twice = text.replacingOccurrences(of: #""version" : 2"#, with: "\"seed\" : 7,\n  \"version\" : 2")
        guard case let .invalidField(_, field, reason)? = decode(twice) else { Issue.record("a key given twice was read"); return }
        #expect(field == "seed" && reason.hasPrefix("given twice (lines "))
        let fraction = text.replacingOccurrences(of: #""horizonMinutes" : 30"#, with: #""horizonMinutes" : 30.5"#)
        #expect(fraction != text)
        guard case let .malformed(_, why)? = decode(fraction) else { Issue.record("30.5 minutes was read"); return }
        // Foundation's decoder says neither field nor place; the reader finds the number (its line
        // and column counted here from the text).
        /// Where the number ending `member` (`"key" : number`) first stands in `t`.
        func place(_ t: String, _ member: String) -> String {
            let number = member.split(separator: " ").last!
            let before = t[..<t.range(of: member)!.upperBound].dropLast(number.count)
            let lines = before.split(separator: "\n", omittingEmptySubsequences: false)
            return "line \(lines.count), column \(lines.last!.count + 1)"
        }
        #expect(why == place(fraction, #""horizonMinutes" : 30.5"#) + ": field horizonMinutes: 30.5 is a fraction where a whole number belongs",
                "\(why)")
        // Of two, the first in the file; a whole number beyond 64 bits; 30.0 and 3e1 are read as 30.
        let two = fraction.replacingOccurrences(of: #""seed" : 1"#, with: #""seed" : 1e30"#)
        #expect(two != fraction)
        let seedFirst = two.range(of: #""seed" : 1e30"#)!.lowerBound < two.range(of: "30.5")!.lowerBound
        let first = seedFirst ? place(two, #""seed" : 1e30"#) + ": field seed: 1e30 is beyond the range of a whole number"
            : place(two, #""horizonMinutes" : 30.5"#) + ": field horizonMinutes: 30.5 is a fraction where a whole number belongs"
        #expect(decode(two) == .malformed("m.json", first))
        for whole in ["30.0", "3e1"] {
            #expect(decode(text.replacingOccurrences(of: #""horizonMinutes" : 30"#, with: "\"horizonMinutes\" : \(whole)")) == nil)
        }
        // Hunt R (stop 53): a negative seed, and a byte that is not UTF-8 in a text field, were both
        // blamed on "a number its field cannot hold", with no field or line.
        let negative = text.replacingOccurrences(of: #""seed" : 1"#, with: #""seed" : -1"#)
        #expect(negative != text)
        #expect(decode(negative) == .malformed("m.json", place(negative, #""seed" : -1"#)
            + ": field seed: -1 is negative where a whole number from 0 belongs (as seed)"))
        var latin1 = Array(text.utf8)
        let selection = Array(#""selection" : ""#.utf8)
        let at = try #require((0...(latin1.count - selection.count)).first { Array(latin1[$0..<($0 + selection.count)]) == selection })
        latin1.insert(0xE9, at: at + selection.count)  // "é" in Latin-1
        let line = 1 + latin1[..<at].count { $0 == 0x0A }
        #expect(throws: ModelFileError.malformed("m.json", "line \(line): a byte that is not UTF-8 text (saved in another encoding?): "
                                                 + "save the file as UTF-8, or retrain the model")) {
            _ = try GlucoseModel.decode(Data(latin1), path: "m.json")
        }
        #expect(decode(text.replacingOccurrences(of: #""schema" : "glucomodel.model""#, with: #""schema" : "other""#)) == .notAModel("m.json"))
    }

    /// A hand-edited field read in Swift's words ("wrong type (Expected to decode Double but found a
    /// string instead.)", "Cannot initialize ClosedRange<Double> with a lowerBound (5.0) greater than
    /// upperBound (1.0)"): now in plain words, the field named.
    @Test func handEditedFieldsAreRefusedInPlainWords() throws {
        let object = try Self.json(Self.model())
        func why(_ o: [String: Any]) -> String? {
            do { _ = try Self.read(o); return nil } catch let ModelFileError.malformed(_, why) { return why } catch { return "\(error)" }
        }
        #expect(why(Self.setting(object, ["intercept"], "1.5"))
                == "field intercept: expected a number, found text in quotes (write the number without quotes: 12, not \"12\")")
        #expect(why(Self.setting(object, ["evolvedRange"], [5, 1])) == "field evolvedRange: a range [low, high] whose low is above its high")
        #expect(why(Self.setting(object, ["training", "testTo"], "tomorrow"))?.hasSuffix("expected a time such as \"2026-01-05T00:00:00Z\" (ISO 8601)") == true)
    }

    /// The field named by the error reading `object` gives; nil when it is read.
    static func fieldRefused(_ object: [String: Any]) -> String? {
        do { _ = try read(object); return nil } catch let ModelFileError.invalidField(_, field, _) { return field } catch {
            return "\(error)"
        }
    }

    /// The extra curves (`CARB1`..., `INS1`...) are checked as the model's own, each named by its place.
    @Test func extraCurvesAreChecked() throws {
        let curves = FeatureSet.multiSpeed(insulin: .adultRapid, carbs: .standard)
        var m = DoseFixture.model("G0 + 0.5 * INS2 - 0.1 * CARB6", horizon: 30,
                                  features: FeatureSet(horizonMinutes: 30, carbCurves: curves.carbs, insulinCurves: curves.insulin))
        m.base = .none
        let object = try Self.json(m)
        #expect(try Self.read(object) == m)
        func edited(_ key: String, _ index: Int, _ field: String, _ value: Any) -> [String: Any] {
            var features = object["features"] as! [String: Any]
            var list = features[key] as! [[String: Any]]
            list[index][field] = value
            features[key] = list
            return Self.setting(object, ["features"], features)
        }
        for (edit, field) in [(edited("insulinCurves", 1, "peakMinutes", 500.0), "features.insulinCurves[1].peakMinutes"),
                              (edited("insulinCurves", 3, "durationMinutes", 5000.0), "features.insulinCurves[3].durationMinutes"),
                              (edited("carbCurves", 5, "ke", 0.0), "features.carbCurves[5].ke")] {
            #expect(Self.fieldRefused(edit) == field)
        }
        // A file cannot make a table of thousands of curves.
        var features = object["features"] as! [String: Any]
        features["carbCurves"] = Array(repeating: (features["carbCurves"] as! [Any])[0], count: 17)
        #expect(Self.fieldRefused(Self.setting(object, ["features"], features)) == "features.carbCurves")
        // The curves' derived insulin constants come from their peaks and durations too.
        let tampered = edited("insulinCurves", 0, "S", 1e9)
        #expect(try Self.read(tampered).features.insulinCurves == curves.insulin)
    }

    /// The insulin curve's derived constants come from its peak and duration, not the file.
    @Test func insulinConstantsAreRecomputed() throws {
        let object = Self.setting(try Self.json(Self.model()), ["features", "insulin", "S"], 1e9)
        #expect(try Self.read(object).features.insulin == .adultRapid)
    }
}
