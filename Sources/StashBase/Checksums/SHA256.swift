/// SHA-256 as FIPS 180-4 defines it, computed incrementally.
///
/// Feed the message in pieces of any size with `update`, then read the digest with
/// `finalize()`. Whole 64-byte blocks are compressed straight from the caller's memory; only
/// a partial block is copied into the hasher's own 64-byte buffer. The hasher is a plain
/// value: copying it forks the computation, which is how `finalize()` works without
/// mutating.
///
/// ```swift
/// var hasher = SHA256()
/// hasher.update("abc")
/// hasher.finalize().hex  // "ba7816bf..."
/// ```
public struct SHA256: Sendable {
  /// The eight 32-bit chaining values H0...H7.
  typealias State = (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32)

  /// The chaining values after every complete block fed so far.
  private var state: State = (
    0x6A09_E667, 0xBB67_AE85, 0x3C6E_F372, 0xA54F_F53A,
    0x510E_527F, 0x9B05_688C, 0x1F83_D9AB, 0x5BE0_CD19
  )

  /// The bytes of the current partial block; only the first `buffered` bytes count.
  private var buffer: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (
    0, 0, 0, 0, 0, 0, 0, 0
  )

  /// How many bytes of `buffer` are in use, always less than 64.
  private var buffered: Int = 0

  /// How many message bytes have been fed in total.
  private var byteCount: UInt64 = 0

  /// Creates a hasher for an empty message.
  ///
  /// Feed it with the `update` methods and read the result with `finalize()`.
  public init() {}

  /// Appends the bytes of a raw buffer to the message.
  ///
  /// This is the fast path: whole blocks are processed directly from `bytes`, so large
  /// buffers (a few MiB read from a file, say) are hashed without any copy.
  ///
  /// - Parameter bytes: The next bytes of the message; may be empty.
  public mutating func update(_ bytes: UnsafeRawBufferPointer) {
    guard var input = bytes.baseAddress, bytes.count > 0 else { return }
    var remaining = bytes.count
    byteCount &+= UInt64(remaining)
    if buffered > 0 {
      let take = min(64 &- buffered, remaining)
      let offset = buffered
      withUnsafeMutableBytes(of: &buffer) { block in
        (block.baseAddress! + offset).copyMemory(from: input, byteCount: take)
      }
      buffered &+= take
      input += take
      remaining &-= take
      if buffered < 64 { return }
      withUnsafeBytes(of: &buffer) { block in
        SHA256.compress(&state, block.baseAddress!, blocks: 1)
      }
      buffered = 0
    }
    let blocks = remaining &>> 6
    if blocks > 0 {
      SHA256.compress(&state, input, blocks: blocks)
      input += blocks &<< 6
      remaining &-= blocks &<< 6
    }
    if remaining > 0 {
      let take = remaining
      withUnsafeMutableBytes(of: &buffer) { block in
        block.baseAddress!.copyMemory(from: input, byteCount: take)
      }
      buffered = take
    }
  }

  /// Appends the bytes of an array to the message.
  ///
  /// Equivalent to calling `update(_:)` with the array's contiguous storage.
  ///
  /// - Parameter bytes: The next bytes of the message; may be empty.
  public mutating func update(_ bytes: [UInt8]) {
    bytes.withUnsafeBytes { update($0) }
  }

  /// Appends the UTF-8 encoding of a string to the message.
  ///
  /// No terminator or length is added: `update("ab")` then `update("c")` is the same
  /// message as `update("abc")`.
  ///
  /// - Parameter string: Text whose UTF-8 bytes are the next bytes of the message.
  public mutating func update(_ string: String) {
    var text = string
    text.withUTF8 { update(UnsafeRawBufferPointer($0)) }
  }

  /// The digest of the message fed so far.
  ///
  /// The padding and the final block are computed on a copy, so the hasher is unchanged:
  /// `finalize()` may be called more than once, and more bytes may be fed afterwards to
  /// hash a longer message that starts with the same bytes.
  ///
  /// - Returns: The SHA-256 digest of every byte passed to `update` so far.
  public func finalize() -> SHA256Digest {
    var state = self.state
    var block = self.buffer
    let used = buffered
    let bitLength = byteCount &<< 3
    withUnsafeMutableBytes(of: &block) { raw in
      let base = raw.baseAddress!
      raw[used] = 0x80
      if used >= 56 {
        (base + used + 1).initializeMemory(as: UInt8.self, repeating: 0, count: 63 &- used)
        SHA256.compress(&state, base, blocks: 1)
        base.initializeMemory(as: UInt8.self, repeating: 0, count: 56)
      } else {
        (base + used + 1).initializeMemory(as: UInt8.self, repeating: 0, count: 55 &- used)
      }
      raw.storeBytes(of: bitLength.bigEndian, toByteOffset: 56, as: UInt64.self)
      SHA256.compress(&state, base, blocks: 1)
    }
    return SHA256Digest(state: state)
  }

