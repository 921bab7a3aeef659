/// The Poly1305 one-time authenticator of RFC 8439 section 2.5, computed incrementally.
///
/// A 32-byte one-time key (r, clamped, and s) authenticates one message with a 16-byte tag.
/// A key must never authenticate two messages; the AEADs derive a fresh one per nonce.
/// The arithmetic modulo 2^130 - 5 works on three limbs of 44, 44 and 42 bits with 128-bit
/// products (the layout of poly1305-donna's 64-bit version), and is free of data-dependent
/// branches; the final reduction selects with masks.
public struct Poly1305: Sendable {
  /// The number of bytes in a one-time key.
  public static let keyByteCount = 32

  /// The number of bytes in a tag.
  public static let tagByteCount = 16

  private static let mask44: UInt64 = 0xFFF_FFFF_FFFF
  private static let mask42: UInt64 = 0x3FF_FFFF_FFFF

  /// r, clamped, in limbs.
  private let r0: UInt64, r1: UInt64, r2: UInt64
  /// s, the key's second half, as two little-endian words.
  private let pad0: UInt64, pad1: UInt64
  /// The accumulator in limbs.
  private var h0: UInt64 = 0, h1: UInt64 = 0, h2: UInt64 = 0
  /// A partial block waiting for more bytes; only the first `buffered` bytes count.
  private var buffer: (UInt64, UInt64) = (0, 0)
  private var buffered = 0

  /// Starts an authenticator for one message.
  ///
  /// - Parameter key: The 32-byte one-time key.
  /// - Throws: `CryptoError.invalidKeyLength` for any other length.
  public init(key: [UInt8]) throws(CryptoError) {
    guard key.count == Poly1305.keyByteCount else {
      throw .invalidKeyLength(expected: Poly1305.keyByteCount, actual: key.count)
    }
    self = key.withUnsafeBytes { Poly1305(key: $0.baseAddress!) }
  }

