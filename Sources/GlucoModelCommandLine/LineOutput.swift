import Foundation
import GlucoModel

/// A command's lines: to `--out`, written atomically (`AtomicTextFile`), or to standard output in
/// large chunks (a million short lines are a few writes). `predict` and `score` write through it.
public final class LineOutput {
    private let file: AtomicTextFile?
    private var buffer: [UInt8] = []

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
        FileHandle.standardOutput.write(Data(buffer))
        buffer.removeAll(keepingCapacity: true)
    }

    public func commit() throws {
        if let file { try file.commit() } else { flush() }
    }

    public func discard() {
        if let file { file.discard() } else { buffer.removeAll() }
    }
}
