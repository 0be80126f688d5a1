import Foundation

/// Picks the importer for a file from its first bytes.
public enum ImporterDetection {
    /// The importers this module provides itself (OhioT1DM XML, GlucoModel CSV).
    public static let builtIn: [any PatientDataImporter] = [OhioXMLImporter(), LogCSVImporter()]

    /// The first importer in `candidates` that recognizes the file's first 8 KiB.
    /// - Throws: `ImportError` when the file cannot be read or no importer recognizes it.
    public static func importer(for url: URL, among candidates: [any PatientDataImporter] = builtIn) throws -> any PatientDataImporter {
        guard let handle = FileHandle(forReadingAtPath: url.path) else {
            throw ImportError(SourceLocation(file: url.path), "cannot read the file (missing or not readable)")
        }
        defer { try? handle.close() }
        let head = String(decoding: (try? handle.read(upToCount: 8192)) ?? Data(), as: UTF8.self)
        guard let found = candidates.first(where: { type(of: $0).recognizes(head: head) }) else {
            let names = candidates.map { type(of: $0).formatName }.joined(separator: ", ")
            throw ImportError(SourceLocation(file: url.path, line: 1), "the file's format is not recognized; expected one of: \(names)")
        }
        return found
    }
}
