import GlucoModelCommandLine
import Testing

/// Hunt AG (stop 57): the least address space and the threads the commands start with (ExitCodeTests runs one under
/// `ulimit -v`).
@Suite struct AddressSpaceTests {
    @Test func aLimitUnder512MBIsAProblem() {
        #expect(addressSpaceProblem(limit: nil) == nil)
        #expect(addressSpaceProblem(limit: 512 << 20) == nil && addressSpaceProblem(limit: 8 << 30) == nil)
        #expect(addressSpaceProblem(limit: (512 << 20) - 1)?.contains("is 511 MB, under the 512 MB") == true)
    }

    /// The start-up probe of threads (ExitCodeTests runs one under `ulimit -u`): none without a limit.
    @Test func threadsStartWithoutALimit() {
        #expect(threadProblem() == nil && threadProblem(count: 64) == nil)
    }
}