  /// Starts an authenticator from the 32 key bytes at `key`.
  init(key: UnsafeRawPointer) {
    let t0 = UInt64(littleEndian: key.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
    let t1 = UInt64(littleEndian: key.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
    r0 = t0 & 0xFFC_0FFF_FFFF
    r1 = ((t0 >> 44) | (t1 << 20)) & 0xFFF_FFC0_FFFF
    r2 = (t1 >> 24) & 0x00F_FFFF_FC0F
    pad0 = UInt64(littleEndian: key.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
    pad1 = UInt64(littleEndian: key.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
  }

  /// Appends bytes to the message.
  ///
  /// - Parameter bytes: The next bytes; may be empty.
  public mutating func update(_ bytes: UnsafeRawBufferPointer) {
    guard var input = bytes.baseAddress, bytes.count > 0 else { return }
    var remaining = bytes.count
    if buffered > 0 {
      let take = min(16 &- buffered, remaining)
      let offset = buffered
      withUnsafeMutableBytes(of: &buffer) { block in
        (block.baseAddress! + offset).copyMemory(from: input, byteCount: take)
      }
      buffered &+= take
      input += take
      remaining &-= take
      if buffered < 16 { return }
      let block = buffer
      withUnsafeBytes(of: block) { blocks($0.baseAddress!, count: 1, final: 1 << 40) }
      buffered = 0
    }
    let whole = remaining >> 4
    if whole > 0 {
      blocks(input, count: whole, final: 1 << 40)
      input += whole << 4
      remaining &-= whole << 4
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
  /// - Parameter bytes: The next bytes; may be empty.
  public mutating func update(_ bytes: [UInt8]) {
    bytes.withUnsafeBytes { update($0) }
  }

  /// Appends zero bytes up to the next multiple of 16, as the AEAD's padding does.
  mutating func padToBlock() {
    guard buffered > 0 else { return }
    let zeros: (UInt64, UInt64) = (0, 0)
    let count = 16 &- buffered
    withUnsafeBytes(of: zeros) { update(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
  }

  /// The tag of the message fed so far.
  ///
  /// - Returns: The 16-byte tag.
  public func finalize() -> [UInt8] {
    var copy = self
    var tag: (UInt64, UInt64) = copy.finish()
    return withUnsafeBytes(of: &tag) { Array($0) }
  }

  /// The tag of a whole message.
  ///
  /// - Parameters:
  ///   - message: The message.
  ///   - key: The 32-byte one-time key.
  /// - Returns: The 16-byte tag.
  /// - Throws: `CryptoError.invalidKeyLength`.
  public static func authenticate(_ message: [UInt8], key: [UInt8]) throws(CryptoError)
    -> [UInt8]
  {
    var mac = try Poly1305(key: key)
    mac.update(message)
    return mac.finalize()
  }

  /// Processes the last partial block and returns the tag as two little-endian words.
  mutating func finish() -> (UInt64, UInt64) {
    if buffered > 0 {
      var block = buffer
      let used = buffered
      withUnsafeMutableBytes(of: &block) { raw in
        raw[used] = 1
        for index in (used + 1)..<16 { raw[index] = 0 }
      }
      withUnsafeBytes(of: block) { blocks($0.baseAddress!, count: 1, final: 0) }
    }
    let m44 = Poly1305.mask44
    let m42 = Poly1305.mask42
    var c: UInt64 = 0
    // Two carry passes leave every limb within its width (h < 2^130 + a little).
    for _ in 0..<2 {
      c = h1 >> 44
      h1 &= m44
      h2 &+= c
      c = h2 >> 42
      h2 &= m42
      h0 &+= c &* 5
      c = h0 >> 44
      h0 &= m44
      h1 &+= c
    }
    // h - p = h + 5 - 2^130: keep it when it does not borrow.
    var g0 = h0 &+ 5
    c = g0 >> 44
    g0 &= m44
    var g1 = h1 &+ c
    c = g1 >> 44
    g1 &= m44
    var g2 = h2 &+ c &- (1 << 42)
    let keep = (g2 >> 63) &- 1  // all ones when h >= p
    g0 &= keep
    g1 &= keep
    g2 &= keep
    h0 = (h0 & ~keep) | g0
    h1 = (h1 & ~keep) | g1
    h2 = (h2 & ~keep) | g2
    // h + s modulo 2^128.
    h0 &+= pad0 & m44
    c = h0 >> 44
    h0 &= m44
    h1 &+= (((pad0 >> 44) | (pad1 << 20)) & m44) &+ c
    c = h1 >> 44
    h1 &= m44
    h2 &+= ((pad1 >> 24) & m42) &+ c
    h2 &= m42
    let low = h0 | (h1 << 44)
    let high = (h1 >> 20) | (h2 << 24)
    return (low.littleEndian, high.littleEndian)
  }

  /// Absorbs `count` 16-byte blocks at `input`; `final` is 2^40 (the 2^128 bit in the top
  /// limb) for whole blocks and 0 for the padded last one.
  @inline(__always)
  private mutating func blocks(_ input: UnsafeRawPointer, count: Int, final: UInt64) {
    let m44 = Poly1305.mask44
    let m42 = Poly1305.mask42
    let (r0, r1, r2) = (self.r0, self.r1, self.r2)
    let s1 = r1 &* (5 << 2)
    let s2 = r2 &* (5 << 2)
    var (h0, h1, h2) = (self.h0, self.h1, self.h2)
    var p = input
    for _ in 0..<count {
      let t0 = UInt64(littleEndian: p.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
      let t1 = UInt64(littleEndian: p.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
      h0 &+= t0 & m44
      h1 &+= ((t0 >> 44) | (t1 << 20)) & m44
      h2 &+= ((t1 >> 24) & m42) | final
      var d0 = wide(h0, r0) &+ wide(h1, s2) &+ wide(h2, s1)
      var d1 = wide(h0, r1) &+ wide(h1, r0) &+ wide(h2, s2)
      var d2 = wide(h0, r2) &+ wide(h1, r1) &+ wide(h2, r0)
      h0 = UInt64(truncatingIfNeeded: d0) & m44
      d1 &+= d0 >> 44
      h1 = UInt64(truncatingIfNeeded: d1) & m44
      d2 &+= d1 >> 44
      h2 = UInt64(truncatingIfNeeded: d2) & m42
      d0 = d2 >> 42
      h0 &+= UInt64(truncatingIfNeeded: d0) &* 5
      let carry = h0 >> 44
      h0 &= m44
      h1 &+= carry
      p += 16
    }
    (self.h0, self.h1, self.h2) = (h0, h1, h2)
  }
}

/// The full 128-bit product of two 64-bit words.
@inline(__always)
private func wide(_ a: UInt64, _ b: UInt64) -> UInt128 {
  UInt128(a) &* UInt128(b)
}