  /// The SHA-256 digest of the bytes of a raw buffer.
  ///
  /// Equivalent to feeding `bytes` to a new hasher and finalizing it.
  ///
  /// - Parameter bytes: The whole message.
  /// - Returns: Its digest.
  public static func hash(_ bytes: UnsafeRawBufferPointer) -> SHA256Digest {
    var hasher = SHA256()
    hasher.update(bytes)
    return hasher.finalize()
  }

  /// The SHA-256 digest of the bytes of an array.
  ///
  /// Equivalent to feeding `bytes` to a new hasher and finalizing it.
  ///
  /// - Parameter bytes: The whole message.
  /// - Returns: Its digest.
  public static func hash(_ bytes: [UInt8]) -> SHA256Digest {
    bytes.withUnsafeBytes { hash($0) }
  }

  /// The SHA-256 digest of the UTF-8 encoding of a string.
  ///
  /// No terminator is hashed: `hash("abc")` is the FIPS 180-4 example digest.
  ///
  /// - Parameter string: The whole message, as text.
  /// - Returns: The digest of its UTF-8 bytes.
  public static func hash(_ string: String) -> SHA256Digest {
    var hasher = SHA256()
    hasher.update(string)
    return hasher.finalize()
  }
}

// MARK: - Compression

extension SHA256 {
  /// Runs the compression function over `blocks` consecutive 64-byte blocks.
  ///
  /// The eight working variables and the 16-word rolling message schedule live in locals
  /// and the 64 rounds are unrolled with their constants inline: no array, no bounds check,
  /// no reference counting. (Measured: keeping a 64-word schedule in a stack buffer instead
  /// was about 20% slower.)
  private static func compress(_ state: inout State, _ input: UnsafeRawPointer, blocks: Int) {
    var (h0, h1, h2, h3, h4, h5, h6, h7) = state
    var p = input
    for _ in 0..<blocks {
      var a = h0
      var b = h1
      var c = h2
      var d = h3
      var e = h4
      var f = h5
      var g = h6
      var h = h7
      var carry = b ^ c
      var w0 = load(p, 0)
      var w1 = load(p, 4)
      var w2 = load(p, 8)
      var w3 = load(p, 12)
      var w4 = load(p, 16)
      var w5 = load(p, 20)
      var w6 = load(p, 24)
      var w7 = load(p, 28)
      var w8 = load(p, 32)
      var w9 = load(p, 36)
      var w10 = load(p, 40)
      var w11 = load(p, 44)
      var w12 = load(p, 48)
      var w13 = load(p, 52)
      var w14 = load(p, 56)
      var w15 = load(p, 60)
      round(a, b, c, &d, e, f, g, &h, 0x428A_2F98, w0, &carry)
      round(h, a, b, &c, d, e, f, &g, 0x7137_4491, w1, &carry)
      round(g, h, a, &b, c, d, e, &f, 0xB5C0_FBCF, w2, &carry)
      round(f, g, h, &a, b, c, d, &e, 0xE9B5_DBA5, w3, &carry)
      round(e, f, g, &h, a, b, c, &d, 0x3956_C25B, w4, &carry)
      round(d, e, f, &g, h, a, b, &c, 0x59F1_11F1, w5, &carry)
      round(c, d, e, &f, g, h, a, &b, 0x923F_82A4, w6, &carry)
      round(b, c, d, &e, f, g, h, &a, 0xAB1C_5ED5, w7, &carry)
      round(a, b, c, &d, e, f, g, &h, 0xD807_AA98, w8, &carry)
      round(h, a, b, &c, d, e, f, &g, 0x1283_5B01, w9, &carry)
      round(g, h, a, &b, c, d, e, &f, 0x2431_85BE, w10, &carry)
      round(f, g, h, &a, b, c, d, &e, 0x550C_7DC3, w11, &carry)
      round(e, f, g, &h, a, b, c, &d, 0x72BE_5D74, w12, &carry)
      round(d, e, f, &g, h, a, b, &c, 0x80DE_B1FE, w13, &carry)
      round(c, d, e, &f, g, h, a, &b, 0x9BDC_06A7, w14, &carry)
      round(b, c, d, &e, f, g, h, &a, 0xC19B_F174, w15, &carry)
      expand(&w0, w1, w9, w14)
      round(a, b, c, &d, e, f, g, &h, 0xE49B_69C1, w0, &carry)
      expand(&w1, w2, w10, w15)
      round(h, a, b, &c, d, e, f, &g, 0xEFBE_4786, w1, &carry)
      expand(&w2, w3, w11, w0)
      round(g, h, a, &b, c, d, e, &f, 0x0FC1_9DC6, w2, &carry)
      expand(&w3, w4, w12, w1)
      round(f, g, h, &a, b, c, d, &e, 0x240C_A1CC, w3, &carry)
      expand(&w4, w5, w13, w2)
      round(e, f, g, &h, a, b, c, &d, 0x2DE9_2C6F, w4, &carry)
      expand(&w5, w6, w14, w3)
      round(d, e, f, &g, h, a, b, &c, 0x4A74_84AA, w5, &carry)
      expand(&w6, w7, w15, w4)
      round(c, d, e, &f, g, h, a, &b, 0x5CB0_A9DC, w6, &carry)
      expand(&w7, w8, w0, w5)
      round(b, c, d, &e, f, g, h, &a, 0x76F9_88DA, w7, &carry)
      expand(&w8, w9, w1, w6)
      round(a, b, c, &d, e, f, g, &h, 0x983E_5152, w8, &carry)
      expand(&w9, w10, w2, w7)
      round(h, a, b, &c, d, e, f, &g, 0xA831_C66D, w9, &carry)
      expand(&w10, w11, w3, w8)
      round(g, h, a, &b, c, d, e, &f, 0xB003_27C8, w10, &carry)
      expand(&w11, w12, w4, w9)
      round(f, g, h, &a, b, c, d, &e, 0xBF59_7FC7, w11, &carry)
      expand(&w12, w13, w5, w10)
      round(e, f, g, &h, a, b, c, &d, 0xC6E0_0BF3, w12, &carry)
      expand(&w13, w14, w6, w11)
      round(d, e, f, &g, h, a, b, &c, 0xD5A7_9147, w13, &carry)
      expand(&w14, w15, w7, w12)
      round(c, d, e, &f, g, h, a, &b, 0x06CA_6351, w14, &carry)
      expand(&w15, w0, w8, w13)
      round(b, c, d, &e, f, g, h, &a, 0x1429_2967, w15, &carry)
      expand(&w0, w1, w9, w14)
      round(a, b, c, &d, e, f, g, &h, 0x27B7_0A85, w0, &carry)
      expand(&w1, w2, w10, w15)
      round(h, a, b, &c, d, e, f, &g, 0x2E1B_2138, w1, &carry)
      expand(&w2, w3, w11, w0)
      round(g, h, a, &b, c, d, e, &f, 0x4D2C_6DFC, w2, &carry)
      expand(&w3, w4, w12, w1)
      round(f, g, h, &a, b, c, d, &e, 0x5338_0D13, w3, &carry)
      expand(&w4, w5, w13, w2)
      round(e, f, g, &h, a, b, c, &d, 0x650A_7354, w4, &carry)
      expand(&w5, w6, w14, w3)
      round(d, e, f, &g, h, a, b, &c, 0x766A_0ABB, w5, &carry)
      expand(&w6, w7, w15, w4)
      round(c, d, e, &f, g, h, a, &b, 0x81C2_C92E, w6, &carry)
      expand(&w7, w8, w0, w5)
      round(b, c, d, &e, f, g, h, &a, 0x9272_2C85, w7, &carry)
      expand(&w8, w9, w1, w6)
      round(a, b, c, &d, e, f, g, &h, 0xA2BF_E8A1, w8, &carry)
      expand(&w9, w10, w2, w7)
      round(h, a, b, &c, d, e, f, &g, 0xA81A_664B, w9, &carry)
      expand(&w10, w11, w3, w8)
      round(g, h, a, &b, c, d, e, &f, 0xC24B_8B70, w10, &carry)
      expand(&w11, w12, w4, w9)
      round(f, g, h, &a, b, c, d, &e, 0xC76C_51A3, w11, &carry)
      expand(&w12, w13, w5, w10)
      round(e, f, g, &h, a, b, c, &d, 0xD192_E819, w12, &carry)
      expand(&w13, w14, w6, w11)
      round(d, e, f, &g, h, a, b, &c, 0xD699_0624, w13, &carry)
      expand(&w14, w15, w7, w12)
      round(c, d, e, &f, g, h, a, &b, 0xF40E_3585, w14, &carry)
      expand(&w15, w0, w8, w13)
      round(b, c, d, &e, f, g, h, &a, 0x106A_A070, w15, &carry)
      expand(&w0, w1, w9, w14)
      round(a, b, c, &d, e, f, g, &h, 0x19A4_C116, w0, &carry)
      expand(&w1, w2, w10, w15)
      round(h, a, b, &c, d, e, f, &g, 0x1E37_6C08, w1, &carry)
      expand(&w2, w3, w11, w0)
      round(g, h, a, &b, c, d, e, &f, 0x2748_774C, w2, &carry)
      expand(&w3, w4, w12, w1)
      round(f, g, h, &a, b, c, d, &e, 0x34B0_BCB5, w3, &carry)
      expand(&w4, w5, w13, w2)
      round(e, f, g, &h, a, b, c, &d, 0x391C_0CB3, w4, &carry)
      expand(&w5, w6, w14, w3)
      round(d, e, f, &g, h, a, b, &c, 0x4ED8_AA4A, w5, &carry)
      expand(&w6, w7, w15, w4)
      round(c, d, e, &f, g, h, a, &b, 0x5B9C_CA4F, w6, &carry)
      expand(&w7, w8, w0, w5)
      round(b, c, d, &e, f, g, h, &a, 0x682E_6FF3, w7, &carry)
      expand(&w8, w9, w1, w6)
      round(a, b, c, &d, e, f, g, &h, 0x748F_82EE, w8, &carry)
      expand(&w9, w10, w2, w7)
      round(h, a, b, &c, d, e, f, &g, 0x78A5_636F, w9, &carry)
      expand(&w10, w11, w3, w8)
      round(g, h, a, &b, c, d, e, &f, 0x84C8_7814, w10, &carry)
      expand(&w11, w12, w4, w9)
      round(f, g, h, &a, b, c, d, &e, 0x8CC7_0208, w11, &carry)
      expand(&w12, w13, w5, w10)
      round(e, f, g, &h, a, b, c, &d, 0x90BE_FFFA, w12, &carry)
      expand(&w13, w14, w6, w11)
      round(d, e, f, &g, h, a, b, &c, 0xA450_6CEB, w13, &carry)
      expand(&w14, w15, w7, w12)
      round(c, d, e, &f, g, h, a, &b, 0xBEF9_A3F7, w14, &carry)
      expand(&w15, w0, w8, w13)
      round(b, c, d, &e, f, g, h, &a, 0xC671_78F2, w15, &carry)
      h0 &+= a
      h1 &+= b
      h2 &+= c
      h3 &+= d
      h4 &+= e
      h5 &+= f
      h6 &+= g
      h7 &+= h
      p += 64
    }
    state = (h0, h1, h2, h3, h4, h5, h6, h7)
  }
}

