import Foundation
import Testing
@testable import GlucoModel

@Suite struct UTF8CheckTests {
    func write(_ bytes: [UInt8]) throws -> URL {
        let url = ScratchSpace.root.appendingPathComponent("utf8-\(UUID().uuidString).xml")
        try Data(bytes).write(to: url)
        return url
    }

    @Test func findsTheLineOfTheFirstInvalidByteAcrossChunks() throws {
        // "é" is C3 A9 and "€" E2 82 AC: with 2-byte chunks both are cut, and must not be taken for errors.
        let valid = Array("a\né€\nb".utf8)
        let url = try write(valid)
        defer { try? FileManager.default.removeItem(at: url) }
        for chunk in [1, 2, 3, 1 << 20] {
            #expect(try UTF8Check.firstInvalidLine(in: url, chunkSize: chunk) == nil)
        }
        // 0xFB can never occur in UTF-8; here it stands on line 3 (after two newlines).
        let broken = Array("x\nyé\nva".utf8) + [0xFB] + Array("l\n".utf8)
        let url2 = try write(broken)
        defer { try? FileManager.default.removeItem(at: url2) }
        for chunk in [1, 2, 3, 1 << 20] {
            #expect(try UTF8Check.firstInvalidLine(in: url2, chunkSize: chunk) == 3)
        }
        // A file ending in the middle of a code point (C3 alone) is not UTF-8: line 1.
        let cut = try write(Array("abc".utf8) + [0xC3])
        defer { try? FileManager.default.removeItem(at: cut) }
        #expect(try UTF8Check.firstInvalidLine(in: cut, chunkSize: 2) == 1)
    }

    @Test func ohioImporterRejectsNonUTF8NamesInsteadOfTrapping() throws {
        // Found by the fuzz harness: an attribute name holding the byte 0xFB made Foundation's XMLParser
        // trap (signal 4). The importer must answer with an InputError naming the line (2 here).
        let text = Array("<patient id=\"p1\" weight=\"70\" insulin_type=\"rapid-acting\">\n<glucose_level><event ts=\"05-01-2026 00:00:00\" va".utf8)
            + [0xFB] + Array("lue=\"184\"/></glucose_level>\n</patient>\n".utf8)
        let url = try write(text)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect {
            try OhioXMLImporter().importFile(at: url, options: ImportOptions(timeZone: TimeZone(identifier: "UTC")!))
        } throws: { error in
            guard let e = error as? InputError else { return false }
            return e.issue.location.line == 2 && e.issue.message.contains("not UTF-8")
        }
    }
}
