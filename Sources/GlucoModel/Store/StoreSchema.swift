import GRDB

/// The store's tables, created and upgraded through a `DatabaseMigrator`.
///
/// - `patients(id, insulin_kind)`
/// - `import_runs(id, patient_id, file_path, content_hash UNIQUE, format, started_at, finished_at,
///   records_added, records_already_stored, other_records JSON, summary JSON)`
/// - `records(id, patient_id, kind, subtype, time, end_time, value, extra, flag, moment, note,
///   source_file, source_line, import_run_id)`, one row per record of any kind, unique on
///   `(patient_id, kind, subtype, time, value)` so overlapping files do not duplicate data.
///   `source_file` is `''` in rows written since the import names its file once, in `import_runs.file_path`
///   (reached through `import_run_id`); older rows keep their own path and read back unchanged.
/// - `scoring_state(patient_id, last_scored_at, updated_at)` (v2): how far nightly scoring got.
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
        return m
    }
}
