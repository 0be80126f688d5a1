import Foundation

/// Streams the records of a large JSON export one at a time, in bounded memory.
///
/// Accepted shapes: a top-level array (`[{...}, {...}]`), or a top-level object whose members
/// are arrays (`{"entries": [...], "treatments": [...]}`) or single values. Each array element
/// is cut out of the byte stream by a small tokenizer (strings, escapes and nesting depth) and
/// parsed on its own with `JSONParser`, so memory holds one chunk plus one element.
/// - Complexity: O(n) in the file size; memory O(chunk + largest element).
public struct JSONElementStream {
    /// One element: the member name of its array (nil for a top-level array), the 1-based
    /// line where it starts, whether it came from an array, and the parsed value or why not.
    public struct Element {
        public var container: String?
        public var line: Int
        public var inArray: Bool
        public var value: Result<JSONValue, JSONParser.Failure>
        /// Its 1-based place among the file's elements.
        public var index = 0
    }

    public static let maxElementBytes = 4 << 20

    public let url: URL
    public let chunkSize: Int

    public init(url: URL, chunkSize: Int = 1 << 20) { self.url = url; self.chunkSize = chunkSize }

    /// Calls `body` for every element in file order.
    /// - Throws: `InputError` when the file is unreadable, not an array or object of arrays,
    ///   truncated, or holds an element larger than `maxElementBytes`.
    public func forEach(_ body: (Element) throws -> Void) throws {
        var count = 0
        try elements { element in
            var e = element
            count += 1
            e.index = count
            try body(e)
        }
    }

    /// Whether the file writes its records on one line, as the Nightscout API and Tidepool return
    /// them: at most one line break in its first 64 KiB. Its warnings name a record by its index
    /// (`SourceLocation.record`), as every line is 1.
    public func isPacked() -> Bool {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return false }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 64 << 10)) ?? Data()
        return head.count(where: { $0 == 0x0A }) <= 1
    }

    private func elements(_ body: (Element) throws -> Void) throws {
        let handle = try FileOpenError.reading(url)
        defer { try? handle.close() }
        var src = ByteSource(handle: handle, chunkSize: chunkSize)
        src.skipBOM()
        src.skipSpace()
        guard let first = src.next() else { throw fail(src, "the file is empty; expected a JSON array or object") }
        switch first {
        case UInt8(ascii: "["):
            try array(&src, container: nil, body)
        case UInt8(ascii: "{"):
            src.skipSpace()
            if src.peek() == UInt8(ascii: "}") { _ = src.next(); break }
            while true {
                src.skipSpace()
                guard src.next() == UInt8(ascii: "\"") else { throw fail(src, "expected a quoted member name in the top-level object") }
                var keyBytes: [UInt8] = [UInt8(ascii: "\"")]
                guard try scanString(&src, into: &keyBytes, store: true), keyBytes.count < 1_000,
                      case let .string(key)? = try? JSONParser.parse(keyBytes) else {
                    throw fail(src, "unterminated or malformed member name in the top-level object")
                }
                src.skipSpace()
                guard src.next() == UInt8(ascii: ":") else { throw fail(src, "expected ':' after \"\(key.prefix(40))\"") }
                src.skipSpace()
                if src.peek() == UInt8(ascii: "[") {
                    _ = src.next()
                    try array(&src, container: key, body)
                } else {
                    let line = src.line
                    let bytes = try element(&src)
                    try body(Element(container: key, line: line, inArray: false, value: Result { () throws(JSONParser.Failure) in try JSONParser.parse(bytes) }))
                }
                src.skipSpace()
                switch src.next() {
                case UInt8(ascii: ",")?: continue
                case UInt8(ascii: "}")?: break
                case nil: throw fail(src, "the file ends inside the top-level object (truncated?); expected '}'")
                default: throw fail(src, "expected ',' or '}' in the top-level object")
                }
                break
            }
        default:
            throw fail(src, "expected a JSON array '[' or object '{' at the start")
        }
        src.skipSpace()
        if src.peek() != nil { throw fail(src, "unexpected text after the end of the JSON value") }
    }

    private func array(_ src: inout ByteSource, container: String?,
                       _ body: (Element) throws -> Void) throws {
        src.skipSpace()
        if src.peek() == UInt8(ascii: "]") { _ = src.next(); return }
        while true {
            src.skipSpace()
            let line = src.line
            let bytes = try element(&src)
            try body(Element(container: container, line: line, inArray: true,
                             value: Result { () throws(JSONParser.Failure) in try JSONParser.parse(bytes) }))
            src.skipSpace()
            switch src.next() {
            case UInt8(ascii: ",")?: continue
            case UInt8(ascii: "]")?: return
            case nil: throw fail(src, "the file ends inside an array (truncated?); expected ']'")
            default: throw fail(src, "expected ',' or ']' between array elements")
            }
        }
    }

    /// Cuts one value out of the stream: a balanced `{...}`/`[...]`, a string, or a bare scalar.
    /// Brackets are only counted here; `JSONParser` checks that they match.
    private func element(_ src: inout ByteSource) throws -> [UInt8] {
        let truncated = "the file ends inside a record (truncated?)"
        guard let first = src.peek() else { throw fail(src, truncated) }
        var out: [UInt8] = []
        switch first {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            switch src.cutNested(into: &out, limit: JSONElementStream.maxElementBytes) {
            case .complete: return out
            case .tooLarge(inString: false):
                throw fail(src, "a record is larger than \(JSONElementStream.maxElementBytes >> 20) MiB; expected device records of a few hundred bytes")
            case .tooLarge(inString: true), .endOfFile: throw fail(src, truncated)
            }
        case UInt8(ascii: "\""):
            out.append(src.next() ?? 0)
            guard try scanString(&src, into: &out, store: true) else { throw fail(src, truncated) }
            return out
        default:
            while let b = src.peek(), b != UInt8(ascii: ","), b != UInt8(ascii: "]"), b != UInt8(ascii: "}"), b > 0x20 {
                out.append(b)
                _ = src.next()
                if out.count > 1_000 { throw fail(src, "a bare value longer than 1000 bytes; expected a JSON value") }
            }
            if out.isEmpty { throw fail(src, "expected a value, found '\(Character(Unicode.Scalar(first)))'") }
            return out
        }
    }

    /// Copies a string's bytes after its opening quote up to and including the closing one.
    /// - Returns: false at end of file.
    private func scanString(_ src: inout ByteSource, into out: inout [UInt8], store: Bool) throws -> Bool {
        while let b = src.next() {
            if store { out.append(b) }
            if out.count > JSONElementStream.maxElementBytes { return false }
            if b == UInt8(ascii: "\\") {
                guard let e = src.next() else { return false }
                if store { out.append(e) }
            } else if b == UInt8(ascii: "\"") {
                return true
            }
        }
        return false
    }
}

