import Foundation

/// A minimal Dexcom Clarity export for store tests: EGV rows, row `index` at 2010-01-01T00:00 UTC
/// plus 5·`index` minutes with `value` mg/dL, written in the order given (repeats included).
enum DexcomTestExport {
    static func write(_ url: URL, rows: [(index: Int, value: Int)], creatingFolder: Bool = false) throws {
        if creatingFolder {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        }
        var text = "Index,Timestamp (YYYY-MM-DDThh:mm:ss),Event Type,Event Subtype,Patient Info,Device Info,Source Device ID,"
            + "Glucose Value (mg/dL),Insulin Value (u),Carb Value (grams)\n"
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.timeZone = TimeZone(identifier: "UTC")
        format.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
        let start = Date(timeIntervalSince1970: 1_262_304_000)
        for (i, value) in rows {
            text += "\(i),\(format.string(from: start.addingTimeInterval(Double(i) * 300))),EGV,,,,G6,\(value),,\n"
        }
        try Data(text.utf8).write(to: url)
    }
}
