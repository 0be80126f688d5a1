/// What the evolved expression is fitted to.
public enum ModelBase: String, Codable, Sendable, CaseIterable {
    /// The evolved expression models what ARX leaves: `y = ARX(x) + a + b f(x)`. Evolution then
    /// starts from the linear model and can only be kept where it beats it on validation days.
    case arx
    /// The evolved expression alone, `y = a + b f(x)` (the glUCModel papers' setting).
    case none
}

/// The error evolution minimises on the training rows.
public enum TrainingFitness: String, Codable, Sendable, CaseIterable {
    /// Root mean squared error after linear scaling (default).
    case rmse
    /// Mean absolute error after linear scaling.
    case mae
    /// RMSE with each squared error weighted by the Clarke zone it falls in
    /// (A 1, B 2, C 4, D 8, E 16): errors that would mislead treatment cost more.
    case clarke
    /// NSGA-II on (RMSE, size): a front of models from simple to accurate; the final model
    /// is the front's member with the lowest validation error.
    case nsga2
}
