import Foundation
import Testing
@testable import GlucoModel

/// The byte-level helpers behind the fast importers: each must read exactly what the String-based
/// code it replaces read (the references here are Swift's `Double(String)`, `lowercased()` and
/// values worked out by hand).
@Suite struct ImportByteParsingTests {
    func plain(_ text: String) -> Double? { DecimalBytes.plain(Array(text.utf8)) }

    @Test func plainDecimalsAreReadAndEverythingElseIsLeftToTheSlowPath() {
        // By hand: 5.5 = 55 / 10, -0.25 = -(25 / 100), 120 = 120, 007 = 7.
        #expect(plain("5.5") == 5.5)
        #expect(plain("-0.25") == -0.25)
        #expect(plain("120") == 120 && plain("007") == 7)
        // -0 keeps its sign, as Double("-0") does.
        #expect(plain("-0")?.sign == .minus)
        // 15 digits is the longest exact integer path (10^15 < 2^53); 16 digits go the slow way.
        #expect(plain("123456789012345") == 123_456_789_012_345)
        #expect(plain("1234567890123456") == nil)
        // Not plain: exponent, spaces, decimal comma, sign '+', bare point, empty, sign alone.
        for text in ["1e3", " 12 ", "12 ", "1,5", "+5", "5.", ".5", "", "-", "1.2.3", "0x10", "nan"] {
            #expect(plain(text) == nil, "\(text)")
        }
    }

