/// The grammar flattened into integer arrays, so mapping does no String work per codon.
///
/// A symbol is one `Int32` code: `index << 2 | kind` with kind 0 = terminal (index into
/// `terminals`), 1 = non-terminal (index into rules), 2 = codon value (index into `codonRanges`).
struct GrammarTables: Sendable {
    static let unbounded = Int.max / 4
    static let kindTerminal: Int32 = 0, kindRule: Int32 = 1, kindCodon: Int32 = 2

    var terminals: [String] = []
    /// Terminals with their whitespace removed, as bytes (for matching seed phenotypes).
    var compactTerminals: [[UInt8]] = []
    var codonRanges: [Grammar.CodonRange] = []
    /// Productions of rule r are `ruleFirst[r] ..< ruleFirst[r + 1]`.
    var ruleFirst: [Int32] = [0]
    /// Symbols of production p are `symbols[productionFirst[p] ..< productionFirst[p + 1]]`.
    var productionFirst: [Int32] = [0]
    var symbols: [Int32] = []
    var productionRule: [Int32] = []
    var ruleMinDepth: [Int] = []
    /// Height of the smallest tree rooted at the production's rule node that uses this production.
    var productionMinDepth: [Int] = []
    /// True when a non-terminal of the production can derive the production's own rule again.
    var productionRecursive: [Bool] = []
    /// Fewest non-blank characters a rule can produce (for pruning the seed derivation search).
    var ruleMinLength: [Int] = []
    var ruleCount: Int { ruleFirst.count - 1 }

    init(rules: [Grammar.Rule]) {
        var terminalIndex: [String: Int32] = [:]
        for (r, rule) in rules.enumerated() {
            for p in rule.productions {
                for s in p.symbols {
                    switch s {
                    case let .terminal(t):
                        if terminalIndex[t] == nil {
                            terminalIndex[t] = Int32(terminals.count)
                            terminals.append(t)
                            compactTerminals.append(Array(t.utf8.filter { $0 != 32 && $0 != 9 && $0 != 10 && $0 != 13 }))
                        }
                        symbols.append(terminalIndex[t]! << 2 | Self.kindTerminal)
                    case let .nonTerminal(i):
                        symbols.append(Int32(i) << 2 | Self.kindRule)
                    case let .codonValue(c):
                        symbols.append(Int32(codonRanges.count) << 2 | Self.kindCodon)
                        codonRanges.append(c)
                    }
                }
                productionFirst.append(Int32(symbols.count))
                productionRule.append(Int32(r))
            }
            ruleFirst.append(Int32(productionFirst.count - 1))
        }
        let uses = RuleUses(self)
        computeDepths(uses)
        computeRecursion()
        computeMinLengths(uses)
    }

    func symbols(of production: Int) -> ArraySlice<Int32> {
        symbols[Int(productionFirst[production])..<Int(productionFirst[production + 1])]
    }

    func productions(of rule: Int) -> Range<Int> { Int(ruleFirst[rule])..<Int(ruleFirst[rule + 1]) }

    /// `minDepth(r) = min_p (1 + max_{non-terminal n in p} minDepth(n))`, `unbounded` for a rule
    /// that derives no finite tree, and `productionMinDepth` from it.
    ///
    /// Breadth-first by depth (Knuth 1977's generalisation of Dijkstra's algorithm to grammars,
    /// where every production's value is one more than its deepest rule, so a FIFO queue is
    /// already in order): a production is ready once each of its non-terminals has its depth,
    /// and the first ready production of a rule gives the rule its depth. Sweeping all
    /// productions until nothing changed took one sweep per level, quadratic in a chain of rules.
    /// - Complexity: O(R + P + S) for R rules, P productions, S symbols.
    private mutating func computeDepths(_ uses: RuleUses) {
        ruleMinDepth = Array(repeating: Self.unbounded, count: ruleCount)
        var pending = uses.nonTerminalCounts
        // Rules in the order they got their depth, which is by depth.
        var queue: [Int] = []
        queue.reserveCapacity(ruleCount)
        for p in productionRule.indices where pending[p] == 0 {
            let r = Int(productionRule[p])
            if ruleMinDepth[r] == Self.unbounded { ruleMinDepth[r] = 1; queue.append(r) }
        }
        var head = 0
        while head < queue.count {
            let n = queue[head]
            head += 1
            for p in uses.productions(naming: n) {
                pending[p] -= 1
                let r = Int(productionRule[p])
                // n is the last and deepest rule of p to get its depth: p's depth is one more.
                if pending[p] == 0, ruleMinDepth[r] == Self.unbounded { ruleMinDepth[r] = ruleMinDepth[n] + 1; queue.append(r) }
            }
        }
        productionMinDepth = productionRule.indices.map { p in
            var deepest = 0
            for code in symbols(of: p) where code & 3 == Self.kindRule {
                deepest = max(deepest, ruleMinDepth[Int(code >> 2)])
            }
            return deepest >= Self.unbounded ? Self.unbounded : deepest + 1
        }
    }

