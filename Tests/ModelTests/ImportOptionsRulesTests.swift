import Testing
@testable import GlucoModel

/// The rules of --format, --columns, --glucose-units and --carb-units, one for the command line and the config
/// file (they were written twice, in train and in the shared data options).
@Suite struct ImportOptionsRulesTests {
    @Test func formatsThatGoTogether() throws {
        #expect(try ImportOptions.format(nil, columns: false, glucoseUnits: false) == nil)
        #expect(try ImportOptions.format("dexcom-csv", columns: false, glucoseUnits: false) == "dexcom-csv")
        #expect(try ImportOptions.format(nil, columns: true, glucoseUnits: true) == "csv")
        #expect(try ImportOptions.format("CSV", columns: true, glucoseUnits: false) == "csv")
    }

    @Test func formatsThatDoNot() {
        #expect(throws: ImportOptions.Problem.unitsWithoutColumns) { try ImportOptions.format(nil, columns: false, glucoseUnits: true) }
        #expect(throws: ImportOptions.Problem.carbUnitsWithoutColumns) {
            try ImportOptions.format(nil, columns: false, glucoseUnits: false, carbUnits: true)
        }
        #expect(throws: ImportOptions.Problem.csvWithoutColumns(option: "--input-format")) {
            try ImportOptions.format("csv", columns: false, glucoseUnits: false, option: "--input-format")
        }
        #expect(throws: ImportOptions.Problem.formatWithColumns(option: "--format", given: "ohio-xml")) {
            try ImportOptions.format("ohio-xml", columns: true, glucoseUnits: false)
        }
        #expect(ImportOptions.Problem.formatWithColumns(option: "--format", given: "ohio-xml").description
                == "--columns reads the files as csv; --format ohio-xml cannot go with it")
    }
}
