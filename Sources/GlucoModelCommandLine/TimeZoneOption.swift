import ArgumentParser
import Foundation
import GlucoModel

/// `--time-zone NAME`: the clock of local times written without an offset (in the data, in time
/// options such as `--from`, and of dates a command prints). Shared by every command that reads times.
public struct TimeZoneOption: ParsableArguments {
    // Unconditional: a zone west of UTC as a fixed offset, `-05:00`, begins with a dash (hunt AH, stop 57:
    // "Missing value for '--time-zone'", exit 64).
    @Option(name: .customLong("time-zone"), parsing: .unconditional,
            help: "Time zone of local times without an offset, in the data and in time options: an IANA name like Europe/Madrid, or a fixed offset like +01:00 (default: this machine's).")
    public var name: String?

    public init() {}

    public func validate() throws { _ = try zone() }

    /// The zone named, or this machine's when the option is not given.
    /// - Throws: `ValidationError` naming the option for an unknown name.
    public func zone() throws -> TimeZone {
        do { return try TimeArgument.timeZone(named: name) } catch { throw ValidationError("--time-zone: \(error)") }
    }

    /// The zone; valid after `validate()` (this machine's otherwise).
    public var timeZone: TimeZone { (try? zone()) ?? .current }

    /// The instant `text` names (`TimeArgument`: ISO 8601, offset optional, local times on this clock).
    /// - Throws: `ValidationError` naming `option`.
    /// - Parameter exact: refuse a local time the clock shows twice or skips (`TimeArgument.parse`).
    public func parse(_ text: String, option: String, exact: Bool = false) throws -> Date {
        do { return try TimeArgument.parse(text, timeZone: timeZone, option: option, exact: exact) } catch {
            throw ValidationError("\(error)")
        }
    }
}
