import Foundation

/// The result of scoring a CSV of (reference, prediction) pairs.
public struct PairScoreSummary: Sendable {
    public var file: String
    /// Data rows read (header and blank lines excluded).
    public var rows = 0
    /// Rows whose reference or prediction text was not a number (each also reported as a warning).
    public var unparseableRows = 0
    public var clarke = ZoneCounts(grid: .clarke)
    public var parkesType1 = ZoneCounts(grid: .parkesType1)
    public var parkesType2 = ZoneCounts(grid: .parkesType2)
    public var accuracy = AccuracyMetrics()

    public init(file: String) { self.file = file }

    /// The text the `score` command prints.
    public var report: String {
        var lines = ["\(file): \(rows) rows, \(clarke.scored) scored, \(clarke.unscored) unscored"
            + " (\(unparseableRows) with unparseable numbers)"]
        for counts in [clarke, parkesType1, parkesType2] { lines.append(counts.summaryLine) }
        lines.append("RMSE \(formatNumber(accuracy.rmse, decimals: 2)) mg/dL  MAE \(formatNumber(accuracy.mae, decimals: 2)) mg/dL"
            + "  MARD \(formatPercent(accuracy.mard))  bias \(formatNumber(accuracy.meanBias, decimals: 2)) mg/dL"
            + " (\(accuracy.count) scored pairs)")
        return lines.joined(separator: "\n")
    }
}

/// Scores a CSV of pairs on the three grids and writes one output row per input row.
///
/// Input: a header naming at least `reference` and `prediction` (any order, case-insensitive,
/// other columns ignored), then one pair per line in mg/dL. An empty field is a missing value;
/// a field that is not a number makes the row unscored with a warning naming file:line and
/// column; a row without enough fields likewise. Output: `reference,prediction,clarke,parkes_type1,parkes_type2`,
/// the two values copied as written, zones empty for unscored rows.
public enum PairScoring {
    public enum ScoringError: Error, CustomStringConvertible {
        case missingColumns(file: String, missing: [String], header: String)
        case empty(file: String)

        public var description: String {
            switch self {
            case let .missingColumns(file, missing, header):
                return "\(file):1: the header must name the columns \(missing.joined(separator: " and ")) "
                    + "(found: \(header)); expected e.g. 'reference,prediction'"
            case let .empty(file):
                return "\(file): the file is empty; expected a header 'reference,prediction' and rows of mg/dL values"
            }
        }
    }

    public static let outputHeader = "reference,prediction,clarke,parkes_type1,parkes_type2"

