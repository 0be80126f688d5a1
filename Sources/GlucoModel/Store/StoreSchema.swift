import GRDB

/// The store's tables, created and upgraded through a `DatabaseMigrator`.
///
/// - `patients(id, insulin_kind)`
/// - `import_runs(id, patient_id, file_path, content_hash UNIQUE, format, started_at, finished_at,
///   records_added, records_already_stored, other_records JSON, summary JSON, content_size, head_hash)`
///   (the last two v4, see `FileFingerprint`)
/// - `records(patient, kind, subtype, time, value, seq, end_time, extra, flag, moment, note,
///   source_file, source_line, import_run_id)` (v3; v1 had text patient and kind columns, an
///   AUTOINCREMENT id and a unique index), one row per record of any kind, `WITHOUT ROWID` with the
///   primary key `(patient, time, kind, subtype, value)` (v4; v3 had kind second) so overlapping files
///   do not duplicate data;
///   `patient` is `patients.number`, `kind` is `code(_:)`, `seq` orders records of one instant by import;
///   `part` (v7) a dual-wave bolus's part given at once, when the export states it; `subtype`
///   `cancel` (v8) a temporary basal of 0 minutes.
///   `source_file` is `''` in rows written since the import names its file once, in `import_runs.file_path`
///   (reached through `import_run_id`); older rows keep their own path and read back unchanged.
/// - `scoring_state(patient_id, last_scored_at, updated_at, night, night_from, last_run_id)` (v2;
///   `night` and `night_from` v5, `last_run_id` v6): how far nightly scoring got, which night's
///   files hold the rows up to there, and the newest import run it had read.
/// Times are seconds since 1970 UTC.
enum StoreSchema {
    static var migrator: DatabaseMigrator {
        var m = DatabaseMigrator()
        m.registerMigration("v1") { db in
            try db.create(table: "patients") { t in
                t.primaryKey("id", .text)
                t.column("insulin_kind", .text).notNull().defaults(to: InsulinKind.unknown.rawValue)
            }
            try db.create(table: "import_runs") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("patient_id", .text).notNull().references("patients")
                t.column("file_path", .text).notNull()
                t.column("content_hash", .text).notNull().unique()
                t.column("format", .text).notNull()
                t.column("started_at", .double).notNull()
                t.column("finished_at", .double).notNull()
                t.column("records_added", .integer).notNull()
                t.column("records_already_stored", .integer).notNull()
                t.column("other_records", .text).notNull()
                t.column("summary", .text).notNull()
            }
            try db.create(table: "records") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("patient_id", .text).notNull().references("patients")
                t.column("kind", .text).notNull()
                t.column("subtype", .text).notNull()
                t.column("time", .double).notNull()
                t.column("end_time", .double)
                t.column("value", .double).notNull()
                t.column("extra", .double)
                t.column("flag", .text)
                t.column("moment", .text)
                t.column("note", .text)
                t.column("source_file", .text).notNull()
                t.column("source_line", .integer)
                t.column("import_run_id", .integer).notNull().references("import_runs")
            }
            try db.create(index: "records_identity", on: "records",
                          columns: ["patient_id", "kind", "subtype", "time", "value"], unique: true)
        }
        // Nightly scoring: per patient, the newest reading already scored (never edit v1 above).
        m.registerMigration("v2-scoring-state") { db in
            try db.create(table: "scoring_state") { t in
                t.primaryKey("patient_id", .text).references("patients")
                t.column("last_scored_at", .double).notNull()
                t.column("updated_at", .double).notNull()
            }
        }
        // v3: records keyed by their identity (no rowid, no separate index), patient and kind as
        // small integers, `seq` ordering records of one instant by import (run id << 32, then the
        // file's order). Rows of older stores are copied over (seq = their old id, below any new run's).
        m.registerMigration("v3-records-by-identity") { db in
            try db.execute(sql: """
                ALTER TABLE patients ADD COLUMN number INTEGER;
                UPDATE patients SET number = rowid;
                CREATE UNIQUE INDEX patients_number ON patients(number);
                CREATE TABLE records_v3 (
                    patient INTEGER NOT NULL REFERENCES patients(number),
                    kind INTEGER NOT NULL,
                    subtype TEXT NOT NULL,
                    time REAL NOT NULL,
                    value REAL NOT NULL,
                    seq INTEGER NOT NULL,
                    end_time REAL, extra REAL, flag TEXT, moment TEXT, note TEXT,
                    source_file TEXT NOT NULL DEFAULT '',
                    source_line INTEGER,
                    import_run_id INTEGER NOT NULL REFERENCES import_runs(id),
                    PRIMARY KEY (patient, kind, subtype, time, value)
                ) WITHOUT ROWID;
                """)
            let cases = RecordKind.allCases.map { "WHEN '\($0.rawValue)' THEN \(code($0))" }.joined(separator: " ")
            try db.execute(sql: """
                INSERT INTO records_v3 (patient, kind, subtype, time, value, seq, end_time, extra, flag, moment, note,
                    source_file, source_line, import_run_id)
                SELECT p.number, CASE r.kind \(cases) END, r.subtype, r.time, r.value, r.id, r.end_time, r.extra, r.flag,
                    r.moment, r.note, r.source_file, r.source_line, r.import_run_id
                FROM records r JOIN patients p ON p.id = r.patient_id
                WHERE r.kind IN (\(RecordKind.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ")))
                ORDER BY p.number, r.kind, r.subtype, r.time, r.value;
                DROP TABLE records;
                ALTER TABLE records_v3 RENAME TO records;
                """)
        }
        // v4, for fast imports:
        // - each run's file size and SHA-256 of its first MiB (`FileFingerprint`), so an import need
        //   not hash the whole file before reading it unless an earlier run looks the same. Older runs
        //   have none (NULL): the full hash, checked at the end of every import, still finds them;
        // - `records` keyed by (patient, time, kind, subtype, value): the same identity, with time
        //   second, so a file read in time order appends at the end of the patient's rows, where
        //   SQLite inserts without searching the B-tree from its root. Rows are copied over as they are.
        m.registerMigration("v4-fast-import") { db in
            try db.execute(sql: """
                ALTER TABLE import_runs ADD COLUMN content_size INTEGER;
                ALTER TABLE import_runs ADD COLUMN head_hash TEXT;
                CREATE INDEX import_runs_fingerprint ON import_runs(content_size, head_hash);
                CREATE TABLE records_v4 (\(recordColumns), PRIMARY KEY (patient, time, kind, subtype, value)) WITHOUT ROWID;
                INSERT INTO records_v4 SELECT * FROM records ORDER BY patient, time, kind, subtype, value;
                DROP TABLE records;
                ALTER TABLE records_v4 RENAME TO records;
                """)
        }
        // v5: the night whose files the state's last advance wrote (`night`, its label) and the state
        // that night started from (`night_from`, NULL when it started from the patient's first
        // reading), so a later run of the same night rewrites the patient's files of the night from
        // there. Both NULL in states of older builds (their next run appends, as before).
        m.registerMigration("v5-scoring-night") { db in
            try db.execute(sql: """
                ALTER TABLE scoring_state ADD COLUMN night TEXT;
                ALTER TABLE scoring_state ADD COLUMN night_from REAL;
                """)
        }
        // v6: the newest import run whose records the state's last advance had read (`last_run_id`,
        // NULL in older states), so a run of the same night sees records imported since even when
        // they are all older than the state (a delayed upload, files delivered out of order), and
        // an index to find a patient's newest run.
        m.registerMigration("v6-scoring-runs") { db in
            try db.execute(sql: """
                ALTER TABLE scoring_state ADD COLUMN last_run_id INTEGER;
                CREATE INDEX import_runs_patient ON import_runs(patient_id, id);
                """)
        }
        // v7: a dual-wave bolus's part given at once, where the export states it (`part`, NULL in
        // older rows and for every other record: the series' share is used).
        m.registerMigration("v7-bolus-part") { db in
            try db.execute(sql: "ALTER TABLE records ADD COLUMN part REAL")
        }
        // v8: a temporary basal of 0 minutes (a cancel) has the subtype `cancel`, so that a later
        // import's temp with a length at its instant and rate is stored beside it (review BH, stop 61:
        // an OhioT1DM testing file's cancel made its training file's suspension "already stored").
        m.registerMigration("v8-temp-basal-cancels") { db in
            try db.execute(sql: """
                UPDATE records SET subtype = '\(TemporaryBasal.markerSubtype)'
                WHERE kind = \(code(.temporaryBasal)) AND subtype = '' AND IFNULL(end_time, time) <= time
                """)
        }
        return m
    }

    /// The columns of `records` as v3 made them (in this order: `SELECT *` copies rows to v4).
    static let recordColumns = """
        patient INTEGER NOT NULL REFERENCES patients(number), kind INTEGER NOT NULL, subtype TEXT NOT NULL,
        time REAL NOT NULL, value REAL NOT NULL, seq INTEGER NOT NULL,
        end_time REAL, extra REAL, flag TEXT, moment TEXT, note TEXT,
        source_file TEXT NOT NULL DEFAULT '', source_line INTEGER, import_run_id INTEGER NOT NULL REFERENCES import_runs(id)
        """

    /// The number that stands for a record kind in `records.kind` (v3). Fixed: never renumber.
    static func code(_ kind: RecordKind) -> Int {
        switch kind {
        case .glucose: return 1
        case .bolus: return 2
        case .basal: return 3
        case .temporaryBasal: return 4
        case .basalInjection: return 5
        case .carbs: return 6
        case .exercise: return 7
        case .weight: return 8
        case .heartRate: return 9
        }
    }

    /// The kind a `records.kind` number stands for.
    static func kind(code: Int) -> RecordKind? { RecordKind.allCases.first { Self.code($0) == code } }
}

