import Foundation
import GRDB
import GrammarEvolution
import Testing
@testable import GlucoModel

/// Hunt P (stop 53): on a full disk the trainer's checkpoint warnings printed Foundation's dump
/// (`Error Domain=NSCocoaErrorDomain Code=640 ... UserInfo={NSUnderlyingError=...}`), a file-size
/// limit read `NSCocoaErrorDomain error 512`, and nightly quoted seven lines of SQL. Each is now
/// the system's reason.
@Suite struct ErrorTextTests {
    @Test func aFileSystemErrorIsTheSystemsReason() {
        let full = NSError(domain: NSCocoaErrorDomain, code: 640,
                           userInfo: [NSUnderlyingErrorKey: NSError(domain: NSPOSIXErrorDomain, code: Int(ENOSPC))])
        #expect(SystemErrorText.reason(full) == "No space left on device")
        #expect(SystemErrorText.reason(NSError(domain: NSPOSIXErrorDomain, code: Int(EFBIG))) == "File too large")
        // With no system error beneath, Foundation's own words.
        let other = NSError(domain: NSCocoaErrorDomain, code: 4, userInfo: [NSLocalizedDescriptionKey: "The file doesn't exist."])
        #expect(SystemErrorText.reason(other) == "The file doesn't exist.")
    }

    @Test func aStoreErrorIsSQLitesReasonWithoutTheStatement() {
        let error = DatabaseError(resultCode: .SQLITE_FULL, message: "database or disk is full",
                                  sql: "INSERT INTO scoring_state (patient, last_scored_at) VALUES (?, ?) ON CONFLICT DO UPDATE SET x = 1")
        #expect(StoreErrorText.reason(error) == "SQLite error 13: database or disk is full")
        #expect(StoreErrorText.reason(InputError(SourceLocation(file: "f"), "x")) == nil)
    }
}

/// Hunt P (stop 53): a file nightly could not move out of its inbox (a read-only share) left a
/// copy and a reason file in the quarantine every night. A move that fails leaves nothing there.
@Suite struct QuarantineTests {
    @Test func aMoveThatFailsLeavesNothingInTheQuarantine() throws {
        let dir = ScratchSpace.root.appendingPathComponent("quarantine-\(UUID().uuidString)")
        let folder = dir.appendingPathComponent("quarantine")
        #expect(throws: (any Error).self) {
            try Quarantine.move(dir.appendingPathComponent("gone.csv"), into: folder, reason: "bad")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        // A move that succeeds leaves the file and its reason.
        let file = dir.appendingPathComponent("bad.csv")
        try Data("x\n".utf8).write(to: file)
        let moved = try Quarantine.move(file, into: folder, reason: "bad")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["bad.csv", "bad.csv.reason.txt"])
        #expect(moved.lastPathComponent == "bad.csv" && !FileManager.default.fileExists(atPath: file.path))
    }
}
