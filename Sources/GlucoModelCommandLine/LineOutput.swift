import Foundation
import GlucoModel

/// A command's lines: to `--out`, written atomically (`AtomicTextFile`), or to standard output in
/// large chunks (a million short lines are a few writes). `predict` and `score` write through it.
public final class LineOutput {
    private let file: AtomicTextFile?
    private var buffer: [UInt8] = []
    /// The first write to standard output that failed: later lines are dropped, `commit` throws it.
    private var failed: StandardOutputError?

    public init(path: String?) throws {
        file = try path.map { try AtomicTextFile(url: URL(fileURLWithPath: $0)) }
    }

    public func write(_ line: String) {
        if let file { file.writeLine(line); return }
        buffer.append(contentsOf: line.utf8)
        buffer.append(10)
        if buffer.count >= 1 << 20 { flush() }
    }

    private func flush() {
        // FileHandle's write trapped on a full disk (`predict > /dev/full`, exit 132).
        if failed == nil, !buffer.isEmpty {
            do { try StandardOutputError.writeAll(buffer) } catch { failed = error as? StandardOutputError }
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// - Throws: the file's error, or `StandardOutputError` when standard output could not be written.
    public func commit() throws {
        if let file { try file.commit(); return }
        flush()
        if let failed { throw failed }
    }

    public func discard() {
        if let file { file.discard() } else { buffer.removeAll() }
    }
}
