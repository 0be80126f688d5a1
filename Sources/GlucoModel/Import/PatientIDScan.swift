import Foundation

/// The patient a file belongs to, found from its first lines without importing it: how a shard of
/// a job array picks its own files out of a large cohort before parsing any of them.
///
/// The id is decided by the same rule as the importer's, per format:
/// - an id given in `ImportOptions.patient` wins (as in every importer);
/// - OhioT1DM XML: the `id` attribute of the `<patient>` element (the first 64 KiB are read);
/// - GlucoModel CSV: the `patient` cell of the first data row that names a valid id (rows are read
///   with the importer's own row rules until one does; usually only the second line);
/// - Dexcom Clarity CSV: the file name's stem with the names of the `FirstName`/`LastName`
///   preamble rows removed (the preamble, up to the first row with a timestamp, is read);
/// - LibreView, Nightscout, Tidepool: the file name's stem (these files name no patient).
/// - Mapped CSV: the patient column's first valid id (the whole column is read: a file holding a
///   second patient cannot go to one shard, and is an error here), else the file name's stem.
///
/// The training command checks, after importing a shard's files, that every file's patient is the
/// one scanned here, and reports any file where they differ instead of training it.
public enum PatientIDScan {
    /// Bytes of the head looked at for an XML `<patient>` element.
    static let xmlHeadBytes = 64 << 10

    /// The id of the patient whose data `url` holds.
    /// - Parameter format: a format name forcing one importer, as in `ImportFormats.importFile`.
    /// - Throws: `InputError` when the file cannot be read, is in no known format, or names no valid
    ///   patient in the part read (importing it would fail too).
    public static func patient(of url: URL, format: String? = nil, options: ImportOptions) throws -> PatientID {
        if let id = options.patient { return id }
        let type: (any PatientDataImporter.Type)?
        if format == nil, options.columns != nil {
            type = MappedCSVImporter.self
        } else if let format {
            type = ImportFormats.named(format)
        } else {
            type = try ImportFormats.detect(url)
        }
        switch type {
        case is OhioXMLImporter.Type: return try ohioPatient(url)
        case is LogCSVImporter.Type: return try csvPatient(url, options: options)
        case is DexcomClarityImporter.Type: return try dexcomPatient(url, options: options)
        case is MappedCSVImporter.Type: return try mappedPatient(url, options: options)
        case .some: return try PatientLogBuilder.patientID(fromFileName: url.lastPathComponent, scrub: [])
        case .none:
            throw InputError(SourceLocation(file: url.path, line: 1), "the file is in none of the known formats")
        }
    }

    static func ohioPatient(_ url: URL) throws -> PatientID {
        let handle = try FileOpenError.reading(url)
        defer { try? handle.close() }
        let head = String(decoding: (try? handle.read(upToCount: xmlHeadBytes)) ?? Data(), as: UTF8.self)
        guard let raw = patientAttribute(in: head) else {
            throw InputError(SourceLocation(file: url.path), "no <patient id=...> element in the first \(xmlHeadBytes >> 10) KiB")
        }
        do { return try PatientID(raw) } catch {
            throw InputError(SourceLocation(file: url.path, field: "id"), "\(error)")
        }
    }

    /// The value of the `id` attribute of the first `<patient ...>` start tag in `xml`, or nil.
    static func patientAttribute(in xml: String) -> String? {
        guard let tag = xml.firstMatch(of: /<patient(\s[^>]*)?>/) else { return nil }
        let attributes = String(tag.output.1 ?? "")
        guard let id = attributes.firstMatch(of: /\sid\s*=\s*(?:"([^"]*)"|'([^']*)')/) else { return nil }
        return String(id.output.1 ?? id.output.2 ?? "")
    }

    static let fixPatient = "Write a pseudonymous id (letters, digits, '-', '_', '.') in the patient column, or give one (--patient)"

    /// Why no row of a CSV file named a valid patient: the first row whose patient `field` was
    /// skipped (`issues`, the import's warnings) with its reason, at its line; nil when none was.
    static func noValidPatient(_ issues: [ImportIssue], field: String?) -> InputError? {
        guard let bad = issues.first(where: { $0.location.field == field }) else { return nil }
        return InputError(bad.location, "no row names a valid patient id; the first: \(bad.message). " + fixPatient)
    }

    static func csvPatient(_ url: URL, options: ImportOptions) throws -> PatientID {
        let state = try LogCSVState.read(url, options: options, chunkSize: 64 << 10) { $0.patient != nil }
        if let patient = state.patient { return patient }
        throw state.noPatient(url)
    }

    static func dexcomPatient(_ url: URL, options: ImportOptions) throws -> PatientID {
        let reader = LineReader(url: url, chunkSize: 64 << 10)
        try reader.checkReadable()
        let builder = PatientLogBuilder(file: url.lastPathComponent, options: options)
        var columns: DexcomClarityImporter.Columns?
        var scrub: [String] = []
        var lines = reader.makeIterator()
        var row = CSVRow()
        while let (number, bytes) = lines.nextBytes() {
            if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x2C }) { continue }
            row.load(bytes)
            guard let c = columns else {
                columns = try DexcomClarityImporter.columns(row.fields, builder: builder, line: number)
                continue
            }
            if row.unterminatedQuote { continue }
            if !row.isEmpty(c.timestamp) { break }
            let type = row.text(c.eventType)
            if c.patientInfo >= 0, type == "FirstName" || type == "LastName" { scrub.append(row.text(c.patientInfo)) }
        }
        return try PatientLogBuilder.patientID(fromFileName: url.lastPathComponent, scrub: scrub)
    }

    static func mappedPatient(_ url: URL, options: ImportOptions) throws -> PatientID {
        var reader = try MappedCSVReader(url: url, options: options, onePatient: true)
        guard reader.mapping[.patient] != nil else {
            return try PatientLogBuilder.patientID(fromFileName: url.lastPathComponent, scrub: [])
        }
        let lines = LineReader(url: url, chunkSize: 64 << 10)
        try lines.checkReadable()
        var iterator = lines.makeIterator()
        var row = CSVRow()
        var found: PatientID?
        var firstBad: (line: Int, reason: String)?
        while let (number, bytes) = iterator.nextBytes() {
            if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x2C }) { continue }
            if reader.headerLine == 0 {
                if bytes.first == UInt8(ascii: "#") { continue }
                try reader.readHeader(CSVRow(bytes: bytes).fields, line: number)
                continue
            }
            row.load(bytes)
            let raw = row.text(reader.positions[.patient]!)
            if let last = found, last.rawValue == raw { continue }
            let id: PatientID
            do { id = try PatientID(raw) } catch {
                firstBad = firstBad ?? (number, raw.isEmpty ? "the patient cell is empty" : "\(error)")
                continue
            }
            if let first = found, first != id {
                throw InputError(SourceLocation(file: url.path, line: number, field: reader.names[.patient]),
                                 "a second patient '\(id)' (the file began with '\(first)'): a shard takes one patient per file; split the file")
            }
            found = id
        }
        guard let found else {
            let field = reader.names[.patient]
            guard let (line, reason) = firstBad else {
                throw InputError(SourceLocation(file: url.path, field: field), "the file has no rows. " + Self.fixPatient)
            }
            throw InputError(SourceLocation(file: url.path, line: line, field: field),
                             "no row names a valid patient id; the first: \(reason). " + Self.fixPatient)
        }
        return found
    }
}
