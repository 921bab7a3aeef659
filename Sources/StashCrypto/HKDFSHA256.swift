/// HKDF with SHA-256 (RFC 5869): keys derived from a key, a salt and a label.
///
/// `extract` concentrates the input key material into a 32-byte pseudorandom key (PRK);
/// `expand` stretches a PRK into as many bytes as needed, up to 255 × 32 = 8,160, under an
/// `info` label, so that different labels give independent keys. The folder key's subkeys
/// and key id are derived this way (see `FolderKey`).
public enum HKDFSHA256 {
  /// The most bytes `expand` can produce: 255 blocks of 32.
  public static let maximumOutputByteCount = 255 * 32

  /// HKDF-Extract: HMAC-SHA256 of the input key material keyed by the salt.
  ///
  /// - Parameters:
  ///   - salt: The salt; empty means 32 zero bytes, as RFC 5869 specifies (HMAC pads the key
  ///     with zeros, so the two are the same).
  ///   - inputKeyMaterial: The secret to derive from.
  /// - Returns: The 32-byte pseudorandom key.
  public static func extract(salt: [UInt8], inputKeyMaterial: [UInt8]) -> [UInt8] {
    HMACSHA256.authenticationCode(for: inputKeyMaterial, key: salt)
  }

  /// HKDF-Expand: `outputByteCount` bytes from a pseudorandom key and a label.
  ///
  /// - Parameters:
  ///   - pseudorandomKey: A PRK from `extract`, or another uniformly random key.
  ///   - info: The label that makes this output independent of every other; may be empty.
  ///   - outputByteCount: How many bytes, 0 to 8,160.
  /// - Returns: The output keying material.
  /// - Throws: `CryptoError.outputTooLong` past 8,160 bytes (a negative count gives none).
  public static func expand(pseudorandomKey: [UInt8], info: [UInt8], outputByteCount: Int)
    throws(CryptoError) -> [UInt8]
  {
    guard outputByteCount <= maximumOutputByteCount else {
      throw .outputTooLong(byteCount: outputByteCount, limit: maximumOutputByteCount)
    }
    let keyed = HMACSHA256(key: pseudorandomKey)
    var output: [UInt8] = []
    output.reserveCapacity(max(0, outputByteCount))
    var previous: [UInt8] = []
    var counter: UInt8 = 1
    while output.count < outputByteCount {
      var mac = keyed
      mac.update(previous)
      mac.update(info)
      mac.update([counter])
      previous = mac.finalize()
      output.append(contentsOf: previous.prefix(outputByteCount - output.count))
      counter &+= 1
    }
    return output
  }

  /// Extract then expand, in one call.
  ///
  /// - Parameters:
  ///   - inputKeyMaterial: The secret to derive from.
  ///   - salt: The salt; may be empty.
  ///   - info: The label; may be empty.
  ///   - outputByteCount: How many bytes, 0 to 8,160.
  /// - Returns: The output keying material.
  /// - Throws: `CryptoError.outputTooLong` past 8,160 bytes.
  public static func deriveKey(
    inputKeyMaterial: [UInt8], salt: [UInt8], info: [UInt8], outputByteCount: Int
  ) throws(CryptoError) -> [UInt8] {
    try expand(
      pseudorandomKey: extract(salt: salt, inputKeyMaterial: inputKeyMaterial), info: info,
      outputByteCount: outputByteCount)
  }
}
