/// Instructions are saved as flat tokens, one JSON value each: a constant as a number, a
/// variable as `"x3"`, a lagged variable as `"x3@2"` (column 3, 2 rows back), an operation by
/// its case name (`"add"`, `"protectedDiv"`, `"exp"`, ...). A program is then a plain array,
/// e.g. `[1.5, "x0", "mul", "x2@1", "add"]` for `1.5 * x0 + lag(x2, 1)`.
///
/// The compiler-made form of version 1 files (`{"constant": {"_0": 1.5}}`, operations by raw
/// number) is still read.
extension Instruction {
    static let operationsByName: [String: Operation] =
        Dictionary(uniqueKeysWithValues: Operation.allCases.map { ("\($0)", $0) })

    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer() {
            if let value = try? single.decode(Double.self) { self = .constant(value); return }
            if let token = try? single.decode(String.self) {
                guard let ins = Instruction(token: token) else {
                    throw DecodingError.dataCorruptedError(in: single, debugDescription:
                        "'\(token)' is not an instruction (a number, x<column>, x<column>@<lag> or an operation name)")
                }
                self = ins
                return
            }
        }
        self = try LegacyInstruction(from: decoder).instruction
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case let .constant(v): try c.encode(v)
        case let .variable(column): try c.encode("x\(column)")
        case let .lagged(column, lag): try c.encode("x\(column)@\(lag)")
        case let .operation(op): try c.encode("\(op)")
        }
    }

    init?(token: String) {
        if let op = Instruction.operationsByName[token] { self = .operation(op); return }
        guard token.hasPrefix("x") else { return nil }
        let parts = token.dropFirst().split(separator: "@", omittingEmptySubsequences: false)
        guard parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let column = Int(parts[0]) else { return nil }
        switch parts.count {
        case 1: self = .variable(column)
        case 2:
            guard let lag = Int(parts[1]) else { return nil }
            self = .lagged(column: column, lag: lag)
        default: return nil
        }
    }
}

/// The version-1 (compiler-synthesised) coding of `Instruction`, read only.
private enum LegacyInstruction: Decodable {
    case constant(Double)
    case variable(Int)
    case lagged(column: Int, lag: Int)
    case operation(Operation)

    var instruction: Instruction {
        switch self {
        case let .constant(v): return .constant(v)
        case let .variable(c): return .variable(c)
        case let .lagged(c, l): return .lagged(column: c, lag: l)
        case let .operation(o): return .operation(o)
        }
    }
}

/// A program is saved as its flat instruction array; version-1 files held
/// `{"instructions": [...]}`, which is still read. Decoding does not check the program:
/// callers reading files call `check(columns:)`.
extension Program {
    private enum LegacyKeys: String, CodingKey { case instructions }

    public init(from decoder: any Decoder) throws {
        if let keyed = try? decoder.container(keyedBy: LegacyKeys.self) {
            self.init(unchecked: try keyed.decode([Instruction].self, forKey: .instructions))
        } else {
            self.init(unchecked: try decoder.singleValueContainer().decode([Instruction].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(instructions)
    }
}
