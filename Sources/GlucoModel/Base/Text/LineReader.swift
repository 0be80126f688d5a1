import Foundation

/// Reads a text file line by line in fixed-size chunks, so a file of any size is
/// read in bounded memory. Handles `\n`, `\r\n` and a UTF-8 byte-order mark.
public struct LineReader: Sequence {
    public let url: URL
    public let chunkSize: Int

    public init(url: URL, chunkSize: Int = 1 << 20) {
        self.url = url
        self.chunkSize = chunkSize
    }

    /// Opens the file now, so a missing or unreadable file is an error before iteration starts.
    public func checkReadable() throws {
        if let problem = FileOpenError.problem(url) { throw problem }
    }

    public func makeIterator() -> Iterator { Iterator(url: url, chunkSize: chunkSize) }

    /// The index of the first `\n` in `bytes[start...]`, found with `memchr` (the line scan runs
    /// over every byte of every CSV import).
    /// - Complexity: O(n) in the bytes searched.
    static func newline(in bytes: [UInt8], from start: Int) -> Int? {
        guard start < bytes.count else { return nil }
        return bytes.withUnsafeBufferPointer { all -> Int? in
            // The pointer stays inside this closure; memchr reads only bytes[start..<count].
            guard let base = all.baseAddress, let hit = memchr(base + start, 0x0A, all.count - start) else { return nil }
            return base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// Yields `(lineNumber, text)` with 1-based line numbers.
    public struct Iterator: IteratorProtocol {
        let handle: FileHandle?
        let chunkSize: Int
        var buffer: [UInt8] = []
        var start = 0
        var eof = false
        var lineNumber = 0
        /// Set when the line just returned is the file's last and no line break follows it (a
        /// file still being written, or cut short, ends so; many hand-made files too).
        public private(set) var endedInsideLine = false

        init(url: URL, chunkSize: Int) {
            handle = try? FileHandle(forReadingFrom: url)
            self.chunkSize = chunkSize
        }

        public mutating func next() -> (number: Int, text: String)? {
            guard let (number, bytes) = nextBytes() else { return nil }
            return (number, String(decoding: bytes, as: UTF8.self))
        }

        /// The next line as UTF-8 bytes (no line break, no byte-order mark), without making a `String`.
        /// The slice shares the reader's buffer until the next call.
        public mutating func nextBytes() -> (number: Int, bytes: ArraySlice<UInt8>)? {
            while true {
                if let nl = LineReader.newline(in: buffer, from: start) {
                    var end = nl
                    if end > start, buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                    let range = start..<end
                    start = nl + 1
                    return emit(range)
                }
                if eof {
                    guard start < buffer.count else { return nil }
                    var end = buffer.count
                    if buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                    let range = start..<end
                    start = buffer.count
                    endedInsideLine = true
                    return emit(range)
                }
                refill()
            }
        }

        mutating func emit(_ range: Range<Int>) -> (number: Int, bytes: ArraySlice<UInt8>) {
            lineNumber += 1
            let line = buffer[range]
            if lineNumber == 1, line.starts(with: [0xEF, 0xBB, 0xBF]) {
                return (lineNumber, line.dropFirst(3))
            }
            return (lineNumber, line)
        }

        mutating func refill() {
            if start > 0 {
                buffer.removeFirst(start)
                start = 0
            }
            guard let handle, let data = try? handle.read(upToCount: chunkSize), !data.isEmpty else {
                eof = true
                try? handle?.close()
                return
            }
            buffer.append(contentsOf: data)
        }
    }
}

extension LineReader {
    /// The field count of more than half of the file's first `rows` rows after its header, when one
    /// count is (rows with an unclosed quote are counted as seen, not as a count). The header is
    /// the first line `skip` does not skip (given `false`); after it, `skip` is given `true`. A file a
    /// spreadsheet saved has every row as wide, so a comma too many in a value that is not quoted
    /// (a decimal comma, `1,5` U) makes its row a field wider, even where the field it adds at the
    /// end is empty.
    public func commonFieldCount(rows: Int = 50, skip: (ArraySlice<UInt8>, _ afterHeader: Bool) -> Bool) -> Int? {
        var lines = makeIterator()
        var row = CSVRow()
        var counts: [Int: Int] = [:], seen = 0, header = false
        while seen < rows, let (_, bytes) = lines.nextBytes() {
            if skip(bytes, header) { continue }
            guard header else { header = true; continue }
            row.load(bytes)
            seen += 1
            if !row.unterminatedQuote { counts[row.count, default: 0] += 1 }
        }
        return counts.first { 2 * $0.value > seen }?.key  // more than half: one count at most
    }
}
