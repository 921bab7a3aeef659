/// A 256-bit secret key, kept out of every description.
///
/// The key lives inline as eight 32-bit words (the little-endian reading of its 32 bytes,
/// the form ChaCha20 uses), so copying it allocates nothing. Its `description`,
/// `debugDescription` and mirror say only that it is redacted: printing a key, dumping a
/// value that holds one, or interpolating it into a message never shows its bytes. Two keys
/// compare in constant time. Swift gives no way to wipe memory reliably, so the key is not
/// zeroed when it goes away; keep key values short-lived where that is easy.
public struct SymmetricKey: Sendable, Equatable, CustomStringConvertible,
  CustomDebugStringConvertible, CustomReflectable
{
  /// The number of bytes in a key.
  public static let byteCount = 32

  /// The key as eight little-endian words.
  typealias Words = (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32)

  /// The key's words, word `i` being bytes `4i..<4i+4` read little-endian.
  let words: Words

  /// Makes a key from its words.
  init(words: Words) {
    self.words = words
  }

  /// Makes a key from its 32 bytes.
  ///
  /// - Parameter bytes: Exactly 32 bytes.
  /// - Throws: `CryptoError.invalidKeyLength` for any other count.
  public init(bytes: some Collection<UInt8>) throws(CryptoError) {
    guard bytes.count == SymmetricKey.byteCount else {
      throw .invalidKeyLength(expected: SymmetricKey.byteCount, actual: bytes.count)
    }
    var raw: Words = (0, 0, 0, 0, 0, 0, 0, 0)
    withUnsafeMutableBytes(of: &raw) { buffer in
      for (index, byte) in zip(0..<SymmetricKey.byteCount, bytes) {
        buffer[index] = byte
      }
    }
    words = (
      UInt32(littleEndian: raw.0), UInt32(littleEndian: raw.1), UInt32(littleEndian: raw.2),
      UInt32(littleEndian: raw.3), UInt32(littleEndian: raw.4), UInt32(littleEndian: raw.5),
      UInt32(littleEndian: raw.6), UInt32(littleEndian: raw.7)
    )
  }

  /// A new key of 32 bytes from the operating system's random generator.
  ///
  /// - Returns: The key.
  /// - Throws: `CryptoError.randomnessUnavailable` when the generator fails; a weak key is
  ///   never returned instead.
  public static func random() throws(CryptoError) -> SymmetricKey {
    try SymmetricKey(bytes: SystemRandom.bytes(SymmetricKey.byteCount))
  }

  /// Calls `body` with the key's 32 bytes.
  ///
  /// The buffer lives on the stack for the duration of the call only; do not copy it out
  /// unless the copy is itself a key.
  ///
  /// - Parameter body: Receives the 32 bytes.
  /// - Returns: What `body` returns.
  /// - Throws: What `body` throws.
  public func withUnsafeBytes<R, E: Error>(
    _ body: (UnsafeRawBufferPointer) throws(E) -> R
  ) throws(E) -> R {
    var raw: Words = (
      words.0.littleEndian, words.1.littleEndian, words.2.littleEndian, words.3.littleEndian,
      words.4.littleEndian, words.5.littleEndian, words.6.littleEndian, words.7.littleEndian
    )
    return try Swift.withUnsafeBytes(of: &raw) { (buffer) throws(E) -> R in try body(buffer) }
  }

  /// Says what the value is without showing it: `SymmetricKey(256 bits, redacted)`.
  public var description: String { "SymmetricKey(256 bits, redacted)" }

  /// The same redacted text as `description`.
  public var debugDescription: String { description }

  /// A mirror with no children, so `dump` and reflection show no key bytes.
  public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }

  /// Whether two keys are the same, compared in constant time.
  ///
  /// - Parameters:
  ///   - lhs: A key.
  ///   - rhs: Another key.
  /// - Returns: `true` when their 32 bytes are equal.
  public static func == (lhs: SymmetricKey, rhs: SymmetricKey) -> Bool {
    lhs.withUnsafeBytes { left in rhs.withUnsafeBytes { right in ConstantTime.equal(left, right) } }
  }
}
