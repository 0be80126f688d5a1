import Foundation

extension SettingsEstimator {
    /// The long-acting dose of a person on injections (no pump basal in the days read): one daily
    /// dose, not four blocks of rates. Long-acting insulin counts on neither side of net insulin
    /// (`NetInsulin`), so a fasting window's rise not explained by boluses and carbohydrates is
    /// the dose's shortfall, as a block's is its basal's:
    ///
    ///     dose = current + 24·mean(r)/ISF   U/day
    ///
    /// over every fasting window of the day (clinicians titrate the long-acting dose by fasting
    /// glucose likewise), its band of days as a block's (`halfBand`), its step bounded as every
    /// setting's and rounded toward the current dose to half a unit (a pen's step). The blocks
    /// read "0 U/h ... a zero basal is not scaled" for such a person, and the daily dose that
    /// stood for the basal was not mentioned.
    enum Injections {
        /// A pen doses in half units.
        static let doseStep = 0.5

        /// Why there is no row to suggest from: the injections fall outside the readings read.
        static let noDoseReason = "no long-acting dose known: no injection between the first and last reading read"

        /// Whether the days read hold long-acting injections and no pump basal (programmed or
        /// temporary): the person is on injections.
        static func onInjections(_ log: PatientLog, read: (Date) -> Bool) -> Bool {
            log.basalInjections.contains { read($0.time) }
                && !log.basalRates.contains { read($0.start) } && !log.temporaryBasals.contains { read($0.start) }
        }

        /// The usual daily long-acting dose from `first` to `last`: the median of the totals of the
        /// whole local days in it that have an injection (a missed dose is not the setting), or of
        /// every day it touches when it holds no whole day.
        static func dailyDose(_ injections: [BasalInjection], from first: Date, to last: Date, timeZone: TimeZone) -> Double? {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = timeZone
            var totals: [Date: (sum: Double, whole: Bool)] = [:]
            for injection in injections where injection.time >= first && injection.time <= last {
                let day = calendar.startOfDay(for: injection.time)
                let next = calendar.date(byAdding: .day, value: 1, to: day) ?? day.addingTimeInterval(86_400)
                totals[day, default: (0, day >= first && next <= last)].sum += injection.dose.units
            }
            let whole = totals.values.filter(\.whole).map(\.sum)
            let days = (whole.isEmpty ? totals.values.map(\.sum) : whole).sorted()
            guard !days.isEmpty else { return nil }
            let m = days.count / 2
            return days.count % 2 == 1 ? days[m] : (days[m - 1] + days[m]) / 2
        }

        /// The row for the dose `current` from the fasting windows of the whole day, with the
        /// suggested ISF and CSF; `holding…` as for a basal block.
        static func estimate(current: Double?, windows: [Window], isf: Double, csf: Double,
                             holdingIncrease: String?, holdingDecrease: String?) -> SettingsEstimate.Basal {
            let fasting = windows.filter { $0.kind == .fasting }
            var dose = SettingsEstimate.Basal(startHour: 0, endHour: 24, current: current, periods: fasting.count)
            let rates = fasting.map { ($0.glucoseChange + isf * $0.insulinAbsorbed - csf * $0.carbsAppeared) / $0.hours }
            if let current, let half = halfBand(rates, days: fasting.map(\.day)) {
                let mean = rates.reduce(0, +) / Double(rates.count)
                dose.drift = mean
                dose.estimate = max(0, current + 24 * mean / isf)
                dose.band = rateBand(current, mean: mean, half: half, per: isf / 24)
            }
            (dose.suggested, dose.reason) = decideRate(current: current, periods: dose.periods, estimate: dose.estimate,
                                                       band: dose.band, limits: 0...(24 * ImportLimits.basalUnitsPerHour.upperBound),
                                                       roundedTo: doseStep, holdingIncrease: holdingIncrease,
                                                       holdingDecrease: holdingDecrease)
            if current == nil { dose.reason = noDoseReason }
            return dose
        }
    }
}