/// The big-endian 32-bit word at `offset` bytes past `p`, which need not be aligned.
@inline(__always)
private func load(_ p: UnsafeRawPointer, _ offset: Int) -> UInt32 {
  p.loadUnaligned(fromByteOffset: offset, as: UInt32.self).bigEndian
}

/// `x` rotated right by `n` bits.
@inline(__always)
private func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 {
  (x &>> n) | (x &<< (32 &- n))
}

/// One SHA-256 round: mixes `k` and `w` into the working variables.
///
/// The caller rotates the argument order instead of moving eight values every round, so
/// only `d` (the next `e`) and `h` (the next `a`) are written. `carry` holds `b ^ c` on
/// entry and `a ^ b` (the next round's `b ^ c`) on exit, which makes the majority function
/// `b ^ ((a ^ b) & (b ^ c))` one operation cheaper. Σ0 nests its rotations,
/// Σ0(a) = ror(a ^ ror(a ^ ror(a, 9), 11), 2), which saves register copies; Σ1 keeps three
/// independent rotations because the new `e` depends on it, and that dependency chain is
/// what bounds the speed of the whole loop (measured: nesting Σ1 too is slower).
@inline(__always)
private func round(
  _ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: inout UInt32,
  _ e: UInt32, _ f: UInt32, _ g: UInt32, _ h: inout UInt32,
  _ k: UInt32, _ w: UInt32, _ carry: inout UInt32
) {
  let sigma1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
  let choose = g ^ (e & (f ^ g))
  let t1 = h &+ sigma1 &+ choose &+ k &+ w
  let sigma0 = rotr(a ^ rotr(a ^ rotr(a, 9), 11), 2)
  let ab = a ^ b
  let majority = b ^ (ab & carry)
  carry = ab
  d &+= t1
  h = t1 &+ sigma0 &+ majority
}

/// Computes the next schedule word in place of the one 16 rounds older.
///
/// W[t] = σ1(W[t-2]) + W[t-7] + σ0(W[t-15]) + W[t-16], with W[t-16] stored in `w`.
@inline(__always)
private func expand(_ w: inout UInt32, _ w15: UInt32, _ w7: UInt32, _ w2: UInt32) {
  let s0 = rotr(w15 ^ rotr(w15, 11), 7) ^ (w15 &>> 3)
  let s1 = rotr(w2 ^ rotr(w2, 2), 17) ^ (w2 &>> 10)
  w = w &+ s0 &+ w7 &+ s1
}
