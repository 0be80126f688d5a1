/// The paper a report prints on. The clinician pages are laid out to fit the smaller of both
/// (A4 210 x 297 mm, Letter 215.9 x 279.4 mm) inside 10 mm margins, so either prints page 1
/// and page 2 on one sheet each; this only sets the `@page size` the browser prints with.
public enum PaperSize: String, Sendable, CaseIterable {
    case a4 = "A4"
    case letter = "letter"

    /// `a4`, `A4`, `letter`, `Letter`.
    public init?(name: String) {
        switch name.lowercased() {
        case "a4": self = .a4
        case "letter": self = .letter
        default: return nil
        }
    }
}
