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
}
