import Foundation

/// Checks that a file is UTF-8 text before a parser that cannot cope with other bytes sees it
/// (Foundation's `XMLParser` on Linux traps on element or attribute names that are not UTF-8).
enum UTF8Check {
    /// The 1-based line of the first byte sequence of `url` that is not UTF-8, or nil when the
    /// whole file is UTF-8. Reads the file in `chunkSize` pieces (bounded memory); a code point cut
    /// by a chunk's end is carried over to the next piece.
    static func firstInvalidLine(in url: URL, chunkSize: Int = 1 << 20) throws -> Int? {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var carry: [UInt8] = []
        var linesBefore = 0
        while true {
            let data = try handle.read(upToCount: chunkSize) ?? Data()
            let atEnd = data.isEmpty
            var bytes = carry
            bytes.append(contentsOf: data)
            // Keep back an unfinished code point at the end (at most 3 bytes), unless the file ended.
            let keep = atEnd ? 0 : unfinishedTail(bytes)
            let whole = bytes[..<(bytes.count - keep)]
            if String(validating: whole, as: UTF8.self) == nil {
                return linesBefore + 1 + newlines(in: whole[..<firstInvalidOffset(whole)])
            }
            if atEnd { return nil }
            linesBefore += newlines(in: whole)
            carry = Array(bytes[(bytes.count - keep)...])
        }
    }

    /// The 1-based line of the first byte sequence of `bytes` that is not UTF-8, or nil when all are.
    static func firstInvalidLine(in bytes: [UInt8]) -> Int? {
        let whole = bytes[...]
        guard String(validating: whole, as: UTF8.self) == nil else { return nil }
        return 1 + newlines(in: whole[..<firstInvalidOffset(whole)])
    }

    /// How many bytes at the end of `bytes` begin a code point that needs more bytes than follow.
    static func unfinishedTail(_ bytes: [UInt8]) -> Int {
        for back in 1...min(3, bytes.count) {
            let b = bytes[bytes.count - back]
            if b & 0xC0 == 0x80 { continue }           // a continuation byte: look further back
            let length = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1
            return length > back ? back : 0
        }
        return 0
    }

    /// The offset (from `bytes.startIndex`) of the first byte that does not start or continue a valid
    /// UTF-8 sequence.
    static func firstInvalidOffset(_ bytes: ArraySlice<UInt8>) -> Int {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case let .valid(encoded): offset += encoded.count
            case .emptyInput: return offset
            case .error: return offset
            }
        }
    }

    static func newlines(in bytes: ArraySlice<UInt8>) -> Int {
        bytes.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
    }
}
