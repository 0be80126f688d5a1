import Foundation

/// The dose-audit section of a report, in a form the report can show without knowing how it
/// was computed: per meal bolus, what was given, what the settings would have
/// suggested, and what glucose did afterwards. (The dosing code builds it from its own audit.)
public struct ReportDoseAudit: Sendable {
    /// What was advised for a bolus.
    public enum Advice: Sendable {
        /// A dose (possibly 0 U: insulin on board covers the need).
        case dose
        /// No insulin: glucose is, or is predicted to be, below the suspend threshold.
        case noInsulin
        /// No advice: the data or settings did not allow one.
        case refused
    }

    public struct Row: Sendable {
        public var time: Date
        public var carbs: Carbohydrate?
        public var given: InsulinUnits?
        /// The units advised: the dose, 0 for `noInsulin`, nil when refused.
        public var suggested: InsulinUnits?
        public var advice: Advice
        /// How the suggestion was worked out, e.g. `60 g / 10 g/U + (180 - 110) / 40 - IOB 0.5`.
        public var formula: String
        /// Glucose measured two hours later, when known.
        public var glucoseAfter2h: GlucoseValue?
        /// Whether glucose fell below 70 mg/dL in the hours after.
        public var lowAfter: Bool
        /// Why the suggestion differs, was withheld, or is uncertain.
        public var reasons: [String]
        /// The reasons' codes (`DoseReason.code`), same order, when known: the summary counts
        /// reasons by code, so one kind of reason with different figures is still one line.
        public var reasonCodes: [String]

        /// `advice` defaults to `refused` without `suggested`, else `dose`.
        public init(time: Date, carbs: Carbohydrate?, given: InsulinUnits?, suggested: InsulinUnits?, advice: Advice? = nil,
                    formula: String, glucoseAfter2h: GlucoseValue?, lowAfter: Bool, reasons: [String], reasonCodes: [String] = []) {
            self.time = time; self.carbs = carbs; self.given = given; self.suggested = suggested; self.formula = formula
            self.advice = advice ?? (suggested == nil ? .refused : .dose)
            self.glucoseAfter2h = glucoseAfter2h; self.lowAfter = lowAfter; self.reasons = reasons
            self.reasonCodes = reasonCodes
        }
    }

    public var rows: [Row]
    /// A line above the table, e.g. the settings used.
    public var note: String?
    /// Why no bolus was audited (no settings file for the patient, settings refused), when none
    /// was: the page then gives the reason, where an empty audit would read as a period without
    /// meals or corrections.
    public var withheld: String?
    /// The meal boluses of the period left unaudited when `withheld`.
    public var unaudited = 0
    /// The boluses of the period without logged carbohydrates, which the audit leaves out
    /// (`DoseAudit.bolusesWithoutCarbs`): without them said, an audit of none read "no meals or
    /// corrections" for a person who gave 24 boluses.
    public var withoutCarbs = 0

    public init(rows: [Row], note: String? = nil) { self.rows = rows; self.note = note }

    /// No audit, for `reason` (e.g. the settings' refusal), of `unaudited` meal boluses.
    public init(withheld reason: String, unaudited: Int) {
        self.init(rows: [])
        withheld = reason
        self.unaudited = unaudited
    }

    /// The page's sentence when the audit was withheld: the reason and the boluses it leaves out.
    var withheldText: String? {
        withheld.map { why in
            "No dose audit: \(why)." + (unaudited > 0 ? " \(Plural.of(unaudited, "meal bolus", plural: "meal boluses")) in this period not audited." : "")
        }
    }
}
