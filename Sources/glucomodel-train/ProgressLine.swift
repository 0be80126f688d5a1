import ArgumentParser
import Foundation
import GlucoModel
import GlucoModelCommandLine

/// A progress line: rewritten in place on a terminal, printed every 15 s otherwise (logs).
final class ProgressLine: @unchecked Sendable {
    private let lock = NSLock()
    private let terminal = isatty(STDERR_FILENO) != 0
    private var last = Date.distantPast
    private var width = 0

    func show(_ p: CohortProgress) {
        lock.withLock {
            let now = Date()
            guard now.timeIntervalSince(last) >= (terminal ? 0.2 : 15) || p.finished == p.jobs else { return }
            last = now
            var text = "[\(p.finished)/\(p.jobs) done"
            if p.reused > 0 { text += ", \(p.reused) reused" }
            if p.failed > 0 { text += ", \(p.failed) failed" }
            text += "]"
            for (key, r) in p.running.sorted(by: { $0.key < $1.key }) {
                text += " \(key)" + (r.searches > 1 ? " search \(r.search + 1)/\(r.searches)" : "") + " gen \(r.generation)/\(r.of)"
                // The search's own objective (docs/formats.md: RMSE in mg/dL by default, whatever --units says).
                if let best = r.best { text += " best fitness \(String(format: "%.2f", best))" }
            }
            text += " | \(Self.duration(p.elapsedSeconds))"
            if let left = p.remainingSeconds { text += ", ~\(Self.duration(left)) left" }
            if terminal {
                let padded = text.count < width ? text + String(repeating: " ", count: width - text.count) : text
                width = text.count
                Console.standardError("\r" + padded)
            } else {
                Console.standardError(text + "\n")
            }
        }
    }

    func end() {
        if terminal { Console.standardError("\n") }
    }

    static func duration(_ s: Double) -> String {
        let t = Int(s.rounded())
        return t >= 60 ? "\(t / 60)m\(String(format: "%02d", t % 60))s" : "\(t)s"
    }
}
