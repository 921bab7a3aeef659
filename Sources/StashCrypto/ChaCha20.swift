/// The ChaCha20 stream cipher of RFC 8439, and HChaCha20.
///
/// A 256-bit key, a 96-bit nonce and a 32-bit block counter select a keystream of 64-byte
/// blocks; encryption and decryption both XOR it into the message. The counter never wraps:
/// a message that would need a block past 2^32 - 1 is refused with
/// `CryptoError.messageTooLong` (at counter 0 that is 256 GiB). ChaCha20 alone does not
/// authenticate anything; use `ChaCha20Poly1305` or `XChaCha20Poly1305` for data.
public enum ChaCha20 {
  /// The number of bytes in a ChaCha20 nonce (96 bits).
  public static let nonceByteCount = 12

  /// The number of bytes in one keystream block.
  public static let blockByteCount = 64

  /// The number of bytes in an HChaCha20 input (128 bits).
  public static let hChaCha20InputByteCount = 16

  /// XORs a message with the keystream that starts at block `counter`.
  ///
  /// Encrypting and decrypting are the same operation.
  ///
  /// - Parameters:
  ///   - input: The plaintext or ciphertext; may be empty.
  ///   - key: The key.
  ///   - nonce: 12 bytes, never used twice with one key.
  ///   - counter: The first block's number (RFC 8439's AEAD starts the message at 1).
  /// - Returns: The other text, as long as `input`.
  /// - Throws: `CryptoError.invalidNonceLength`, or `CryptoError.messageTooLong` when the
  ///   message needs blocks past 2^32 - 1.
  public static func encrypt(
    _ input: [UInt8], key: SymmetricKey, nonce: [UInt8], counter: UInt32
  ) throws(CryptoError) -> [UInt8] {
    let words = try nonceWords(nonce)
    try checkLength(input.count, counter: counter)
    return [UInt8](unsafeUninitializedCapacity: input.count) { output, initialized in
      input.withUnsafeBytes { source in
        if let from = source.baseAddress, let to = output.baseAddress {
          xor(from, into: to, count: source.count, key: key.words, counter: counter, nonce: words)
        }
      }
      initialized = input.count
    }
  }

  /// One 64-byte block of keystream (the block function of RFC 8439 section 2.3).
  ///
  /// - Parameters:
  ///   - key: The key.
  ///   - nonce: 12 bytes.
  ///   - counter: The block's number.
  /// - Returns: The 64 bytes of the serialised block.
  /// - Throws: `CryptoError.invalidNonceLength`.
  public static func block(key: SymmetricKey, nonce: [UInt8], counter: UInt32)
    throws(CryptoError) -> [UInt8]
  {
    let words = try nonceWords(nonce)
    let state = ChaChaState(key: key.words, counter: counter, nonce: words)
    var mixed = state
    mixed.permute()
    mixed.add(state)
    return mixed.withBytes { Array($0) }
  }

  /// HChaCha20: a new 256-bit key from a key and a 128-bit input.
  ///
  /// The state is set up as for ChaCha20 with the 16 input bytes in words 12-15, the 20
  /// rounds run, and words 0-3 and 12-15 (without adding the input back) are the new key
  /// (draft-irtf-cfrg-xchacha-03, section 2.2). XChaCha20 uses it to turn the first 16 bytes
  /// of its 24-byte nonce into a subkey.
  ///
  /// - Parameters:
  ///   - key: The key.
  ///   - input: 16 bytes.
  /// - Returns: The derived key.
  /// - Throws: `CryptoError.invalidNonceLength` when `input` is not 16 bytes.
  public static func hChaCha20(key: SymmetricKey, input: [UInt8]) throws(CryptoError)
    -> SymmetricKey
  {
    guard input.count == hChaCha20InputByteCount else {
      throw .invalidNonceLength(expected: hChaCha20InputByteCount, actual: input.count)
    }
    return input.withUnsafeBytes { hChaCha20(key: key, input: $0.baseAddress!) }
  }

  /// HChaCha20 of the 16 bytes at `input`.
  static func hChaCha20(key: SymmetricKey, input: UnsafeRawPointer) -> SymmetricKey {
    func word(_ index: Int) -> UInt32 {
      UInt32(littleEndian: input.loadUnaligned(fromByteOffset: 4 * index, as: UInt32.self))
    }
    var state = ChaChaState(key: key.words, counter: word(0), nonce: (word(1), word(2), word(3)))
    state.permute()
    return SymmetricKey(
      words: (state.x0, state.x1, state.x2, state.x3, state.x12, state.x13, state.x14, state.x15))
  }

  /// The largest message, in bytes, that fits the block counter from `counter` on.
  ///
  /// - Parameter counter: The first block's number.
  /// - Returns: `(2^32 - counter) * 64`, which needs 64-bit `Int`.
  public static func maximumByteCount(from counter: UInt32) -> Int {
    (Int(UInt32.max) - Int(counter) + 1) * blockByteCount
  }

  /// Throws when `count` bytes do not fit the block counter from `counter` on.
  static func checkLength(_ count: Int, counter: UInt32) throws(CryptoError) {
    let limit = maximumByteCount(from: counter)
    guard count <= limit else { throw .messageTooLong(byteCount: count, limit: limit) }
  }

  /// The three little-endian words of a 12-byte nonce.
  static func nonceWords(_ nonce: [UInt8]) throws(CryptoError) -> (UInt32, UInt32, UInt32) {
    guard nonce.count == nonceByteCount else {
      throw .invalidNonceLength(expected: nonceByteCount, actual: nonce.count)
    }
    return nonce.withUnsafeBytes { raw in
      (
        UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 0, as: UInt32.self)),
        UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4, as: UInt32.self)),
        UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
      )
    }
  }
}
