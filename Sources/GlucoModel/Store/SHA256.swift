import Foundation

/// SHA-256 (FIPS 180-4), streamed over a file in chunks, for import-run content hashes.
/// Written out here because Foundation on Linux has no digest API and the package takes no crypto dependency.
public struct SHA256Digest: Sendable {
    private var h: [UInt32] = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]
    private var pending: [UInt8] = []
    private var length: UInt64 = 0

    private static let k: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    public init() {}

    public mutating func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        pending.append(contentsOf: bytes)
        let blocks = pending.count / 64
        compress(pending, at: 0, blocks: blocks)
        length += UInt64(blocks * 64)
        pending.removeFirst(blocks * 64)
    }

    /// The digest as 64 lowercase hex characters.
    public func hexDigest() -> String {
        var copy = self
        let bitLength = (copy.length + UInt64(copy.pending.count)) * 8
        var tail = copy.pending + [0x80]
        while tail.count % 64 != 56 { tail.append(0) }
        for i in (0..<8).reversed() { tail.append(UInt8(truncatingIfNeeded: bitLength >> (UInt64(i) * 8))) }
        copy.compress(tail, at: 0, blocks: tail.count / 64)
        return copy.h.map { String(format: "%08x", $0) }.joined()
    }

    /// Hashes a file in 1 MiB chunks.
    public static func hexDigest(ofFile url: URL) throws -> String {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var digest = SHA256Digest()
        while let data = try handle.read(upToCount: 1 << 20), !data.isEmpty { digest.update(data) }
        return digest.hexDigest()
    }

    /// Compresses every whole 64-byte block of `bytes` starting at `offset`, `count` blocks.
    /// The message schedule lives on the stack and the loops run without bounds checks (the
    /// callers pass whole blocks): this runs over every byte of every imported file.
    private mutating func compress(_ bytes: [UInt8], at offset: Int, blocks count: Int = 1) {
        @inline(__always) func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x &>> n) | (x &<< (32 &- n)) }
        precondition(offset >= 0 && offset + count * 64 <= bytes.count, "SHA-256: whole blocks only")
        var state = (h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7])
        bytes.withUnsafeBufferPointer { buffer in
            Self.k.withUnsafeBufferPointer { k in
                withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
                    for block in 0..<count {
                        let base = offset + block * 64
                        for i in 0..<16 {
                            let j = base + i * 4
                            w[i] = UInt32(buffer[j]) &<< 24 | UInt32(buffer[j + 1]) &<< 16 | UInt32(buffer[j + 2]) &<< 8 | UInt32(buffer[j + 3])
                        }
                        for i in 16..<64 {
                            let s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] &>> 3)
                            let s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] &>> 10)
                            w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
                        }
                        var (a, b, c, d, e, f, g, hh) = state
                        for i in 0..<64 {
                            let s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
                            let ch = (e & f) ^ (~e & g)
                            let t1 = hh &+ s1 &+ ch &+ k[i] &+ w[i]
                            let s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
                            let maj = (a & b) ^ (a & c) ^ (b & c)
                            let t2 = s0 &+ maj
                            (hh, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
                        }
                        state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d,
                                 state.4 &+ e, state.5 &+ f, state.6 &+ g, state.7 &+ hh)
                    }
                }
            }
        }
        h = [state.0, state.1, state.2, state.3, state.4, state.5, state.6, state.7]
    }
}