    /// Streams `input`, calling `writeLine` for each output line (header first) and `warning`
    /// for each bad row.
    /// - Complexity: O(rows), constant memory.
    public static func score(csv input: URL, writeLine: (String) -> Void,
                             warning: (ImportIssue) -> Void) throws -> PairScoreSummary {
        let reader = LineReader(url: input)
        try reader.checkReadable()
        var summary = PairScoreSummary(file: input.path)
        var accuracy = AccuracyMetrics.Accumulator()
        var columns: (reference: Int, prediction: Int)? = nil
        var fields: [Substring] = []
        for (number, text) in reader {
            if text.utf8.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 44 }) { continue }
            guard let (ri, pi) = columns else {
                let names = CSVRow(text).fields.map { $0.lowercased() }
                let r = names.firstIndex(of: "reference"), p = names.firstIndex(of: "prediction")
                guard let r, let p else {
                    throw ScoringError.missingColumns(
                        file: input.path, missing: [r == nil ? "reference" : nil, p == nil ? "prediction" : nil].compactMap { $0 },
                        header: text)
                }
                columns = (r, p)
                writeLine(outputHeader)
                continue
            }
            summary.rows += 1
            split(text, into: &fields)
            var bad = false
            func read(_ index: Int, _ name: String) -> (text: Substring, value: Double?) {
                guard index < fields.count else {
                    warning(ImportIssue(.warning, SourceLocation(file: input.path, line: number, field: name),
                                        "the row has \(fields.count) fields, no \(name) column; row not scored"))
                    bad = true
                    return ("", nil)
                }
                let field = fields[index]
                if field.isEmpty { return (field, nil) }
                if let v = Double(field) { return (field, v) }
                warning(ImportIssue(.warning, SourceLocation(file: input.path, line: number, field: name),
                                    "'\(field)' is not a number; expected mg/dL; row not scored"))
                bad = true
                return (field, nil)
            }
            let reference = read(ri, "reference"), prediction = read(pi, "prediction")
            if bad { summary.unparseableRows += 1 }
            let pair = GlucosePair(reference: reference.value ?? .nan, prediction: prediction.value ?? .nan)
            let zones = pair.isScorable && !bad
                ? (ErrorGrid.clarke.zone(pair), ErrorGrid.parkesType1.zone(pair), ErrorGrid.parkesType2.zone(pair))
                : (nil, nil, nil)
            summary.clarke.add(zones.0)
            summary.parkesType1.add(zones.1)
            summary.parkesType2.add(zones.2)
            accuracy.add(bad ? GlucosePair(reference: .nan, prediction: .nan) : pair)
            var out = csvField(reference.text)
            out.reserveCapacity(32)
            out += ","
            out += csvField(prediction.text)
            for zone in [zones.0, zones.1, zones.2] {
                out += zone.map { "," + $0.rawValue } ?? ","
            }
            writeLine(out)
        }
        guard columns != nil else { throw ScoringError.empty(file: input.path) }
        summary.accuracy = accuracy.result
        return summary
    }

    /// Splits a line on commas; lines with a quote go through `CSVRow` (RFC 4180 quoting).
    static func split(_ line: String, into fields: inout [Substring]) {
        fields.removeAll(keepingCapacity: true)
        if line.utf8.contains(UInt8(ascii: "\"")) {
            fields.append(contentsOf: CSVRow(line).fields.map { Substring($0) })
            return
        }
        let utf8 = line.utf8
        var start = utf8.startIndex
        var i = start
        while i != utf8.endIndex {
            if utf8[i] == UInt8(ascii: ",") {
                fields.append(trim(line[start..<i]))
                start = utf8.index(after: i)
            }
            i = utf8.index(after: i)
        }
        fields.append(trim(line[start..<utf8.endIndex]))
    }

    static func trim(_ s: Substring) -> Substring {
        let u = s.utf8
        var a = u.startIndex, b = u.endIndex
        while a != b, u[a] == 32 || u[a] == 9 { a = u.index(after: a) }
        while b != a, u[u.index(before: b)] == 32 || u[u.index(before: b)] == 9 { b = u.index(before: b) }
        return s[a..<b]
    }

    /// Quotes a field for CSV output when it holds a comma, quote or line break.
    static func csvField(_ s: Substring) -> String {
        guard s.utf8.contains(where: { $0 == 44 || $0 == 34 || $0 == 10 || $0 == 13 }) else { return String(s) }
        return "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

/// Writes text to a file atomically: into a temporary file beside it, renamed over it at `commit()`.
/// Buffered, so a million short lines are a few large writes.
public final class AtomicTextFile {
    public let url: URL
    let temporary: URL
    let handle: FileHandle
    var buffer: [UInt8] = []

    public init(url: URL) throws {
        self.url = url
        temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(ProcessInfo.processInfo.processIdentifier).tmp")
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
            throw ImportError(SourceLocation(file: url.path), "cannot create a file in \(url.deletingLastPathComponent().path)")
        }
        handle = try FileHandle(forWritingTo: temporary)
        buffer.reserveCapacity(1 << 20)
    }

    public func writeLine(_ line: String) {
        buffer.append(contentsOf: line.utf8)
        buffer.append(UInt8(ascii: "\n"))
        if buffer.count >= 1 << 20 { flush() }
    }

    func flush() {
        handle.write(Data(buffer))
        buffer.removeAll(keepingCapacity: true)
    }

    /// Flushes, closes and renames the temporary file over `url`.
    public func commit() throws {
        flush()
        try handle.close()
        // rename(2) replaces an existing file atomically (same directory, same file system).
        guard rename(temporary.path, url.path) == 0 else {
            let reason = String(cString: strerror(errno))
            discard()
            throw ImportError(SourceLocation(file: url.path), "cannot write the file: \(reason)")
        }
    }

    /// Closes and deletes the temporary file (on error).
    public func discard() {
        try? handle.close()
        try? FileManager.default.removeItem(at: temporary)
    }
}
