import Foundation
import GRDB

/// An error of the store in a line a person reads: SQLite's reason, without the statement that
/// failed (GRDB's description quotes it whole: seven lines of SQL for a full disk; hunt P, stop 53).
public enum StoreErrorText {
    /// `SQLite error 13: database or disk is full` for a database error; nil for any other.
    public static func reason(_ error: any Error) -> String? {
        guard let database = error as? DatabaseError else { return nil }
        return "SQLite error \(database.resultCode.rawValue): \(database.message ?? "\(database.resultCode)")"
    }
}
