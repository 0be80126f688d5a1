/// A decoder's coding path as a message names a field: `basalSchedule[0].unitsPerHour`
/// (model files and settings files alike; Swift's own text reads `basalSchedule.Index 0.unitsPerHour`).
extension Array where Element == any CodingKey {
    public var fieldPath: String {
        map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().drop { $0 == "." }.description
    }
}
