/// Day/month order for formats whose dates are ambiguous (LibreView, hand-written CSV).
public enum DateOrder: String, Sendable, Codable, CaseIterable {
    case dayMonthYear = "dmy"
    case monthDayYear = "mdy"
}
