import Foundation

extension SettingsEstimator {
    /// A bolus with no carbohydrates logged near it that is larger than the glucose at the time
    /// called for: most likely a meal eaten and not logged. The windows while such a meal would
    /// appear are left out of the fit, as Autotune leaves out its "unannounced meals": read with
    /// no carbohydrate, the bolus looks like a correction that glucose defied, and the fit asks for
    /// a lower ISF (more insulin). Every other meal of a known person not logged gave an ISF of
    /// 15.8 mg/dL/U and an ICR of 7.0 g/U against the person's 40 and 10; now 35-38 and 10.
    struct UnloggedMeals {
        /// Carbohydrates logged this near a bolus (before or after) make it a meal's bolus.
        static let mealReach: TimeInterval = 60 * 60
        /// A bolus is a correction while it is at most `correctionFactor` times what the current
        /// settings give for the glucose at the time, plus `correctionMargin` units: settings off
        /// by half, and a person's own judgement, stay corrections.
        static let correctionFactor = 2.0
        static let correctionMargin = 1.0
        /// The newest reading this old or newer at the bolus is its glucose.
        static let readingAge: TimeInterval = 15 * 60
        /// Left out from this long before such a bolus (a meal eaten before it was bolused)...
        static let before: TimeInterval = 30 * 60

        /// The boluses read as unlogged meals, in time order.
        let boluses: [Bolus]
        /// Until when after each bolus its windows are left out: the carbohydrate curve's time to
        /// 95% appeared (about 3 h 20 min for the standard curve).
        let after: TimeInterval

        /// - Parameter log: a log in time order (as imported).
        init(log: PatientLog, settings: CheckedDoseSettings, carbModel: BatemanCarbModel) {
            after = Self.appeared(0.95, carbModel)
            let meals = log.carbs.filter { $0.amount.grams > 0 }, glucose = log.glucose
            boluses = log.boluses.filter { bolus in
                guard bolus.kind != .longActing, bolus.dose.units > 0, (bolus.carbInput?.grams ?? 0) <= 0 else { return false }
                // A carbohydrate record within the reach: a meal's bolus.
                let i = PatientLog.firstIndex(meals, atOrAfter: bolus.time.addingTimeInterval(-Self.mealReach))
                if i < meals.count, meals[i].time <= bolus.time.addingTimeInterval(Self.mealReach) { return false }
                // The glucose at the bolus: the newest reading up to it, if recent.
                let j = PatientLog.firstIndex(glucose, atOrAfter: bolus.time)
                let k = j < glucose.count && glucose[j].time == bolus.time ? j : j - 1
                let correction = k >= 0 && bolus.time.timeIntervalSince(glucose[k].time) <= Self.readingAge
                    ? max(0, glucose[k].value.mgdL - settings.target) / settings.insulinSensitivity : 0
                return bolus.dose.units > Self.correctionFactor * correction + Self.correctionMargin
            }
        }

        /// Whether a window from `start` to `end` overlaps the time an unlogged meal appears.
        func cover(_ start: Date, _ end: Date) -> Bool {
            // The first bolus whose span reaches `start` (the spans all have one length).
            let i = PatientLog.firstIndex(boluses, atOrAfter: start.addingTimeInterval(-after))
            return i < boluses.count && boluses[i].time.addingTimeInterval(-Self.before) < end
        }

        /// Minutes after intake until `fraction` of a meal has appeared, to the next 5 minutes.
        static func appeared(_ fraction: Double, _ model: BatemanCarbModel) -> TimeInterval {
            var minutes = 0.0
            while model.fractionRemaining(after: minutes) > 1 - fraction, minutes < 24 * 60 { minutes += 5 }
            return minutes * 60
        }
    }
}

extension SettingsEstimator {
    /// Boluses recorded twice: the same dose again within `within` of a bolus (two exports merged,
    /// the pump's record and an app's a minute apart). Read as given twice, they halved both the
    /// ISF and the ICR estimates of a generated person and stepped both toward more insulin.
    static func twinBoluses(_ boluses: [Bolus], within: TimeInterval = 5 * 60) -> Int {
        twins(boluses.map(\.time), boluses.map(\.dose.units), tolerance: 0.005, within: within)
    }

    /// Meals recorded twice, as `twinBoluses`: the same grams (within 0.5 g) again within
    /// `within`. Read as eaten twice, they made the carb ratio 20% higher.
    static func twinMeals(_ carbs: [CarbIntake], within: TimeInterval = 5 * 60) -> Int {
        twins(carbs.map(\.time), carbs.map(\.amount.grams), tolerance: 0.5, within: within)
    }

    /// How many records (`times` ascending) repeat the amount of one before them within `within`.
    static func twins(_ times: [Date], _ amounts: [Double], tolerance: Double, within: TimeInterval) -> Int {
        times.indices.count { i in
            TwinRecords.latest(before: i, times, within: within, where: { abs(amounts[$0] - amounts[i]) < tolerance }) != nil
        }
    }
}

