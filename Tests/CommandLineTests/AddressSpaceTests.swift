import GlucoModelCommandLine
import Testing

/// Hunt AG (stop 57): the least address space the commands start in (ExitCodeTests runs one under
/// `ulimit -v`).
@Suite struct AddressSpaceTests {
    @Test func aLimitUnder512MBIsAProblem() {
        #expect(addressSpaceProblem(limit: nil) == nil)
        #expect(addressSpaceProblem(limit: 512 << 20) == nil && addressSpaceProblem(limit: 8 << 30) == nil)
        #expect(addressSpaceProblem(limit: (512 << 20) - 1)?.contains("is 511 MB, under the 512 MB") == true)
    }
}
