import Foundation

/// Turns local wall-clock times into instants in one time zone, resolving daylight-saving
/// changes the same way for every importer.
///
/// - **Gap** (spring forward: the local time does not exist, e.g. 02:30 on 2026-03-29 in
///   Europe/Madrid): the time is shifted forward by the length of the gap (02:30 -> 03:30 CEST),
///   i.e. read with the offset in force *before* the change. Counted as `gapReason`.
/// - **Repeat** (fall back: the local time happens twice, e.g. 02:30 on 2026-10-25 in Madrid):
///   the first occurrence is the earlier instant (CEST). `resolve(_:)` (a time given on the
///   command line, or times one after another) takes a local time in the repeated hour as the
///   *second* occurrence (the later instant, CET) when the previous one was in the same repeated
///   hour and either was later on the wall clock (a backwards jump: 02:55 then 02:00) or was
///   itself already a second occurrence. Counted as `repeatFirstReason` / `repeatSecondReason`.
///   The importers decide a file's rows per run with its neighbours and direction instead
///   (`RepeatedHourRuns`: newest-first files, a file starting in the second pass).
///
/// - Complexity: O(1) per call; zone offsets are looked up once per wall-clock day without a change.
public struct LocalTimeResolver: Sendable {
    public static let gapReason = "local time in a daylight-saving gap (shifted forward by the gap)"
    public static let repeatFirstReason = "local time in a repeated daylight-saving hour (first pass: earlier instant)"
    public static let repeatSecondReason = "local time in a repeated daylight-saving hour (second pass: later instant)"
    /// Counted (with a warning) per run of rows the file does not settle (`RepeatedHourRuns`).
    public static let repeatUnsettledReason = "rows in a repeated daylight-saving hour that the file does not settle (read as the first pass)"

    /// What a wall-clock time means in the zone.
    public enum Resolution: Equatable, Sendable {
        case unique(Date)
        /// Did not exist; `Date` is the time shifted forward by the gap.
        case gap(Date)
        /// Happened twice; `first` is earlier than `second`.
        case repeated(first: Date, second: Date)
    }

    /// The outcome of resolving one row: the instant and, if it was a DST case, the reason to count.
    public struct Resolved: Sendable {
        public var date: Date
        public var adjustment: String?
    }

    public let timeZone: TimeZone
    private var cacheBucket: Int = .min
    private var cacheKind: Kind = .unique(0)
    private var previousWall: Double?
    private var previousWasSecondPass = false
    private var previousRepeatWindow: Double?

    private enum Kind { case unique(Int), gap(Int), repeated(Int, Int) }

    public init(timeZone: TimeZone) { self.timeZone = timeZone }

    /// Resolves a wall-clock time without file-order state (repeats give both instants).
    public func resolution(of local: WallClockTime) -> Resolution {
        Self.resolution(local.wallSeconds, classify(local.wallSeconds))
    }

    private static func resolution(_ wall: Double, _ kind: Kind) -> Resolution {
        switch kind {
        case let .unique(o): return .unique(Date(timeIntervalSince1970: wall - Double(o)))
        case let .gap(before): return .gap(Date(timeIntervalSince1970: wall - Double(before)))
        case let .repeated(first, second):
            return .repeated(first: Date(timeIntervalSince1970: wall - Double(first)),
                             second: Date(timeIntervalSince1970: wall - Double(second)))
        }
    }

    /// What a wall-clock time means, as `resolution(of:)`, with the zone's offsets looked up once
    /// per wall-clock day without a change (the importers' path: one call per row).
    public mutating func classify(_ local: WallClockTime) -> Resolution {
        Self.resolution(local.wallSeconds, cachedKind(local.wallSeconds))
    }

    private mutating func cachedKind(_ wall: Double) -> Kind {
        let bucket = Int((wall / 86_400).rounded(.down))
        if bucket == cacheBucket { return cacheKind }
        let kind = classify(wall)
        // Cache a wall-clock day only when it has one offset from start to end (no change in it).
        let b0 = Double(bucket) * 86_400
        if case .unique = kind, sameKind(classify(b0), kind), sameKind(classify(b0 + 86_399), kind) {
            cacheBucket = bucket; cacheKind = kind
        } else {
            cacheBucket = .min
        }
        return kind
    }

    /// Resolves the next row in file order (see the type's rule for repeated hours): a time given
    /// on the command line. Importers decide repeated hours per run of rows (`RepeatedHourRuns`).
    public mutating func resolve(_ local: WallClockTime) -> Resolved {
        let wall = local.wallSeconds
        defer { previousWall = wall }
        let kind = cachedKind(wall)
        switch kind {
        case let .unique(o):
            previousWasSecondPass = false; previousRepeatWindow = nil
            return Resolved(date: Date(timeIntervalSince1970: wall - Double(o)), adjustment: nil)
        case let .gap(before):
            previousWasSecondPass = false; previousRepeatWindow = nil
            return Resolved(date: Date(timeIntervalSince1970: wall - Double(before)), adjustment: LocalTimeResolver.gapReason)
        case let .repeated(first, second):
            // The window is identified by the transition that ends the first pass.
            let firstInstant = Date(timeIntervalSince1970: wall - Double(first))
            let windowID = timeZone.nextDaylightSavingTimeTransition(after: firstInstant)?.timeIntervalSince1970
                ?? (firstInstant.timeIntervalSince1970 / 86_400).rounded(.down)
            var isSecond = false
            if let prev = previousWall, previousRepeatWindow == windowID {
                isSecond = wall < prev || previousWasSecondPass
            }
            previousWasSecondPass = isSecond
            previousRepeatWindow = windowID
            let offset = isSecond ? second : first
            return Resolved(date: Date(timeIntervalSince1970: wall - Double(offset)),
                            adjustment: isSecond ? LocalTimeResolver.repeatSecondReason : LocalTimeResolver.repeatFirstReason)
        }
    }

    private func sameKind(_ a: Kind, _ b: Kind) -> Bool {
        switch (a, b) {
        case let (.unique(x), .unique(y)): return x == y
        case let (.gap(x), .gap(y)): return x == y
        case let (.repeated(x1, x2), .repeated(y1, y2)): return x1 == y1 && x2 == y2
        default: return false
        }
    }

    /// Offsets valid for a wall-clock time: candidates are the zone offsets a day either side
    /// (zones change offset at most once in two days); an offset `o` is valid when the instant
    /// `wall - o` really has offset `o`.
    private func classify(_ wall: Double) -> Kind {
        let before = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: wall - 86_400))
        let after = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: wall + 86_400))
        let validBefore = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: wall - Double(before))) == before
        let validAfter = before == after ? validBefore
            : timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: wall - Double(after))) == after
        switch (validBefore, validAfter) {
        case (true, true) where before != after:
            // Larger offset = earlier instant (wall - offset).
            return .repeated(max(before, after), min(before, after))
        case (true, _): return .unique(before)
        case (false, true): return .unique(after)
        case (false, false):
            if before == after {
                // A change and its reversal within two days (rare); fall back to the exact offset.
                return .unique(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: wall - Double(before))))
            }
            return .gap(before)
        }
    }
}
