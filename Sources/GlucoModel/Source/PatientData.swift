import Foundation

/// One patient's data for training: the merged log of all their files and, for an
/// OhioT1DM pair, where the testing file begins.
public struct PatientData: Sendable {
    public var patient: PatientID
    public var log: PatientLog
    /// Start of the held-out test period given by the data itself (an OhioT1DM
    /// `<id>-ws-testing.xml` file); otherwise the last days are held out.
    public var testStart: Date?
    public var files: [String]

    public init(patient: PatientID, log: PatientLog, testStart: Date? = nil, files: [String] = []) {
        self.patient = patient; self.log = log; self.testStart = testStart; self.files = files
    }

    /// Whether `path` names an OhioT1DM testing file (`<id>-ws-testing.xml`): its first record
    /// starts the held-out test period.
    public static func isTestFile(_ path: String) -> Bool {
        URL(fileURLWithPath: path).lastPathComponent.contains("-ws-testing")
    }
}
