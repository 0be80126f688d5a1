/// NSGA-II building blocks (Deb, Pratap, Agarwal, Meyarivan 2002), minimising every objective.
public enum NSGA2 {
    /// `a` dominates `b`: no worse in every objective and better in at least one.
    public static func dominates(_ a: [Double], _ b: [Double]) -> Bool {
        var strictly = false
        for k in a.indices {
            if a[k] > b[k] { return false }
            if a[k] < b[k] { strictly = true }
        }
        return strictly
    }

    /// Fast non-dominated sort: the indices of each front, best front first (ascending order
    /// within a front).
    /// - Complexity: O(M N²) for N points and M objectives.
    public static func fronts(_ points: [[Double]]) -> [[Int]] {
        let n = points.count
        var dominatedBy = Array(repeating: 0, count: n)
        var dominates = Array(repeating: [Int](), count: n)
        for i in 0..<n {
            for j in (i + 1)..<max(n, i + 1) {
                if Self.dominates(points[i], points[j]) {
                    dominates[i].append(j); dominatedBy[j] += 1
                } else if Self.dominates(points[j], points[i]) {
                    dominates[j].append(i); dominatedBy[i] += 1
                }
            }
        }
        var fronts: [[Int]] = []
        var current = (0..<n).filter { dominatedBy[$0] == 0 }
        while !current.isEmpty {
            fronts.append(current)
            var next: [Int] = []
            for i in current {
                for j in dominates[i] {
                    dominatedBy[j] -= 1
                    if dominatedBy[j] == 0 { next.append(j) }
                }
            }
            current = next.sorted()
        }
        return fronts
    }

    /// Rank of each point (0 = non-dominated).
    public static func ranks(_ points: [[Double]]) -> [Int] {
        var rank = Array(repeating: 0, count: points.count)
        for (r, front) in fronts(points).enumerated() { for i in front { rank[i] = r } }
        return rank
    }

    /// Crowding distance of each member of `front` (same order): the boundary points of each
    /// objective get infinity; inner points add `(f[next] - f[prev]) / (f_max - f_min)` per
    /// objective. Objectives with a zero or non-finite range add nothing to inner points.
    public static func crowdingDistances(_ points: [[Double]], front: [Int]) -> [Double] {
        var distance = Array(repeating: 0.0, count: front.count)
        guard let m = front.first.map({ points[$0].count }) else { return distance }
        for k in 0..<m {
            let order = front.indices.sorted { (points[front[$0]][k], front[$0]) < (points[front[$1]][k], front[$1]) }
            distance[order.first!] = .infinity
            distance[order.last!] = .infinity
            let low = points[front[order.first!]][k], high = points[front[order.last!]][k]
            let span = high - low
            guard span > 0, span.isFinite, order.count > 2 else { continue }
            for o in 1..<(order.count - 1) {
                distance[order[o]] += (points[front[order[o + 1]]][k] - points[front[order[o - 1]]][k]) / span
            }
        }
        return distance
    }

    /// Environmental selection: `count` indices, filling by front and cutting the last front by
    /// decreasing crowding distance (ties by index). A `count` above the number of points gives
    /// every point (fewer than asked); a `count` of 0 or less gives none.
    public static func select(_ points: [[Double]], count: Int) -> [Int] {
        // A negative count trapped in `prefix` (hunt BV); the engine asks for its population size.
        guard count > 0 else { return [] }
        var chosen: [Int] = []
        for front in fronts(points) {
            if chosen.count + front.count <= count {
                chosen += front
            } else {
                let d = crowdingDistances(points, front: front)
                let order = front.indices.sorted { (d[$0], -front[$0]) > (d[$1], -front[$1]) }
                chosen += order.prefix(count - chosen.count).map { front[$0] }
            }
            if chosen.count == count { break }
        }
        return chosen
    }

    /// Ranks and crowding distances of every point.
    static func rankAndCrowding(_ points: [[Double]]) -> (rank: [Int], crowding: [Double]) {
        var rank = Array(repeating: 0, count: points.count)
        var crowding = Array(repeating: 0.0, count: points.count)
        for (r, front) in fronts(points).enumerated() {
            let d = crowdingDistances(points, front: front)
            for (k, i) in front.enumerated() { rank[i] = r; crowding[i] = d[k] }
        }
        return (rank, crowding)
    }
}
