import GrammarEvolution

extension CohortTrainer {
    /// A range of glucose lags written so that the grammar's ranges do not make lags of it: the
    /// parser expands `G[-1..2]` into `G-1` (`G` minus 1), `G0`, `G1`, `G2`, and leaves `G[3]` or
    /// `G[0-11]` as they are, so each was refused as naming an unknown variable `G`. For the first
    /// unknown name `G` on a line holding `G[`, what is wrong with that range, as a syntax error
    /// at the line (`grammar.bnf:3: ...`, as the parser's own); nil when there is none.
    static func lagRangeError(_ source: GrammarSource, unknown: [Grammar.UnknownName], glucoseLags: Int,
                              stepMinutes: Int) -> GrammarError? {
        let lines = source.text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        let last = glucoseLags - 1
        let lags = "G0 is the glucose at the time of prediction, G1 ... G\(last) the glucose \(stepMinutes) ... "
            + "\(last * stepMinutes) minutes before"
        for name in unknown where name.name == "G" && !name.isCall && (1...lines.count).contains(name.line) {
            guard let range = Self.bracketed(after: "G", in: String(lines[name.line - 1])) else { continue }
            let message: String
            let bounds = range.components(separatedBy: "..")
            if bounds.count == 2, let lo = Int(bounds[0]), let hi = Int(bounds[1]), lo < 0 {
                message = "'G[\(range)]': a lag must be 0 or more (\(lags)); like G[0..\(min(max(hi, 0), last))]"
            } else {
                message = "'G[\(range)]': a range of lags is written G[lo..hi], outside quotes, with 0 <= lo <= hi <= \(last), "
                    + "like G[0..\(last)] (\(lags))"
            }
            return .syntax(source: source.name, line: name.line, message: message)
        }
        return nil
    }

    /// The text between `stem[` (not the end of a longer name) and the next `]` (or the line's end).
    private static func bracketed(after stem: String, in line: String) -> String? {
        var rest = line[...]
        while let found = rest.range(of: stem + "[") {
            let before = found.lowerBound == line.startIndex ? nil : line[line.index(before: found.lowerBound)]
            if let c = before, c.isLetter || c.isNumber || c == "_" {
                rest = line[found.upperBound...]
                continue
            }
            let inside = line[found.upperBound...]
            return String(inside.prefix { $0 != "]" })
        }
        return nil
    }
}