    @Test func cellNumbersReadTheSameWithAndWithoutTheFastPath() {
        // CSVRow.number(i) takes the byte path for plain decimals and the text path otherwise;
        // CSVRow.number(String) is the text path alone, the behaviour before the byte path.
        let row = CSVRow(#"5.5,-0.25,1e3," 12 ","1,5",nan,1.5.1,2.675,abc,"#)
        #expect(row.number(0) == 5.5 && row.number(1) == -0.25)
        #expect(row.number(2) == 1000)  // 1e3 = 1000, read by Double(String)
        #expect(row.number(3) == 12)    // a quoted field keeps its spaces; they are trimmed
        #expect(row.number(4) == 1.5)   // a decimal comma as the only separator is accepted
        #expect(row.number(5) == nil && row.number(6) == nil && row.number(8) == nil && row.number(9) == nil)
        #expect(row.number(7) == 2.675)  // the literal is the correctly rounded double, as is the division 2675 / 1000
        for i in 0..<row.count {
            #expect(row.number(i)?.bitPattern == CSVRow.number(row.text(i))?.bitPattern, "field \(i)")
        }
    }

    /// The date order's pass reads one field of every row without splitting the row (stop 54: the
    /// pass over a LibreView export split every row, half the splitting of an import). The field is
    /// the one `load` gives, or nil where a quote comes first or the row is short.
    @Test func oneFieldReadsAsTheSplitRowReadsIt() {
        var random = SystemRandomNumberGenerator()
        let pieces = ["", " ", "\t", "a", "12-01-2026 08:00 AM", " 7 ", ",", "\"", "x\"y", "é"]
        for _ in 0..<5000 {
            let line = (0..<Int.random(in: 0...8, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            let bytes = ArraySlice(Array(line.utf8))
            let row = CSVRow(bytes: bytes)
            for i in 0..<4 {
                guard let field = CSVRow.unquotedField(i, of: bytes) else {
                    #expect(line.contains("\"") || row.count <= i, "\(line) field \(i)")
                    continue
                }
                #expect(Array(field) == Array(row[i]), "\(line) field \(i)")
            }
        }
        #expect(CSVRow.unquotedField(2, of: ArraySlice(Array("a,b, 12-01-2026 08:00 ,0".utf8))).map { String(decoding: $0, as: UTF8.self) } == "12-01-2026 08:00")
        #expect(CSVRow.unquotedField(2, of: ArraySlice(Array("a,\"b\",c".utf8))) == nil)
        #expect(CSVRow.unquotedField(3, of: ArraySlice(Array("a,b,c".utf8))) == nil)
    }

    @Test func censoringOnBytesMatchesLowercasedText() {
        #expect(PatientLogBuilder.censoring(bytes: Array("Low".utf8)) == .belowRange)
        #expect(PatientLogBuilder.censoring(bytes: Array("LO".utf8)) == .belowRange)
        #expect(PatientLogBuilder.censoring(bytes: Array("HIGH".utf8)) == .aboveRange)
        #expect(PatientLogBuilder.censoring(bytes: Array("hI".utf8)) == .aboveRange)
        // The reference: the rule as written before, on lowercased text.
        func reference(_ s: String) -> Censoring? {
            switch s.lowercased() {
            case "low", "lo": return .belowRange
            case "high", "hi": return .aboveRange
            default: return nil
            }
        }
        for s in ["Low", "lOw", "LOW ", " lo", "Lower", "L", "", "hig", "HiGh", "h i", "LO\u{301}", "\u{212A}", "İ", "120", "5.5", "hi\0"] {
            #expect(PatientLogBuilder.censoring(s) == reference(s), "\(s)")
        }
    }

    @Test func tidepoolUnitsAreMilligramsWhenTheyStartWithMg() {
        #expect(TidepoolImporter.isMilligrams("mg/dL") && TidepoolImporter.isMilligrams("MG/DL") && TidepoolImporter.isMilligrams("mg"))
        #expect(!TidepoolImporter.isMilligrams("mmol/L") && !TidepoolImporter.isMilligrams(nil) && !TidepoolImporter.isMilligrams("m"))
        // A combining accent on the g makes another character: not "mg" (as lowercased().hasPrefix said).
        #expect(!TidepoolImporter.isMilligrams("mg\u{301}/dL"))
    }

    func temporaryFile(_ bytes: [UInt8], _ name: String) throws -> URL {
        let url = ScratchSpace.root.appendingPathComponent("bytes-\(UUID().uuidString)-\(name)")
        try Data(bytes).write(to: url)
        return url
    }

    @Test func lineReaderFindsLinesAcrossChunkBoundaries() throws {
        // BOM, CRLF, an empty line and a last line without a break, read 3 bytes at a time.
        let text = "\u{FEFF}ab\r\ncde\n\nf,g\r\nlast"
        let url = try temporaryFile(Array(text.utf8), "lines.csv")
        defer { try? FileManager.default.removeItem(at: url) }
        for chunk in [1, 3, 1 << 20] {
            let lines = LineReader(url: url, chunkSize: chunk).map { "\($0.number):\($0.text)" }
            #expect(lines == ["1:ab", "2:cde", "3:", "4:f,g", "5:last"], "chunk \(chunk)")
        }
        #expect(LineReader.newline(in: Array("ab\ncd\n".utf8), from: 3) == 5)
        #expect(LineReader.newline(in: Array("ab".utf8), from: 0) == nil && LineReader.newline(in: [], from: 0) == nil)
    }

    @Test func jsonElementsAreCutOutWholeAcrossChunksWithTheirLines() throws {
        // Brackets and escaped quotes inside strings do not count; elements start on lines 2 and 4.
        let json = "[\n{\"a\": \"x}\\\"]\", \"b\": [1, {\"c\": 2}]},\n\n{\"d\":\n 3}\n]\n"
        let url = try temporaryFile(Array(json.utf8), "cut.json")
        defer { try? FileManager.default.removeItem(at: url) }
        for chunk in [1, 2, 5, 1 << 20] {
            var seen: [(Int, JSONValue)] = []
            try JSONElementStream(url: url, chunkSize: chunk).forEach { seen.append(($0.line, try $0.value.get())) }
            #expect(seen.map(\.0) == [2, 4], "chunk \(chunk)")
            #expect(seen.first?.1["a"] == .string("x}\"]"))
            #expect(seen.first?.1["b"] == .array([.number(1), .object([("c", .number(2))])]))
            #expect(seen.last?.1["d"] == .number(3))
        }
    }

    @Test func truncatedJSONRecordsAreReportedWithTheirLine() throws {
        // The file ends inside the second record, which starts on line 2 and runs to line 3.
        let url = try temporaryFile(Array("[{\"a\": 1},\n{\"b\": \"open\n".utf8), "cut.json")
        defer { try? FileManager.default.removeItem(at: url) }
        let error = #expect(throws: InputError.self) { try JSONElementStream(url: url, chunkSize: 4).forEach { _ in } }
        #expect(error?.issue.message.contains("truncated") == true)
        #expect(error?.issue.location.line == 3)
    }

    @Test func logCSVChecksEachDifferentPatientTextEvenWhenItLooksTheSame() throws {
        // The Kelvin sign U+212A is canonically equivalent to "K" (so the two texts are == as
        // Strings) but is not ASCII, so PatientID rejects it: the cached id of "p_K" must not be
        // reused for it. Rows 2 and 4 are kept, row 3 is skipped as a bad patient id.
        let csv = "patient,time,event,value,unit\np_K,2026-01-05T08:00,glucose,100,mg/dL\n"
            + "p_\u{212A},2026-01-05T08:05,glucose,101,mg/dL\np_K,2026-01-05T08:10,glucose,102,mg/dL\n"
        let url = try temporaryFile(Array(csv.utf8), "kelvin.csv")
        defer { try? FileManager.default.removeItem(at: url) }
        let r = try LogCSVImporter().importFile(at: url, options: Fixture.options)
        #expect(r.log.glucose.map(\.value.mgdL) == [100, 102])
        #expect(r.summary.skipped["bad patient id"] == 1)
        #expect(r.log.patient.rawValue == "p_K")
    }
}