extension JSONElementStream {
    func fail(_ src: ByteSource, _ message: String) -> InputError {
        InputError(SourceLocation(file: url.lastPathComponent, line: src.line), message)
    }
}

/// Bytes of a file read in chunks, with the current line number.
struct ByteSource {
    let handle: FileHandle
    let chunkSize: Int
    var buffer: [UInt8] = []
    var index = 0
    var eof = false
    var line = 1

    init(handle: FileHandle, chunkSize: Int) { self.handle = handle; self.chunkSize = chunkSize }

    @inline(__always) mutating func peek() -> UInt8? {
        if index == buffer.count { refill() }
        return index < buffer.count ? buffer[index] : nil
    }

    @inline(__always) mutating func next() -> UInt8? {
        guard let b = peek() else { return nil }
        index += 1
        if b == 0x0A { line += 1 }
        return b
    }

    /// How `cutNested` stopped.
    enum NestedEnd { case complete, endOfFile, tooLarge(inString: Bool) }

    /// Moves a balanced `{...}`/`[...]` value starting at the current byte into `out`, a buffer
    /// span at a time: brackets are counted outside strings, a string runs to its unescaped closing
    /// quote. Stops after the closing bracket, at the end of the file, or at the byte that makes
    /// `out` longer than `limit` (inside or outside a string: the caller words the error).
    /// Newlines are counted in `line` as by `next()`.
    /// - Complexity: O(n) in the bytes consumed.
    mutating func cutNested(into out: inout [UInt8], limit: Int) -> NestedEnd {
        var depth = 0
        var state = ScanState.outside
        while true {
            if index == buffer.count { refill() }
            guard index < buffer.count else { return .endOfFile }
            let start = index
            var end = start, newlines = 0
            var outcome: NestedEnd?
            let room = limit - out.count
            buffer.withUnsafeBufferPointer { p in
                // The pointer stays in this closure; only p[start..<p.count] is read.
                var k = start
                scan: while k < p.count {
                    let c = p[k]
                    k += 1
                    if c == 0x0A { newlines += 1 }
                    switch state {
                    case .outside:
                        if k - start > room { outcome = .tooLarge(inString: false); break scan }
                        if c == UInt8(ascii: "{") || c == UInt8(ascii: "[") {
                            depth += 1
                        } else if c == UInt8(ascii: "}") || c == UInt8(ascii: "]") {
                            depth -= 1
                            if depth == 0 { outcome = .complete; break scan }
                        } else if c == UInt8(ascii: "\"") {
                            state = .string
                        }
                    case .string:
                        if k - start > room { outcome = .tooLarge(inString: true); break scan }
                        if c == UInt8(ascii: "\\") {
                            state = .escape
                        } else if c == UInt8(ascii: "\"") {
                            state = .outside
                        } else {
                            // Most bytes are string content: skip the run up to the next quote, backslash or
                            // newline in a tight loop, stopping short of the byte that would pass `room`.
                            let stop = min(p.count, start + room)
                            while k < stop, p[k] != UInt8(ascii: "\""), p[k] != UInt8(ascii: "\\"), p[k] != 0x0A { k += 1 }
                        }
                    case .escape:
                        state = .string
                    }
                }
                end = k
            }
            out.append(contentsOf: buffer[start..<end])
            index = end
            line += newlines
            if let outcome { return outcome }
        }
    }

    private enum ScanState { case outside, string, escape }

    mutating func skipSpace() {
        while let b = peek(), b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 { _ = next() }
    }

    mutating func skipBOM() {
        if peek() == 0xEF, buffer.count >= index + 3, buffer[index + 1] == 0xBB, buffer[index + 2] == 0xBF { index += 3 }
    }

    mutating func refill() {
        guard !eof else { return }
        if let data = try? handle.read(upToCount: chunkSize), !data.isEmpty {
            buffer = [UInt8](data)
            index = 0
        } else {
            eof = true
            buffer = []
            index = 0
        }
    }
}
