import Foundation

/// The registry of export formats, and detection of a file's format from its content.
public enum ImportFormats {
    /// Every importer, in detection order (more specific signatures first: Tidepool's typed
    /// records before Nightscout's looser JSON markers). The mapped CSV (`csv`) is last and never
    /// detected: it is read only when named, with a column mapping.
    public static let all: [any PatientDataImporter.Type] = [
        OhioXMLImporter.self, LogCSVImporter.self, DexcomClarityImporter.self, LibreViewImporter.self, TidepoolImporter.self, NightscoutImporter.self,
        MappedCSVImporter.self,
    ]

    /// How many bytes of a file detection looks at.
    public static let headBytes = 8 << 10

    /// The importer whose `recognizes(head:)` accepts the file's first `headBytes`, or nil.
    /// - Throws: `FileOpenError` when the file cannot be opened.
    public static func detect(_ url: URL) throws -> (any PatientDataImporter.Type)? {
        let handle = try FileOpenError.reading(url)
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: headBytes)) ?? Data()
        let head = String(decoding: data, as: UTF8.self)
        return all.first { $0.recognizes(head: head) }
    }

    /// The importer named `formatName` (the `--format` override), or nil.
    public static func named(_ formatName: String) -> (any PatientDataImporter.Type)? {
        all.first { $0.formatName == formatName.lowercased() }
    }

    /// The `formatName`s, for help texts and messages.
    public static var names: [String] { all.map { $0.formatName } }

    /// A new importer of `type`.
    public static func importer(_ type: any PatientDataImporter.Type) -> any PatientDataImporter {
        type.init()
    }

    /// Whether a file found in a folder is one to read: with a column mapping (`options.columns`),
    /// a file whose header has the mapped columns; with another forced format or none, a file some
    /// importer recognises (a data folder may also hold settings or notes).
    public static func isReadable(_ url: URL, options: ImportOptions) -> Bool {
        if let mapping = options.columns {
            guard let handle = try? FileHandle(forReadingFrom: url) else { return false }
            defer { try? handle.close() }
            let head = String(decoding: (try? handle.read(upToCount: headBytes)) ?? Data(), as: UTF8.self)
            return MappedCSVImporter.recognizes(head: head, mapping: mapping)
        }
        return (try? detect(url)) != nil
    }

    /// Every patient of a file (`PatientDataImporter.importPatients`: one, or several for a mapped
    /// CSV with a patient column), with the importer named `format` or the one detected.
    /// - Throws: as `importFile(at:format:options:)`.
    public static func importPatients(at url: URL, format: String? = nil, options: ImportOptions) throws -> [ImportResult] {
        try hintingAtContent(url, format: format) {
            try importer(for: url, format: format, options: options).importPatients(at: url, options: options)
        }
    }

    /// Imports a file with the importer named `format`, or the one detected from its content.
    /// - Throws: `InputError` for an unknown format name, an unrecognised file, or the importer's own errors.
    public static func importFile(at url: URL, format: String? = nil, options: ImportOptions) throws -> ImportResult {
        try hintingAtContent(url, format: format) {
            try importer(for: url, format: format, options: options).importFile(at: url, options: options)
        }
    }

    /// `body`, whose error, when the format was named and the file's content is another format's,
    /// says so: a CSV read as `ohio-xml` failed with "malformed XML: the document is empty", which
    /// does not tell its reader that the format option was the trouble.
    static func hintingAtContent<T>(_ url: URL, format: String?, _ body: () throws -> T) throws -> T {
        do { return try body() } catch var error as InputError {
            guard let format, let chosen = named(format), let seen = try? detect(url),
                  ObjectIdentifier(seen) != ObjectIdentifier(chosen) else { throw error }
            error.issue.message += "; the file's content is \(seen.formatName)'s, not \(chosen.formatName)'s: "
                + "leave the format option (--format) out to read each file as its content says"
            throw error
        }
    }

    /// The importer named `format`, or the mapped CSV's when `options` has a column mapping, or the
    /// one detected from the file's content.
    static func importer(for url: URL, format: String?, options: ImportOptions) throws -> any PatientDataImporter {
        let type: (any PatientDataImporter.Type)?
        if format == nil, options.columns != nil {
            type = MappedCSVImporter.self
        } else if let format {
            type = named(format)
            if type == nil {
                throw InputError(SourceLocation(file: url.path),
                                  "unknown format '\(format)'; expected one of \(names.joined(separator: ", "))")
            }
        } else {
            type = try detect(url)
        }
        guard let type else {
            throw InputError(SourceLocation(file: url.path, line: 1),
                              "the file is in none of the known formats; choose one of \(names.joined(separator: ", ")) with the format option")
        }
        return importer(type)
    }
}
