/// A count with its noun for the lines people read: `1 patient`, `2 patients` (never `1 patients`).
public enum Plural {
    /// `n` and `singular`, or `plural` (default: `singular` + "s") when `n` is not 1.
    public static func of(_ n: Int, _ singular: String, plural: String? = nil) -> String {
        "\(n) " + (n == 1 ? singular : plural ?? singular + "s")
    }

    /// Items as a sentence lists them: `30`, `30 and 60`, `30, 60 and 120`.
    public static func list(_ items: [String]) -> String {
        guard let last = items.last else { return "" }
        return items.count == 1 ? last : items.dropLast().joined(separator: ", ") + " and " + last
    }
}
