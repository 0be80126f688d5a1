import Foundation

/// A period of hypoglycaemia.
public struct GlucoseEpisode: Hashable, Sendable, Codable {
    public var start: Date
    public var end: Date
    public var duration: TimeInterval { end.timeIntervalSince(start) }
    /// The lowest reading in the episode, mg/dL.
    public var nadir: Double
}

/// Hypoglycaemic episodes below a threshold (level 1: < 70 mg/dL; level 2: < 54 mg/dL).
///
/// Each reading stands for the time from it to the next reading, at most one reading interval
/// (the last reading: one interval), and a run of readings lasts from its first to the end of its
/// last one's time (a gap inside it shorter than `minimumDuration` and `jitter`, a reading missing,
/// counts as the run's, whether the run is low or a return above). A
/// run of consecutive readings below the threshold lasting at least `minimumDuration` (15 min;
/// with 5-min readings, 3 readings) starts an episode. The
/// episode ends when the readings are back at or above the threshold for at least
/// `minimumDuration`, or at a gap in the data longer than `minimumDuration` and `jitter` (recovery
/// can then be neither seen nor excluded). Shorter returns above the threshold, and the dips after them,
/// belong to the episode. The episode runs from its first low reading to the end of its last
/// low reading's time. A run lasts `minimumDuration` when it falls short of it by less than
/// `jitter`: a sensor's times wander by seconds (three 5-minute readings stamped 01:39:59.98,
/// 01:44:59.60 and 01:50:02.65 stood for 899.6 s, and the episode was lost; hunt BN, stop 63).
public struct EpisodeSummary: Hashable, Sendable, Codable {
    public var threshold: Double
    public var episodes: [GlucoseEpisode]

    public var count: Int { episodes.count }
    public var longest: GlucoseEpisode? { episodes.max { $0.duration < $1.duration } }

    public init(series: GlucoseSeries, below threshold: Double, minimumDuration: TimeInterval = 15 * 60) {
        self.threshold = threshold
        episodes = EpisodeSummary.find(series, threshold, minimumDuration)
    }

    struct Run {
        var below: Bool
        var start: Double
        var duration = 0.0
        var end: Double
        var nadir: Double
        var endsAtGap = false
    }

    /// How far short of the minimum duration a run may fall and still last it: half a minute, or half
    /// the reading interval when that is shorter (with readings 1, 3, 5 or 15 minutes apart, a run
    /// one reading short never lasts it; 14 readings 62 s apart, 14.5 minutes, do).
    static func jitter(interval: TimeInterval) -> TimeInterval { min(30, interval / 2) }

    static func find(_ s: GlucoseSeries, _ threshold: Double, _ minimumDuration: Double) -> [GlucoseEpisode] {
        // A gap ends an episode when longer than the minimum by more than the jitter too (a 15-minute
        // CGM's next reading 900.5 s later ended one).
        let minimum = minimumDuration - jitter(interval: s.interval), gap = minimumDuration + jitter(interval: s.interval)
        var runs: [Run] = []
        for i in s.times.indices {
            let t = s.times[i], g = s.values[i]
            let next = i + 1 < s.times.count ? s.times[i + 1] : t + s.interval
            let covered = min(s.interval, next - t)
            let below = g < threshold
            if var run = runs.last, run.below == below, !run.endsAtGap {
                // From its first reading to the end of its last one's time: readings' stamps that
                // wander by seconds both ways sum, capped at the interval, short of the time they span
                // (a 1-minute CGM's 15 readings 60 +- 15 s apart stood for about 13 minutes).
                run.duration = t + covered - run.start
                run.end = t + covered
                run.nadir = min(run.nadir, g)
                runs[runs.count - 1] = run
            } else {
                runs.append(Run(below: below, start: t, duration: covered, end: t + covered, nadir: g))
            }
            if next - t > gap && i + 1 < s.times.count { runs[runs.count - 1].endsAtGap = true }
        }
        var episodes: [GlucoseEpisode] = []
        var open: (start: Double, end: Double, nadir: Double)? = nil
        func close() {
            if let o = open {
                episodes.append(GlucoseEpisode(start: Date(timeIntervalSinceReferenceDate: o.start),
                                               end: Date(timeIntervalSinceReferenceDate: o.end), nadir: o.nadir))
            }
            open = nil
        }
        for run in runs {
            if let o = open {
                if run.below {
                    open = (o.start, run.end, min(o.nadir, run.nadir))
                } else if run.duration >= minimum {
                    close()
                }
            } else if run.below && run.duration >= minimum {
                open = (run.start, run.end, run.nadir)
            }
            if run.endsAtGap { close() }
        }
        close()
        return episodes
    }
}
