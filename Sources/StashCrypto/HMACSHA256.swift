import StashBase

/// HMAC with SHA-256 (RFC 2104; the test cases of RFC 4231), computed incrementally.
///
/// A key longer than SHA-256's 64-byte block is hashed first; a shorter one is padded with
/// zeros. The code is 32 bytes; `isValid` compares a received code in constant time, and a
/// truncated code (RFC 4231's case 5 keeps 16 bytes) is compared on its own length.
public struct HMACSHA256: Sendable {
  /// The number of bytes in a full authentication code.
  public static let byteCount = 32

  /// The inner hash, already fed the key XOR ipad.
  private var inner = SHA256()
  /// The outer hash, already fed the key XOR opad.
  private var outer = SHA256()

  /// Starts a code under a key of any length.
  ///
  /// - Parameter key: The secret key; any length, including empty.
  public init(key: UnsafeRawBufferPointer) {
    var block = [UInt8](repeating: 0, count: 64)
    if key.count > 64 {
      block.replaceSubrange(0..<32, with: SHA256.hash(key).bytes)
    } else if key.count > 0 {
      block.replaceSubrange(0..<key.count, with: key)
    }
    inner.update(block.map { $0 ^ 0x36 })
    outer.update(block.map { $0 ^ 0x5C })
  }

  /// Starts a code under a key of any length.
  ///
  /// - Parameter key: The secret key's bytes.
  public init(key: [UInt8]) {
    self = key.withUnsafeBytes { HMACSHA256(key: $0) }
  }

  /// Starts a code under a `SymmetricKey`.
  ///
  /// - Parameter key: The key.
  public init(key: SymmetricKey) {
    self = key.withUnsafeBytes { HMACSHA256(key: $0) }
  }

  /// Appends bytes to the message.
  ///
  /// - Parameter bytes: The next bytes; may be empty.
  public mutating func update(_ bytes: UnsafeRawBufferPointer) {
    inner.update(bytes)
  }

  /// Appends the bytes of an array to the message.
  ///
  /// - Parameter bytes: The next bytes; may be empty.
  public mutating func update(_ bytes: [UInt8]) {
    inner.update(bytes)
  }

  /// The code of the message fed so far.
  ///
  /// - Returns: The 32-byte code.
  public func finalize() -> [UInt8] {
    var outer = self.outer
    inner.finalize().withUnsafeBytes { outer.update($0) }
    return outer.finalize().bytes
  }

  /// The code of a whole message.
  ///
  /// - Parameters:
  ///   - message: The message.
  ///   - key: The key.
  /// - Returns: The 32-byte code.
  public static func authenticationCode(for message: [UInt8], key: [UInt8]) -> [UInt8] {
    var mac = HMACSHA256(key: key)
    mac.update(message)
    return mac.finalize()
  }

  /// Whether a received code is right for a message, compared in constant time.
  ///
  /// - Parameters:
  ///   - code: The received code: 32 bytes, or a truncation of at least 16.
  ///   - message: The message.
  ///   - key: The key.
  /// - Returns: `true` when `code` is the leading bytes of the message's code; always
  ///   `false` for codes shorter than 16 bytes or longer than 32.
  public static func isValid(_ code: [UInt8], for message: [UInt8], key: [UInt8]) -> Bool {
    guard (16...byteCount).contains(code.count) else { return false }
    let expected = Array(authenticationCode(for: message, key: key).prefix(code.count))
    return ConstantTime.equal(expected, code)
  }
}