    /// Rules reachable from `start` in one or more steps.
    func reachable(from start: Int, includingStart: Bool) -> [Bool] {
        var seen = Array(repeating: false, count: ruleCount)
        var stack = [start]
        if includingStart { seen[start] = true }
        while let r = stack.popLast() {
            for p in productions(of: r) {
                for code in symbols(of: p) where code & 3 == Self.kindRule {
                    let n = Int(code >> 2)
                    if !seen[n] { seen[n] = true; stack.append(n) }
                }
            }
        }
        return seen
    }

    /// A production of rule r is recursive when one of its non-terminals n derives r again:
    /// n == r, or r is reachable from n and n from r (through this production), that is n and r
    /// lie in one strongly connected component of the rule graph.
    /// - Complexity: O(R + P + S); a reachability search from every rule was O(R·(R + S)).
    private mutating func computeRecursion() {
        let component = ruleComponents()
        productionRecursive = productionRule.indices.map { p in
            let c = component[Int(productionRule[p])]
            return symbols(of: p).contains { $0 & 3 == Self.kindRule && component[Int($0 >> 2)] == c }
        }
    }

    /// The strongly connected component of each rule in the graph with an edge r → n when a
    /// production of r names n (Tarjan 1972). Depth-first with an explicit stack rather than
    /// recursion: a generated grammar can nest rules thousands deep, more than the call stack holds.
    /// - Complexity: O(R + S).
    private func ruleComponents() -> [Int32] {
        let unvisited: Int32 = -1
        var order = Array(repeating: unvisited, count: ruleCount)  // discovery order
        var low = Array(repeating: Int32(0), count: ruleCount)  // lowest order reachable through the search tree
        var onStack = Array(repeating: false, count: ruleCount)
        var component = Array(repeating: unvisited, count: ruleCount)
        var stack: [Int] = []  // visited rules whose component is still open
        var path: [(rule: Int, nextSymbol: Int)] = []  // the depth-first path, with where each rule's scan resumes
        var visited: Int32 = 0, components: Int32 = 0
        // A rule's productions' symbols are contiguous, so one index scans all its edges.
        func firstSymbol(_ r: Int) -> Int { Int(productionFirst[Int(ruleFirst[r])]) }
        func visit(_ r: Int) {
            order[r] = visited
            low[r] = visited
            visited += 1
            stack.append(r)
            onStack[r] = true
            path.append((r, firstSymbol(r)))
        }
        for root in 0..<ruleCount where order[root] == unvisited {
            visit(root)
            walk: while let (r, next) = path.last {
                for i in next..<firstSymbol(r + 1) where symbols[i] & 3 == Self.kindRule {
                    let n = Int(symbols[i] >> 2)
                    if order[n] == unvisited {
                        path[path.count - 1].nextSymbol = i + 1
                        visit(n)
                        continue walk
                    }
                    if onStack[n] { low[r] = min(low[r], order[n]) }
                }
                path.removeLast()
                if let parent = path.last?.rule { low[parent] = min(low[parent], low[r]) }
                if low[r] == order[r] {
                    var m: Int
                    repeat {
                        m = stack.removeLast()
                        onStack[m] = false
                        component[m] = components
                    } while m != r
                    components += 1
                }
            }
        }
        return component
    }

