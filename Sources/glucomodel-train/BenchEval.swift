import ArgumentParser

struct BenchEval: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "(being built)")
    func run() throws { throw ValidationError("this command is being built") }
}
