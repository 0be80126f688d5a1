import ArgumentParser
import GlucoModel

// The library's option values read from the command line, declared once for both executables.
extension TrainingFitness: ExpressibleByArgument {}
extension ModelBase: ExpressibleByArgument {}
extension FeatureCurves: ExpressibleByArgument {}
extension DateOrder: ExpressibleByArgument {}
extension DoseMethod: ExpressibleByArgument {}
extension CGMMetricsReport.Format: ExpressibleByArgument {}
