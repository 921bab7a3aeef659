/// A 32-byte SHA-256 digest.
///
/// The digest is stored as four 64-bit words rather than an array, so it is cheap to copy,
/// hash, compare and keep by the million as a dictionary key. Digests order
/// lexicographically by their bytes, which is also the order of their hex text. Its
/// `description` is the 64 lowercase hex digits that `sha256sum` prints.
public struct SHA256Digest: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// Bytes 0..<8 as a big-endian integer, so that comparing words compares bytes in order.
  private let word0: UInt64
  /// Bytes 8..<16, big-endian.
  private let word1: UInt64
  /// Bytes 16..<24, big-endian.
  private let word2: UInt64
  /// Bytes 24..<32, big-endian.
  private let word3: UInt64

  /// Builds the digest from the final SHA-256 chaining values H0...H7.
  init(state: SHA256.State) {
    word0 = UInt64(state.0) << 32 | UInt64(state.1)
    word1 = UInt64(state.2) << 32 | UInt64(state.3)
    word2 = UInt64(state.4) << 32 | UInt64(state.5)
    word3 = UInt64(state.6) << 32 | UInt64(state.7)
  }

  /// Parses a digest from its hex text.
  ///
  /// Accepts exactly 64 hex digits, in lowercase, uppercase or a mix; nothing else, not
  /// even surrounding whitespace or a `0x` prefix.
  ///
  /// - Parameter hex: The digest as 64 hex digits.
  /// - Returns: `nil` when `hex` is not exactly 64 hex digits.
  public init?(hex: String) {
    guard hex.utf8.count == 64 else { return nil }
    var text = hex
    // Stores read hundreds of thousands of digests on open: work on the contiguous bytes.
    let parsed: (UInt64, UInt64, UInt64, UInt64)? = text.withUTF8 { utf8 in
      var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
      for word in 0..<4 {
        var value: UInt64 = 0
        for index in (word * 16)..<(word * 16 + 16) {
          guard let nibble = hexValue(utf8[index]) else { return nil }
          value = value << 4 | nibble
        }
        switch word {
        case 0: words.0 = value
        case 1: words.1 = value
        case 2: words.2 = value
        default: words.3 = value
        }
      }
      return words
    }
    guard let parsed else { return nil }
    (word0, word1, word2, word3) = parsed
  }

  /// Makes a digest from its four words, each eight bytes big-endian (the first byte highest):
  /// what a reader that decoded its hex text already holds (``JSONCursor/digest()``).
  @usableFromInline
  package init(words: (UInt64, UInt64, UInt64, UInt64)) {
    (word0, word1, word2, word3) = words
  }

  /// Makes a digest from its 32 bytes.
  ///
  /// The bytes are taken in the collection's order, as `bytes` returns them.
  ///
  /// - Parameter bytes: Exactly 32 bytes.
  /// - Returns: `nil` when `bytes` does not hold exactly 32 bytes.
  ///
  /// Inlinable, so that a caller in another module walks its own collection's type, not one
  /// looked up at run time (a quarter of what `sync status` spent reading a digest section's
  /// entries).
  @inlinable
  public init?(bytes: some Collection<UInt8>) {
    guard bytes.count == 32 else { return nil }
    var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    var index = 0
    for byte in bytes {
      guard index < 32 else { return nil }
      let shift = UInt64(56 - 8 * (index & 7))
      switch index >> 3 {
      case 0: words.0 |= UInt64(byte) << shift
      case 1: words.1 |= UInt64(byte) << shift
      case 2: words.2 |= UInt64(byte) << shift
      default: words.3 |= UInt64(byte) << shift
      }
      index += 1
    }
    guard index == 32 else { return nil }
    self.init(words: words)
  }

  /// The 32 bytes of the digest, in order.
  ///
  /// This allocates an array; use `withUnsafeBytes(_:)` or `appendBytes(to:)` on hot paths.
  public var bytes: [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(32)
    appendBytes(to: &out)
    return out
  }

  /// The digest as 64 lowercase hex digits.
  ///
  /// This is the text `sha256sum` prints and `init?(hex:)` parses.
  public var hex: String {
    String(unsafeUninitializedCapacity: 64) { text in
      withUnsafeBytes { HexDigits.write($0, to: UnsafeMutableRawPointer(text.baseAddress!)) }
      return 64
    }
  }

  /// The digest as 64 lowercase hex digits, the same as `hex`.
  public var description: String { hex }

  /// Calls `body` with the 32 bytes of the digest, without allocating.
  ///
  /// The buffer is valid only for the duration of the call.
  ///
  /// - Parameter body: Receives the 32 bytes, in order.
  /// - Returns: What `body` returns.
  /// - Throws: What `body` throws.
  public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
    var bigEndian = (word0.bigEndian, word1.bigEndian, word2.bigEndian, word3.bigEndian)
    return try Swift.withUnsafeBytes(of: &bigEndian, body)
  }

  /// Appends the 32 bytes of the digest to a byte buffer.
  ///
  /// Nothing is allocated beyond the growth of `buffer` itself, so this is the way to write
  /// digests into a larger record.
  ///
  /// - Parameter buffer: The buffer to append to.
  public func appendBytes(to buffer: inout [UInt8]) {
    withUnsafeBytes { buffer.append(contentsOf: $0) }
  }

  /// Whether `lhs` sorts before `rhs`, comparing bytes in order.
  ///
  /// This is the same order as comparing their `hex` strings.
  ///
  /// - Parameters:
  ///   - lhs: A digest.
  ///   - rhs: Another digest.
  /// - Returns: `true` when the first byte where they differ is smaller in `lhs`.
  public static func < (lhs: SHA256Digest, rhs: SHA256Digest) -> Bool {
    if lhs.word0 != rhs.word0 { return lhs.word0 < rhs.word0 }
    if lhs.word1 != rhs.word1 { return lhs.word1 < rhs.word1 }
    if lhs.word2 != rhs.word2 { return lhs.word2 < rhs.word2 }
    return lhs.word3 < rhs.word3
  }
}

/// The value of one ASCII hex digit, or `nil` for any other byte.
private func hexValue(_ unit: UInt8) -> UInt64? {
  switch unit {
  case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt64(unit &- UInt8(ascii: "0"))
  case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt64(unit &- UInt8(ascii: "a") &+ 10)
  case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt64(unit &- UInt8(ascii: "A") &+ 10)
  default: return nil
  }
}
