import GlucoModelCommandLine
import Testing

/// Hunt P (stop 53): from a working folder whose path is longer than Foundation resolves relative
/// paths under (about 1 KB), an output folder named relatively spun for ever and an XML file
/// crashed its parser. The commands refuse such a folder at once, saying why.
@Suite struct WorkingFolderTests {
    @Test func aWorkingFolderTooDeepIsSaid() {
        #expect(deepWorkingFolder(limit: 100_000) == nil)
        #expect(deepWorkingFolder(limit: 1)?.contains("bytes long, more than the 1 Foundation resolves relative paths under") == true)
    }
}
