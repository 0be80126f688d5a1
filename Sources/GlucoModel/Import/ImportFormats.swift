import Foundation

/// The registry of export formats, and detection of a file's format from its content.
public enum ImportFormats {
    /// Every importer, in detection order (more specific signatures first: Tidepool's typed
    /// records before Nightscout's looser JSON markers).
    public static let all: [any PatientDataImporter.Type] = [
        OhioXMLImporter.self, LogCSVImporter.self, DexcomClarityImporter.self, LibreViewImporter.self, TidepoolImporter.self, NightscoutImporter.self,
    ]

    /// How many bytes of a file detection looks at.
    public static let headBytes = 8 << 10

    /// The importer whose `recognizes(head:)` accepts the file's first `headBytes`, or nil.
    /// - Throws: `InputError` when the file cannot be read.
    public static func detect(_ url: URL) throws -> (any PatientDataImporter.Type)? {
        guard let handle = try? FileHandle(forReadingFrom: url) else {
            throw InputError(SourceLocation(file: url.path), "cannot read the file (missing or not readable)")
        }
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
    public static func importer(_ type: any PatientDataImporter.Type) -> (any PatientDataImporter)? {
        type.init()
    }

    /// Imports a file with the importer named `format`, or the one detected from its content.
    /// - Throws: `InputError` for an unknown format name, an unrecognised file, or the importer's own errors.
    public static func importFile(at url: URL, format: String? = nil, options: ImportOptions) throws -> ImportResult {
        let type: (any PatientDataImporter.Type)?
        if let format {
            type = named(format)
            if type == nil {
                throw InputError(SourceLocation(file: url.lastPathComponent),
                                  "unknown format '\(format)'; expected one of \(names.joined(separator: ", "))")
            }
        } else {
            type = try detect(url)
        }
        guard let type, let importer = importer(type) else {
            throw InputError(SourceLocation(file: url.lastPathComponent, line: 1),
                              "the file is in none of the known formats; choose one of \(names.joined(separator: ", ")) with the format option")
        }
        return try importer.importFile(at: url, options: options)
    }
}
