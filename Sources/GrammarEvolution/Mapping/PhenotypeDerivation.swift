extension Mapper {
    /// Finds codons whose mapping derives `text` (a known solution, for seeding), by a
    /// backtracking leftmost-derivation search over the grammar.
    ///
    /// Text and terminals are compared with all whitespace removed. Alternatives are tried in
    /// grammar order; a branch is cut when the fewest characters the pending symbols can produce
    /// exceed what is left of the text, or when it goes deeper than `maxDepth`. The search gives
    /// up after `budget` steps. The codons use no wrapping; each choice codon is the
    /// alternative's index (so `codon mod n` picks it).
    /// - Returns: the codons, or nil when the text is not derivable within the limits.
    public func codons(deriving text: String, budget: Int = 200_000) -> [Genome.Codon]? {
        var search = DerivationSearch(tables: tables, maxDepth: maxDepth, budget: budget,
                                      target: Array(text.utf8.filter { $0 != 32 && $0 != 9 && $0 != 10 && $0 != 13 }))
        search.pending = [(GrammarTables.kindRule, 1)]
        search.pendingMinLength = tables.ruleMinLength[0]
        return search.step(at: 0) ? search.codons : nil
    }
}

private struct DerivationSearch {
    let tables: GrammarTables
    let maxDepth: Int
    var budget: Int
    let target: [UInt8]
    /// Symbols still to derive, top of the stack last.
    var pending: [(code: Int32, depth: Int)] = []
    var pendingMinLength = 0
    var codons: [Genome.Codon] = []

    mutating func step(at position: Int) -> Bool {
        budget -= 1
        if budget < 0 { return false }
        guard let top = pending.popLast() else { return position == target.count }
        let topLength = tables.symbolMinLength(top.code)
        pendingMinLength -= topLength
        defer {
            pending.append(top)
            pendingMinLength += topLength
        }
        if pendingMinLength + topLength > target.count - position { return false }
        let index = Int(top.code >> 2)
        switch top.code & 3 {
        case GrammarTables.kindTerminal:
            let t = tables.compactTerminals[index]
            guard position + t.count <= target.count, target[position..<(position + t.count)].elementsEqual(t) else { return false }
            return step(at: position + t.count)
        case GrammarTables.kindCodon:
            let range = tables.codonRanges[index]
            for (length, value) in numberPrefixes(at: position) {
                guard let codon = range.codon(for: value) else { continue }
                codons.append(codon)
                if step(at: position + length) { return true }
                codons.removeLast()
            }
            return false
        default:
            guard top.depth <= maxDepth else { return false }
            let productions = tables.productions(of: index)
            for p in productions {
                if productions.count > 1 { codons.append(Genome.Codon(p - productions.lowerBound)) }
                let symbols = tables.symbols(of: p)
                var added = 0
                for s in symbols.reversed() {
                    pending.append((s, top.depth + 1))
                    added += tables.symbolMinLength(s)
                }
                pendingMinLength += added
                let found = step(at: position)
                pendingMinLength -= added
                pending.removeLast(symbols.count)
                if found { return true }
                if productions.count > 1 { codons.removeLast() }
                if budget < 0 { return false }
            }
            return false
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
