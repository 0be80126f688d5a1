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
    /// The patient's newest import run with records (`PatientStore.newestImportRun`) when the
    /// state was last advanced; nil in states written before store migration v6.
    public var lastRunID: Int64?

    public init(patient: PatientID, lastScoredAt: Date, updatedAt: Date, night: String? = nil, nightFrom: Date? = nil,
                lastRunID: Int64? = nil) {
        self.patient = patient
        self.lastScoredAt = lastScoredAt
        self.updatedAt = updatedAt
        self.night = night
        self.nightFrom = nightFrom
        self.lastRunID = lastRunID
    }

    init(_ row: Row, patient: PatientID) {
        self.init(patient: patient, lastScoredAt: Date(timeIntervalSince1970: row["last_scored_at"]),
                  updatedAt: Date(timeIntervalSince1970: row["updated_at"]), night: row["night"],
                  nightFrom: (row["night_from"] as Double?).map { Date(timeIntervalSince1970: $0) }, lastRunID: row["last_run_id"])
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

    /// Records, in one transaction, that the patient is scored up to `lastScoredAt`, with the
    /// records of import runs up to `lastRunID`, by a run of `night` whose files hold the patient's
    /// rows issued after `nightFrom` (nil: all). The state never moves backwards: an older
    /// `lastScoredAt` than the stored one changes nothing; the same one (older records scored
    /// again in the same night) records the newer run.
    public func advanceScoring(for patient: PatientID, to lastScoredAt: Date, night: String? = nil, nightFrom: Date? = nil,
                               lastRunID: Int64? = nil, at now: Date = Date()) throws {
        try StoreFileError.refusingReadOnly(db.path) { try db.write { db in
            try db.execute(sql: """
                INSERT INTO scoring_state (patient_id, last_scored_at, updated_at, night, night_from, last_run_id) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT(patient_id) DO UPDATE SET last_scored_at = excluded.last_scored_at, updated_at = excluded.updated_at,
                    night = excluded.night, night_from = excluded.night_from, last_run_id = excluded.last_run_id
                WHERE excluded.last_scored_at > scoring_state.last_scored_at
                    OR (excluded.last_scored_at = scoring_state.last_scored_at
                        AND coalesce(excluded.last_run_id, -1) > coalesce(scoring_state.last_run_id, -1))
                """, arguments: [patient.rawValue, lastScoredAt.timeIntervalSince1970, now.timeIntervalSince1970,
                                 night, nightFrom?.timeIntervalSince1970, lastRunID])
        } }
    }

    /// The patient's newest import run that added records (runs are numbered in the order they
    /// began), or nil when none did: nightly compares it with the state's `lastRunID` to see
    /// records imported since, whatever their times.
    public func newestImportRun(for patient: PatientID) throws -> Int64? {
        try db.read { db in
            try Int64.fetchOne(db, sql: "SELECT id FROM import_runs WHERE patient_id = ? AND records_added > 0 ORDER BY id DESC LIMIT 1",
                               arguments: [patient.rawValue])
        }
    }

    /// How many of the patient's glucose readings after `after` (nil: all) were stored by import
    /// runs after `run` (nil: any): the readings a nightly run scores for the first time.
    public func glucoseCount(for patient: PatientID, after: Date?, importedAfter run: Int64?) throws -> Int {
        try db.read { db in
            try Int.fetchOne(db, sql: """
                SELECT count(*) FROM records WHERE patient = (SELECT number FROM patients WHERE id = ?) AND kind = ?
                    AND time > ? AND import_run_id > ?
                """, arguments: [patient.rawValue, StoreSchema.code(.glucose), (after ?? .distantPast).timeIntervalSince1970,
                                 run ?? -1]) ?? 0
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
