extension SplitMetrics {
    /// Accuracy and error-grid figures of `predictions` against `references` (mg/dL).
    /// Zone percentages are of the scored pairs; Parkes uses the type 1 grid.
    public init(model: String, split: String, references: [Double], predictions: [Double]) {
        precondition(references.count == predictions.count, "references and predictions differ in length")
        let pairs = zip(references, predictions).map { GlucosePair(reference: $0, prediction: $1) }
        let accuracy = AccuracyMetrics(pairs: pairs)
        let clarke = ZoneCounts(grid: .clarke, pairs: pairs)
        let parkes = ZoneCounts(grid: .parkesType1, pairs: pairs)
        self.init(model: model, split: split, n: accuracy.count, rmse: accuracy.rmse, mae: accuracy.mae,
                  mard: accuracy.mard, clarkeA: clarke.percent(.a), clarkeAB: clarke.percentAB,
                  parkesA: parkes.percent(.a), parkesAB: parkes.percentAB)
    }
}