    /// `minLength(r) = min_p (sum of p's terminals' non-blank characters, 1 per codon value and
    /// minLength of each non-terminal)`, `unbounded` for a rule that derives no finite string or
    /// only strings of `unbounded` characters or more.
    ///
    /// Knuth's (1977) generalisation of Dijkstra's algorithm: a sum is never less than any of its
    /// terms, so the smallest candidate in the heap is final. A production becomes a candidate
    /// once each of its non-terminals is final; each rule is final once.
    /// - Complexity: O(S + P log P).
    private mutating func computeMinLengths(_ uses: RuleUses) {
        // Until a rule is final, its entry is its best candidate so far.
        ruleMinLength = Array(repeating: Self.unbounded, count: ruleCount)
        var final = Array(repeating: false, count: ruleCount)
        var pending = uses.nonTerminalCounts
        var candidates = RuleHeap()
        func offer(_ p: Int) {
            let r = Int(productionRule[p])
            guard !final[r] else { return }
            var total = 0
            for code in symbols(of: p) {
                total += symbolMinLength(code)
                if total >= Self.unbounded { return }
            }
            if total < ruleMinLength[r] { ruleMinLength[r] = total; candidates.push(total, rule: r) }
        }
        for p in productionRule.indices where pending[p] == 0 { offer(p) }
        while let (_, n) = candidates.popMin() {
            guard !final[n] else { continue }  // a longer candidate of a rule already final
            final[n] = true
            for p in uses.productions(naming: n) {
                pending[p] -= 1
                if pending[p] == 0 { offer(p) }
            }
        }
    }

    func symbolMinLength(_ code: Int32) -> Int {
        switch code & 3 {
        case Self.kindTerminal: return compactTerminals[Int(code >> 2)].count
        case Self.kindRule: return ruleMinLength[Int(code >> 2)]
        default: return 1
        }
    }
}

/// Where each rule is named: the productions naming rule n are
/// `production[first[n] ..< first[n + 1]]`, once per occurrence (a production naming n twice is
/// listed twice), so that a production can count down its non-terminals still to be settled.
private struct RuleUses {
    var first: [Int]
    var production: [Int32]
    /// Non-terminal occurrences in each production.
    var nonTerminalCounts: [Int32]

    init(_ tables: GrammarTables) {
        var first = Array(repeating: 0, count: tables.ruleCount + 1)
        nonTerminalCounts = Array(repeating: 0, count: tables.productionRule.count)
        for p in tables.productionRule.indices {
            for code in tables.symbols(of: p) where code & 3 == GrammarTables.kindRule {
                first[Int(code >> 2) + 1] += 1
                nonTerminalCounts[p] += 1
            }
        }
        for n in 0..<tables.ruleCount { first[n + 1] += first[n] }
        var fill = first
        production = Array(repeating: 0, count: first[tables.ruleCount])
        for p in tables.productionRule.indices {
            for code in tables.symbols(of: p) where code & 3 == GrammarTables.kindRule {
                let n = Int(code >> 2)
                production[fill[n]] = Int32(p)
                fill[n] += 1
            }
        }
        self.first = first
    }

    func productions(naming rule: Int) -> some Sequence<Int> {
        production[first[rule]..<first[rule + 1]].lazy.map { Int($0) }
    }
}

/// A binary min-heap of (length, rule) candidates for `computeMinLengths`. A rule may be pushed
/// again with a smaller length; the stale entry is skipped when popped.
private struct RuleHeap {
    private var items: [(length: Int, rule: Int)] = []

    mutating func push(_ length: Int, rule: Int) {
        items.append((length, rule))
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard items[child].length < items[parent].length else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    mutating func popMin() -> (length: Int, rule: Int)? {
        guard let last = items.popLast() else { return nil }
        guard !items.isEmpty else { return last }
        let top = items[0]
        items[0] = last
        var parent = 0
        while true {
            var smallest = parent
            let left = 2 * parent + 1, right = left + 1
            if left < items.count, items[left].length < items[smallest].length { smallest = left }
            if right < items.count, items[right].length < items[smallest].length { smallest = right }
            if smallest == parent { break }
            items.swapAt(parent, smallest)
            parent = smallest
        }
        return top
    }
}
