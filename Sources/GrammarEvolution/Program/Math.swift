#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Scalar libm entry points under names that do not clash with `Operation`'s cases.
@usableFromInline func _sin(_ x: Double) -> Double { sin(x) }
@usableFromInline func _cos(_ x: Double) -> Double { cos(x) }
@usableFromInline func _exp(_ x: Double) -> Double { exp(x) }
@usableFromInline func _log(_ x: Double) -> Double { log(x) }
