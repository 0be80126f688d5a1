import Crypto
import Foundation

/// SHA-256 (FIPS 180-4) of an imported file's content, streamed in chunks: the identity of an
/// import run (`import_runs.content_hash`). Computed by swift-crypto (BoringSSL on Linux, which
/// uses the CPU's SHA extensions where it has them).
public struct ContentDigest {
    private var hasher = SHA256()

    public init() {}

    public mutating func update(_ data: Data) { hasher.update(data: data) }

    public mutating func update(_ bytes: [UInt8]) { bytes.withUnsafeBytes { hasher.update(bufferPointer: $0) } }

    /// The digest as 64 lowercase hex characters.
    public func hexDigest() -> String {
        let hex = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(64)
        for byte in hasher.finalize() {
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Hashes a file in 1 MiB chunks, while `continuing()` says so before each chunk (a hash
    /// stopped early is of the part read and of no use: the caller stops it when it no longer needs it).
    public static func hexDigest(ofFile url: URL, continuing: () -> Bool = { true }) throws -> String {
        let handle = try FileOpenError.reading(url)
        defer { try? handle.close() }
        var digest = ContentDigest()
        while continuing(), let data = try handle.read(upToCount: 1 << 20), !data.isEmpty { digest.update(data) }
        return digest.hexDigest()
    }
}
