import Foundation

/// A file-system error in words a person reads: the system's reason (`No space left on device`,
/// `File too large`), not Foundation's dump (`Error Domain=NSCocoaErrorDomain Code=640 "There isn't
/// enough space." UserInfo={NSUnderlyingError=...}`) or its code alone (`NSCocoaErrorDomain error 512`).
public enum SystemErrorText {
    public static func reason(_ error: any Error) -> String {
        let ns = error as NSError
        if ns.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(ns.code))) }
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return ns.localizedDescription
    }
}
