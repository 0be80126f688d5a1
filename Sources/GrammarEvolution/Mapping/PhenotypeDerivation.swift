extension Mapper {
    /// Finds codons whose mapping derives `text` (a known solution, for seeding), by a
    /// backtracking leftmost-derivation search over the grammar.
    ///
    /// Text and terminals are compared with all whitespace removed. Alternatives are tried in
    /// grammar order; a branch is cut when the fewest characters the pending symbols can produce
    /// exceed what is left of the text, or when it goes deeper than `maxDepth`. The search gives
    /// up after `budget` steps. The codons use no wrapping; each choice codon is the
    /// alternative's index (so `codon mod n` picks it). The search keeps its own stack (no
    /// recursion), so a long text needs heap memory, not thread stack.
    /// - Returns: the codons, or nil when the text is not derivable within the limits.
    public func codons(deriving text: String, budget: Int = 200_000) -> [Genome.Codon]? {
        var search = DerivationSearch(tables: tables, maxDepth: maxDepth, budget: budget,
                                      target: Array(text.utf8.filter { $0 != 32 && $0 != 9 && $0 != 10 && $0 != 13 }))
        search.pending = [(GrammarTables.kindRule, 1)]
        search.pendingMinLength = tables.ruleMinLength[0]
        return search.run() ? search.codons : nil
    }
}

/// A depth-first search for a leftmost derivation of `target`, with an explicit stack of choice
/// points (a rule's alternatives, a constant's readings) and a trail of the changes made since
/// each, undone when the search backs up: a long text cannot exhaust the thread's stack.
private struct DerivationSearch {
    let tables: GrammarTables
    let maxDepth: Int
    var budget: Int
    let target: [UInt8]
    /// Symbols still to derive, top of the stack last.
    var pending: [(code: Int32, depth: Int)] = []
    var pendingMinLength = 0
    var codons: [Genome.Codon] = []
    var position = 0

    /// A change to the state above, as recorded on the trail.
    enum Change {
        case popped(code: Int32, depth: Int)
        case pushed(count: Int, minLength: Int)
        case codon
        case advanced(Int)
    }

    /// A symbol with alternatives left to try: a rule's productions, or a constant's readings
    /// (lengths of text and their values).
    struct Choice {
        var code: Int32
        var depth: Int
        /// Trail length just after the symbol was taken off `pending`.
        var mark: Int
        var next = 0
        var readings: [(length: Int, value: Double)] = []
    }

    var trail: [Change] = []
    var choices: [Choice] = []

    /// Whether `target` is derivable; `codons` then holds the choices. Explores exactly as a
    /// recursive search would (alternatives in grammar order, one step per symbol taken), and
    /// fails once `budget` steps are spent.
    mutating func run() -> Bool {
        while true {
            // One step: take the next pending symbol.
            budget -= 1
            if budget < 0 { return false }
            if let top = pending.popLast() {
                let topLength = tables.symbolMinLength(top.code)
                pendingMinLength -= topLength
                trail.append(.popped(code: top.code, depth: top.depth))
                if pendingMinLength + topLength <= target.count - position {
                    let index = Int(top.code >> 2)
                    switch top.code & 3 {
                    case GrammarTables.kindTerminal:
                        let t = tables.compactTerminals[index]
                        if position + t.count <= target.count, target[position..<(position + t.count)].elementsEqual(t) {
                            position += t.count
                            trail.append(.advanced(t.count))
                            continue
                        }
                    case GrammarTables.kindCodon:
                        choices.append(Choice(code: top.code, depth: top.depth, mark: trail.count,
                                              readings: numberPrefixes(at: position)))
                    default:
                        if top.depth <= maxDepth {
                            choices.append(Choice(code: top.code, depth: top.depth, mark: trail.count))
                        }
                    }
                }
            } else if position == target.count {
                return true
            }
            // The step failed or opened a choice: take the next alternative of the innermost choice.
            guard nextAlternative() else { return false }
        }
    }

    /// Backs up to the innermost choice with an alternative left and takes it; false when none is left.
    mutating func nextAlternative() -> Bool {
        while var choice = choices.popLast() {
            undo(to: choice.mark)
            let index = Int(choice.code >> 2)
            if choice.code & 3 == GrammarTables.kindCodon {
                let range = tables.codonRanges[index]
                while choice.next < choice.readings.count {
                    let (length, value) = choice.readings[choice.next]
                    choice.next += 1
                    guard let codon = range.codon(for: value) else { continue }
                    codons.append(codon)
                    trail.append(.codon)
                    position += length
                    trail.append(.advanced(length))
                    choices.append(choice)
                    return true
                }
            } else {
                let productions = tables.productions(of: index)
                if choice.next < productions.count {
                    let p = productions.lowerBound + choice.next
                    choice.next += 1
                    if productions.count > 1 {
                        codons.append(Genome.Codon(p - productions.lowerBound))
                        trail.append(.codon)
                    }
                    let symbols = tables.symbols(of: p)
                    var added = 0
                    for s in symbols.reversed() {
                        pending.append((s, choice.depth + 1))
                        added += tables.symbolMinLength(s)
                    }
                    pendingMinLength += added
                    trail.append(.pushed(count: symbols.count, minLength: added))
                    choices.append(choice)
                    return true
                }
            }
        }
        return false
    }

    /// Undoes the trail's changes back to length `mark`.
    mutating func undo(to mark: Int) {
        while trail.count > mark {
            switch trail.removeLast() {
            case let .popped(code, depth):
                pending.append((code, depth))
                pendingMinLength += tables.symbolMinLength(code)
            case let .pushed(count, minLength):
                pending.removeLast(count)
                pendingMinLength -= minLength
            case .codon:
                codons.removeLast()
            case let .advanced(length):
                position -= length
            }
        }
    }

    /// Numeric literals starting at `position` (optional sign, digits, point, exponent),
    /// longest first, with their values.
    func numberPrefixes(at position: Int) -> [(Int, Double)] {
        var end = position
        if end < target.count, target[end] == UInt8(ascii: "-") { end += 1 }
        let allowed: Set<UInt8> = Set("0123456789.eE+-".utf8)
        while end < target.count, allowed.contains(target[end]) { end += 1 }
        var out: [(Int, Double)] = []
        var length = end - position
        while length > 0 {
            if let text = String(bytes: target[position..<(position + length)], encoding: .utf8),
               let v = Double(text) {
                out.append((length, v))
            }
            length -= 1
        }
        return out
    }
}
