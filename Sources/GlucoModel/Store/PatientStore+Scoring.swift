import Foundation
import GRDB

/// How far nightly scoring got for one patient.
public struct ScoringState: Sendable, Hashable {
    public var patient: PatientID
    /// Issue moments up to and including this instant have been scored.
    public var lastScoredAt: Date
    /// When the state was last advanced.
    public var updatedAt: Date
    /// The night (`YYYY-MM-DD`) whose files the last advance wrote; nil in states written before
    /// store migration v5.
    public var night: String?
    /// The state `night` started from: that night's files hold the patient's rows issued after it
    /// (nil: from the patient's first reading, or no `night`).
    public var nightFrom: Date?

    public init(patient: PatientID, lastScoredAt: Date, updatedAt: Date, night: String? = nil, nightFrom: Date? = nil) {
        self.patient = patient
        self.lastScoredAt = lastScoredAt
        self.updatedAt = updatedAt
        self.night = night
        self.nightFrom = nightFrom
    }

    init(_ row: Row, patient: PatientID) {
        self.init(patient: patient, lastScoredAt: Date(timeIntervalSince1970: row["last_scored_at"]),
                  updatedAt: Date(timeIntervalSince1970: row["updated_at"]), night: row["night"],
                  nightFrom: (row["night_from"] as Double?).map { Date(timeIntervalSince1970: $0) })
    }
}

extension PatientStore {
    /// The patient's scoring state, or nil when the patient was never scored.
    public func scoringState(for patient: PatientID) throws -> ScoringState? {
        try db.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM scoring_state WHERE patient_id = ?", arguments: [patient.rawValue])
        }.map { ScoringState($0, patient: patient) }
    }

    /// Every patient's scoring state, sorted by patient.
    public func scoringStates() throws -> [ScoringState] {
        try db.read { db in try Row.fetchAll(db, sql: "SELECT * FROM scoring_state ORDER BY patient_id") }.map { row in
            ScoringState(row, patient: try PatientID(row["patient_id"]))
        }
    }

    /// Records, in one transaction, that the patient is scored up to `lastScoredAt`, by a run of
    /// `night` whose files hold the patient's rows issued after `nightFrom` (nil: all). The state
    /// never moves backwards: an older `lastScoredAt` than the stored one changes nothing.
    public func advanceScoring(for patient: PatientID, to lastScoredAt: Date, night: String? = nil, nightFrom: Date? = nil,
                               at now: Date = Date()) throws {
        try db.write { db in
            try db.execute(sql: """
                INSERT INTO scoring_state (patient_id, last_scored_at, updated_at, night, night_from) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT(patient_id) DO UPDATE SET last_scored_at = excluded.last_scored_at, updated_at = excluded.updated_at,
                    night = excluded.night, night_from = excluded.night_from
                WHERE excluded.last_scored_at > scoring_state.last_scored_at
                """, arguments: [patient.rawValue, lastScoredAt.timeIntervalSince1970, now.timeIntervalSince1970,
                                 night, nightFrom?.timeIntervalSince1970])
        }
    }
}

extension PatientStore {
    /// The time of the patient's newest glucose reading (at or before `moment`, when given), or nil
    /// without readings (one indexed query, read from the patient's newest record backwards:
    /// nightly runs use it to skip patients with nothing new without loading their log).
    public func newestGlucoseTime(for patient: PatientID, by moment: Date? = nil) throws -> Date? {
        try db.read { db in
            try Double.fetchOne(db, sql: """
                SELECT time FROM records WHERE patient = (SELECT number FROM patients WHERE id = ?) AND kind = ? AND time <= ?
                ORDER BY time DESC LIMIT 1
                """, arguments: [patient.rawValue, StoreSchema.code(.glucose), (moment ?? .distantFuture).timeIntervalSince1970])
        }.map { Date(timeIntervalSince1970: $0) }
    }
}
