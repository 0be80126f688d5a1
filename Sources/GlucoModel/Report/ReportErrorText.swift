import Foundation

/// Error messages as a report or the cohort index prints them: a file by its name, never by its
/// folders. A clinic's folders are often named after a person ("Dr Jane Doe", an e-mail), and a
/// page names patients only by their pseudonymous id; the terminal keeps the whole path.
public enum ReportErrorText {
    /// `error`'s message with every file or folder it names cut to its base name.
    public static func describe(_ error: any Error) -> String {
        switch error {
        case var e as InputError:
            e.issue.location.file = baseName(e.issue.location.file)
            return e.description
        case let e as ModelFileError:
            switch e {
            case let .unreadable(p): return ModelFileError.unreadable(baseName(p)).description
            case let .notAModel(p): return ModelFileError.notAModel(baseName(p)).description
            case let .unsupportedVersion(p, v): return ModelFileError.unsupportedVersion(baseName(p), v).description
            case let .malformed(p, why): return ModelFileError.malformed(baseName(p), why).description
            case let .invalidField(p, field, why): return ModelFileError.invalidField(baseName(p), field: field, reason: why).description
            }
        case let PredictionError.noModel(patient, folder):
            return PredictionError.noModel(patient, folder: baseName(folder)).description
        default:
            return "\(error)"
        }
    }

    /// The last component of `path` (a name without folders is itself).
    public static func baseName(_ path: String) -> String {
        path.contains("/") ? URL(fileURLWithPath: path).lastPathComponent : path
    }
}
