/// AEAD_XCHACHA20_POLY1305 (draft-irtf-cfrg-xchacha-03): ChaCha20-Poly1305 with a 192-bit
/// nonce.
///
/// HChaCha20 turns the key and the nonce's first 16 bytes into a subkey; the subkey, four
/// zero bytes and the nonce's last 8 bytes are then an ordinary RFC 8439 seal. A nonce this
/// long can be drawn at random for every message: the chance that two of 2^32 random nonces
/// collide is about 2^-129. Everything else, including the limits and the
/// no-plaintext-on-failure rule, is `ChaCha20Poly1305`'s.
public enum XChaCha20Poly1305 {
  /// The number of bytes in a nonce.
  public static let nonceByteCount = 24

  /// The number of bytes in a tag.
  public static let tagByteCount = 16

  /// Encrypts and authenticates a message.
  ///
  /// - Parameters:
  ///   - plaintext: The message; may be empty.
  ///   - key: The key.
  ///   - nonce: 24 bytes, unique for this key (random is fine).
  ///   - associatedData: Data authenticated but not encrypted; may be empty.
  /// - Returns: The ciphertext followed by the 16-byte tag.
  /// - Throws: `CryptoError.invalidNonceLength` or `CryptoError.messageTooLong`.
  public static func seal(
    _ plaintext: [UInt8], key: SymmetricKey, nonce: [UInt8], associatedData: [UInt8] = []
  ) throws(CryptoError) -> [UInt8] {
    let (subkey, inner) = try split(key: key, nonce: nonce)
    return try ChaCha20Poly1305.seal(
      plaintext, key: subkey, nonce: inner, associatedData: associatedData)
  }

  /// Checks and decrypts a sealed message.
  ///
  /// - Parameters:
  ///   - sealed: The ciphertext followed by its tag.
  ///   - key: The key.
  ///   - nonce: The 24-byte nonce it was sealed with.
  ///   - associatedData: The associated data it was sealed with.
  /// - Returns: The plaintext.
  /// - Throws: `CryptoError.authenticationFailed` (and no plaintext) when anything differs,
  ///   `CryptoError.sealedMessageTooShort`, `CryptoError.invalidNonceLength`.
  public static func open(
    _ sealed: [UInt8], key: SymmetricKey, nonce: [UInt8], associatedData: [UInt8] = []
  ) throws(CryptoError) -> [UInt8] {
    let (subkey, inner) = try split(key: key, nonce: nonce)
    return try ChaCha20Poly1305.open(
      sealed, key: subkey, nonce: inner, associatedData: associatedData)
  }

  /// The HChaCha20 subkey and the 12-byte ChaCha20 nonce for a key and a 24-byte nonce.
  static func split(key: SymmetricKey, nonce: [UInt8]) throws(CryptoError)
    -> (SymmetricKey, [UInt8])
  {
    guard nonce.count == nonceByteCount else {
      throw .invalidNonceLength(expected: nonceByteCount, actual: nonce.count)
    }
    let subkey = nonce.withUnsafeBytes { ChaCha20.hChaCha20(key: key, input: $0.baseAddress!) }
    return (subkey, [0, 0, 0, 0] + nonce[16..<24])
  }
}
