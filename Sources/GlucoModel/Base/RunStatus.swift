/// How a command ended, as the process exit status both executables return (README, "Exit codes").
///
/// One scale for every command, so scripts and schedulers (Slurm, cron) can tell the cases apart:
/// a refusal to dose is not a success, and a held lock is worth retrying while a failure is not.
public enum RunStatus: Int32, Sendable, CaseIterable {
    /// Everything asked for was done (a `no_insulin` dose decision included).
    case success = 0
    /// Nothing was done: bad input, nothing to work on, an unusable store or model folder.
    case failure = 1
    /// Some patients (or files) failed; the others were done first.
    case partial = 2
    /// `dose` refused to suggest a dose (a guard stopped it).
    case doseRefused = 3
    /// The command line is wrong (ArgumentParser's usage error, BSD `EX_USAGE`).
    case usage = 64
    /// Another run holds the store or nightly lock; try again later (BSD `EX_TEMPFAIL`).
    case locked = 75

    /// Success when all of `done + failed` items were done, partial when some were, failure when none.
    public static func of(done: Int, failed: Int) -> RunStatus {
        failed == 0 ? (done > 0 ? .success : .failure) : (done > 0 ? .partial : .failure)
    }
}
