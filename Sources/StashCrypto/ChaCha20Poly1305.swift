/// The AEAD_CHACHA20_POLY1305 construction of RFC 8439 section 2.8.
///
/// Sealing encrypts the plaintext with ChaCha20 from block 1 and authenticates the
/// associated data and the ciphertext with Poly1305 under a one-time key taken from block 0;
/// the result is the ciphertext followed by the 16-byte tag. Opening checks the tag in
/// constant time before it decrypts anything, and on a mismatch throws
/// `CryptoError.authenticationFailed` without producing a single byte of plaintext.
///
/// The 96-bit nonce must never repeat under one key: two messages sealed with the same key
/// and nonce reveal their XOR and let anyone forge tags. Callers that cannot keep a counter
/// should use `XChaCha20Poly1305`, whose 192-bit nonces can be drawn at random.
public enum ChaCha20Poly1305 {
  /// The number of bytes in a nonce.
  public static let nonceByteCount = 12

  /// The number of bytes in a tag.
  public static let tagByteCount = 16

  /// The longest plaintext one nonce can seal: 2^32 - 1 blocks of 64 bytes.
  public static let maximumPlaintextByteCount = ChaCha20.maximumByteCount(from: 1)

  /// Encrypts and authenticates a message.
  ///
  /// - Parameters:
  ///   - plaintext: The message; may be empty.
  ///   - key: The key.
  ///   - nonce: 12 bytes, unique for this key.
  ///   - associatedData: Data authenticated with the message but not encrypted (a header
  ///     that names what the message is); may be empty.
  /// - Returns: The ciphertext, as long as the plaintext, followed by the 16-byte tag.
  /// - Throws: `CryptoError.invalidNonceLength`, or `CryptoError.messageTooLong` past
  ///   `maximumPlaintextByteCount`.
  public static func seal(
    _ plaintext: [UInt8], key: SymmetricKey, nonce: [UInt8], associatedData: [UInt8] = []
  ) throws(CryptoError) -> [UInt8] {
    let words = try ChaCha20.nonceWords(nonce)
    try ChaCha20.checkLength(plaintext.count, counter: 1)
    let total = plaintext.count + tagByteCount
    return [UInt8](unsafeUninitializedCapacity: total) { output, initialized in
      plaintext.withUnsafeBytes { text in
        associatedData.withUnsafeBytes { data in
          seal(text, associatedData: data, key: key.words, nonce: words, into: output.baseAddress!)
        }
      }
      initialized = total
    }
  }

  /// Checks and decrypts a sealed message.
  ///
  /// - Parameters:
  ///   - sealed: The ciphertext followed by its 16-byte tag.
  ///   - key: The key it was sealed with.
  ///   - nonce: The nonce it was sealed with.
  ///   - associatedData: The associated data it was sealed with.
  /// - Returns: The plaintext.
  /// - Throws: `CryptoError.authenticationFailed` when anything differs from what was
  ///   sealed (no plaintext is produced), `CryptoError.sealedMessageTooShort` when `sealed`
  ///   cannot hold a tag, `CryptoError.invalidNonceLength`.
  public static func open(
    _ sealed: [UInt8], key: SymmetricKey, nonce: [UInt8], associatedData: [UInt8] = []
  ) throws(CryptoError) -> [UInt8] {
    let words = try ChaCha20.nonceWords(nonce)
    let opened = sealed.withUnsafeBytes { raw in
      associatedData.withUnsafeBytes { data in
        Result { () throws(CryptoError) in
          try open(raw, associatedData: data, key: key.words, nonce: words)
        }
      }
    }
    return try opened.get()
  }

  /// Seals `plaintext` into `output`, which has room for the ciphertext and the tag. The
  /// caller has checked the length against the block counter.
  static func seal(
    _ plaintext: UnsafeRawBufferPointer, associatedData: UnsafeRawBufferPointer,
    key: SymmetricKey.Words, nonce: (UInt32, UInt32, UInt32), into output: UnsafeMutableRawPointer
  ) {
    var mac = oneTimeAuthenticator(key: key, nonce: nonce)
    mac.update(associatedData)
    mac.padToBlock()
    let count = plaintext.count
    if count > 0 {
      ChaCha20.xor(
        plaintext.baseAddress!, into: output, count: count, key: key, counter: 1, nonce: nonce,
        authenticating: output, with: &mac)
    }
    var tag = finishTag(&mac, associatedByteCount: associatedData.count, textByteCount: count)
    withUnsafeBytes(of: &tag) { (output + count).copyMemory(from: $0.baseAddress!, byteCount: 16) }
  }

  /// Opens `sealed` (ciphertext and tag): the tag is checked before anything is decrypted.
  /// The keystream is computed while Poly1305 reads the ciphertext, into the buffer that
  /// becomes the plaintext, and is wiped there if the tag does not match.
  static func open(
    _ sealed: UnsafeRawBufferPointer, associatedData: UnsafeRawBufferPointer,
    key: SymmetricKey.Words, nonce: (UInt32, UInt32, UInt32)
  ) throws(CryptoError) -> [UInt8] {
    guard sealed.count >= tagByteCount else {
      throw .sealedMessageTooShort(byteCount: sealed.count, minimum: tagByteCount)
    }
    let textCount = sealed.count - tagByteCount
    try ChaCha20.checkLength(textCount, counter: 1)
    let ciphertext = UnsafeRawBufferPointer(rebasing: sealed[..<textCount])
    let received = UnsafeRawBufferPointer(rebasing: sealed[textCount...])
    var mac = oneTimeAuthenticator(key: key, nonce: nonce)
    mac.update(associatedData)
    mac.padToBlock()
    var valid = false
    let plaintext = [UInt8](unsafeUninitializedCapacity: textCount) { output, initialized in
      // First the keystream alone (zeros XORed with it), with Poly1305 over the ciphertext
      // stitched in as when sealing; the ciphertext is XORed in only once the tag matches.
      output.initialize(repeating: 0)
      if let keystream = output.baseAddress, let text = ciphertext.baseAddress {
        ChaCha20.xor(
          keystream, into: keystream, count: textCount, key: key, counter: 1, nonce: nonce,
          authenticating: text, with: &mac)
      }
      var tag = finishTag(&mac, associatedByteCount: associatedData.count, textByteCount: textCount)
      valid = withUnsafeBytes(of: &tag) { ConstantTime.equal($0, received) }
      if !valid {
        output.update(repeating: 0)
      } else if let keystream = output.baseAddress, let text = ciphertext.baseAddress {
        ChaCha20.xor(text, into: keystream, count: textCount)
      }
      initialized = textCount
    }
    guard valid else { throw .authenticationFailed }
    return plaintext
  }

  /// Poly1305 under the one-time key: the first 32 bytes of block 0 (section 2.6).
  private static func oneTimeAuthenticator(
    key: SymmetricKey.Words, nonce: (UInt32, UInt32, UInt32)
  ) -> Poly1305 {
    let state = ChaChaState(key: key, counter: 0, nonce: nonce)
    var block = state
    block.permute()
    block.add(state)
    return block.withBytes { Poly1305(key: $0.baseAddress!) }
  }

  /// Pads the ciphertext, appends both lengths as 64-bit little-endian numbers and returns
  /// the tag.
  private static func finishTag(
    _ mac: inout Poly1305, associatedByteCount: Int, textByteCount: Int
  ) -> (UInt64, UInt64) {
    mac.padToBlock()
    let lengths = (
      UInt64(associatedByteCount).littleEndian, UInt64(textByteCount).littleEndian
    )
    withUnsafeBytes(of: lengths) { mac.update($0) }
    return mac.finish()
  }
}
