/// The Poly1305 one-time authenticator of RFC 8439 section 2.5, computed incrementally.
///
/// A 32-byte one-time key (r, clamped, and s) authenticates one message with a 16-byte tag.
/// A key must never authenticate two messages; the AEADs derive a fresh one per nonce.
/// The arithmetic modulo 2^130 - 5 works on two 64-bit words and a few bits above them, with
/// four 128-bit products a block (the layout of OpenSSL's scalar x86-64 and arm64 code), and
/// is free of data-dependent branches; the final reduction selects with masks.
public struct Poly1305: Sendable {
  /// The number of bytes in a one-time key.
  public static let keyByteCount = 32

  /// The number of bytes in a tag.
  public static let tagByteCount = 16

  /// r, clamped, as two little-endian words.
  private let r0: UInt64, r1: UInt64
  /// s, the key's second half, as two little-endian words.
  private let pad0: UInt64, pad1: UInt64
  /// The accumulator: h0 + h1 2^64 + h2 2^128, h2 at most 4 between blocks.
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
    // The clamping of RFC 8439 section 2.5: r &= 0x0ffffffc0ffffffc0ffffffc0fffffff.
    let t0 = UInt64(littleEndian: key.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
    let t1 = UInt64(littleEndian: key.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
    r0 = t0 & 0x0FFF_FFFC_0FFF_FFFF
    r1 = t1 & 0x0FFF_FFFC_0FFF_FFFC
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
      withUnsafeBytes(of: block) { blocks($0.baseAddress!, count: 1, final: 1) }
      buffered = 0
    }
    let whole = remaining >> 4
    if whole > 0 {
      blocks(input, count: whole, final: 1)
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

  /// Appends `count` whole 16-byte blocks at `input`, when no partial block is buffered (the
  /// AEAD pads the associated data to a block before the ciphertext).
  @inline(__always)
  mutating func absorb(_ input: UnsafeRawPointer, blocks count: Int) {
    assert(buffered == 0, "a partial block is buffered")
    blocks(input, count: count, final: 1)
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
    // h < 2^128 * 5 < 2p, so one conditional subtraction of p = 2^130 - 5 reduces it fully:
    // g = h + 5 - 2^130 is kept when it does not borrow, that is when h + 5 reaches 2^130.
    let h = joined(h0, h1)
    let (g, carry) = h.addingReportingOverflow(5)
    let keep = 0 &- UInt128((h2 &+ (carry ? 1 : 0)) >> 2)  // all 128 bits set when h >= p
    // The tag is h + s modulo 2^128.
    let tag = ((h & ~keep) | (g & keep)) &+ joined(pad0, pad1)
    return (low(tag).littleEndian, high(tag).littleEndian)
  }

  /// Absorbs `count` 16-byte blocks at `input`; `final` is 1 (the 2^128 bit) for whole
  /// blocks and 0 for the padded last one.
  ///
  /// Each step is h = (h + block) * r modulo 2^130 - 5, on h = h0 + h1 2^64 + h2 2^128 (h2
  /// a few bits) and r = r0 + r1 2^64. Four 64 x 64 -> 128-bit products do the work: the
  /// clamping leaves r1 a multiple of 4, so the parts of the product at 2^128 and above fold
  /// back down as multiples of s1 = r1 + r1 / 4 = 5 r1 / 4 (2^130 is 5 modulo p).
  @inline(__always)
  private mutating func blocks(_ input: UnsafeRawPointer, count: Int, final: UInt64) {
    let (r0, r1) = (self.r0, self.r1)
    let s1 = r1 &+ (r1 >> 2)
    var (h0, h1, h2) = (self.h0, self.h1, self.h2)
    var p = input
    for _ in 0..<count {
      // h += block, with the 2^128 bit; the carry out of 128 bits goes into h2.
      let m0 = UInt64(littleEndian: p.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
      let m1 = UInt64(littleEndian: p.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
      let (sum, carry) = joined(h0, h1).addingReportingOverflow(joined(m0, m1))
      (h0, h1) = (low(sum), high(sum))
      h2 &+= final &+ (carry ? 1 : 0)
      // h * r: d0 at 2^0, d1 at 2^64, h2 r0 at 2^128. h2 is at most 6 here, r0 and s1 are
      // below 2^61, so h2 s1 and h2 r0 fit a word and no sum overflows 128 bits.
      let d0 = wide(h0, r0) &+ wide(h1, s1)
      var d1 = wide(h0, r1) &+ wide(h1, r0) &+ UInt128(h2 &* s1)
      d1 &+= d0 >> 64
      let top = high(d1) &+ h2 &* r0
      // Partial reduction: the bits from 2^130 up, times 5, are added back at the bottom.
      let fold = (top & ~3) &+ (top >> 2)
      let (reduced, over) = joined(low(d0), low(d1)).addingReportingOverflow(UInt128(fold))
      (h0, h1) = (low(reduced), high(reduced))
      h2 = (top & 3) &+ (over ? 1 : 0)
      p += 16
    }
    (self.h0, self.h1, self.h2) = (h0, h1, h2)
  }
}

/// The 128-bit number `low + high * 2^64`.
@inline(__always)
private func joined(_ low: UInt64, _ high: UInt64) -> UInt128 {
  UInt128(high) << 64 | UInt128(low)
}

/// The low 64 bits of a 128-bit number.
@inline(__always)
private func low(_ value: UInt128) -> UInt64 {
  UInt64(truncatingIfNeeded: value)
}

/// The high 64 bits of a 128-bit number.
@inline(__always)
private func high(_ value: UInt128) -> UInt64 {
  UInt64(truncatingIfNeeded: value >> 64)
}

/// The full 128-bit product of two 64-bit words.
@inline(__always)
private func wide(_ a: UInt64, _ b: UInt64) -> UInt128 {
  UInt128(a) &* UInt128(b)
}
