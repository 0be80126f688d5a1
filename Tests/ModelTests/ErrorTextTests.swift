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
