public import StashBase

/// A key that seals and opens messages with XChaCha20-Poly1305 and a random nonce.
///
/// `seal` draws a fresh 24-byte nonce from the system's generator for every message and
/// returns `nonce ‖ ciphertext ‖ tag` (40 bytes more than the plaintext); `open` takes that
/// back. The associated data (a file's header, its device id and sequence number) is
/// authenticated, not stored: the opener must supply the same bytes. Random nonces need no
/// state and cannot repeat in practice (2^-129 for 2^32 messages under one key).
public struct SealingKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible,
  CustomReflectable
{
  /// The bytes `seal` adds: the 24-byte nonce and the 16-byte tag.
  public static let overhead = XChaCha20Poly1305.nonceByteCount + XChaCha20Poly1305.tagByteCount

  /// The XChaCha20-Poly1305 key.
  let key: SymmetricKey

  /// Wraps a 256-bit key, usually `FolderKey.sealingKey(for:)`.
  ///
  /// - Parameter key: The key.
  public init(_ key: SymmetricKey) {
    self.key = key
  }

  /// Encrypts and authenticates a message under a new random nonce.
  ///
  /// - Parameters:
  ///   - plaintext: The message; may be empty.
  ///   - associatedData: Bytes bound to the message but not stored in the result.
  /// - Returns: `nonce (24 bytes) ‖ ciphertext ‖ tag (16 bytes)`.
  /// - Throws: `CryptoError.randomnessUnavailable` when no nonce can be drawn,
  ///   `CryptoError.messageTooLong` past 256 GiB.
  public func seal(_ plaintext: [UInt8], associatedData: [UInt8] = []) throws(CryptoError)
    -> [UInt8]
  {
    try seal(plaintext, associatedData: associatedData, nonce: SystemRandom.bytes(24))
  }

  /// Seals under a given nonce: for the golden vectors only, never for data.
  ///
  /// The result is written in one buffer, the nonce first, with no copy of the ciphertext.
  func seal(_ plaintext: [UInt8], associatedData: [UInt8], nonce: [UInt8]) throws(CryptoError)
    -> [UInt8]
  {
    let (subkey, inner) = try XChaCha20Poly1305.split(key: key, nonce: nonce)
    let words = try ChaCha20.nonceWords(inner)
    try ChaCha20.checkLength(plaintext.count, counter: 1)
    let total = plaintext.count + SealingKey.overhead
    return [UInt8](unsafeUninitializedCapacity: total) { output, initialized in
      _ = output.initialize(from: nonce)
      plaintext.withUnsafeBytes { text in
        associatedData.withUnsafeBytes { data in
          ChaCha20Poly1305.seal(
            text, associatedData: data, key: subkey.words, nonce: words,
            into: output.baseAddress! + XChaCha20Poly1305.nonceByteCount)
        }
      }
      initialized = total
    }
  }

  /// Checks and decrypts what `seal` returned.
  ///
  /// - Parameters:
  ///   - sealed: `nonce ‖ ciphertext ‖ tag`.
  ///   - associatedData: The same bytes that were given to `seal`.
  /// - Returns: The plaintext.
  /// - Throws: `CryptoError.authenticationFailed` (and no plaintext) when the message, the
  ///   associated data or the key differs, `CryptoError.sealedMessageTooShort` below 40
  ///   bytes.
  public func open(_ sealed: [UInt8], associatedData: [UInt8] = []) throws(CryptoError)
    -> [UInt8]
  {
    guard sealed.count >= SealingKey.overhead else {
      throw .sealedMessageTooShort(byteCount: sealed.count, minimum: SealingKey.overhead)
    }
    let (subkey, inner) = try XChaCha20Poly1305.split(key: key, nonce: Array(sealed[..<24]))
    let words = try ChaCha20.nonceWords(inner)
    // The ciphertext is read where it is, not copied out first.
    let opened = sealed.withUnsafeBytes { raw in
      associatedData.withUnsafeBytes { data in
        Result { () throws(CryptoError) in
          try ChaCha20Poly1305.open(
            UnsafeRawBufferPointer(rebasing: raw[24...]), associatedData: data,
            key: subkey.words, nonce: words)
        }
      }
    }
    return try opened.get()
  }

  /// `SealingKey(redacted)`.
  public var description: String { "SealingKey(redacted)" }

  /// The same text as `description`.
  public var debugDescription: String { description }

  /// A mirror with no children.
  public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

/// The key that gives a photo its name in an encrypted shared folder.
///
/// A plain folder names a photo by its SHA-256, which tells anyone who can list the folder
/// whether a given picture is in it. Here the name is HMAC-SHA256, under this key, of the
/// photo's SHA-256 (its 32 bytes): the same photo gets the same name on every device that
/// holds the key, and nobody without the key can compute or test it.
public struct PhotoNamingKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible,
  CustomReflectable
{
  /// The HMAC key.
  let key: SymmetricKey

  /// Wraps a 256-bit key, usually `FolderKey.photoNamingKey`.
  ///
  /// - Parameter key: The key.
  public init(_ key: SymmetricKey) {
    self.key = key
  }

  /// The shared-folder name of the photo whose plain SHA-256 is `digest`.
  ///
  /// - Parameter digest: The SHA-256 of the photo's bytes.
  /// - Returns: HMAC-SHA256(key, digest's 32 bytes), in a digest's shape (64 hex digits).
  public func name(forPhoto digest: SHA256Digest) -> SHA256Digest {
    var mac = HMACSHA256(key: key)
    digest.withUnsafeBytes { mac.update($0) }
    return SHA256Digest(bytes: mac.finalize())!
  }

  /// `PhotoNamingKey(redacted)`.
  public var description: String { "PhotoNamingKey(redacted)" }

  /// The same text as `description`.
  public var debugDescription: String { description }

  /// A mirror with no children.
  public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
