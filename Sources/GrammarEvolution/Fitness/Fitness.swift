/// Scores compiled programs. Lower is better.
///
/// Implementations must be deterministic per program (the same program always gets the
/// same score, whatever the thread count or batch it arrives in): reproducibility of a
/// run rests on it. Programs whose values are not finite get `.infinity`.
public protocol FitnessEvaluator: Sendable {
    /// One error per program, in order. May evaluate in parallel on up to `threads` threads.
    func errors(of programs: [Program], threads: Int) -> [Double]
}
