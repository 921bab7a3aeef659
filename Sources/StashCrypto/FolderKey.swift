/// The 256-bit key of an encrypted shared folder: the one secret a person keeps.
///
/// Every other key is derived from it with HKDF-SHA256 (RFC 5869): the PRK is
/// HKDF-Extract with an empty salt over the 32 key bytes, and each purpose expands it under
/// its own fixed label (`KeyPurpose`), so knowing one subkey tells nothing about another or
/// about the folder key. The key id (`id`) is derived the same way and is safe to show.
/// The key travels between devices only as sync key text (`SyncKeyText`); it describes
/// itself as redacted and compares in constant time.
public struct FolderKey: Sendable, Equatable, CustomStringConvertible,
  CustomDebugStringConvertible, CustomReflectable
{
  /// The key itself.
  let key: SymmetricKey

  /// HKDF-Extract of the key with an empty salt, the root of every derivation.
  private let pseudorandomKey: [UInt8]

  /// Wraps a 256-bit key.
  ///
  /// - Parameter key: The key, from `random()`, from sync key text, or from a device's
  ///   key file.
  public init(_ key: SymmetricKey) {
    self.key = key
    pseudorandomKey = key.withUnsafeBytes {
      HKDFSHA256.extract(salt: [], inputKeyMaterial: Array($0))
    }
  }

  /// A new folder key from the operating system's random generator.
  ///
  /// - Returns: The key.
  /// - Throws: `CryptoError.randomnessUnavailable` when the generator fails.
  public static func random() throws(CryptoError) -> FolderKey {
    FolderKey(try SymmetricKey.random())
  }

  /// The key id: 8 bytes derived from the key, shown as 16 lowercase hex digits.
  ///
  /// HKDF-Expand under the label `stash folder key v1: key id`. It names the key in
  /// `sync status` and in file headers, so a device can tell which of its keys opens a
  /// file, and reveals nothing about the key.
  public var id: KeyID {
    KeyID(bytes: expand(label: KeyPurpose.keyIDLabel, count: KeyID.byteCount))
  }

  /// The 32-byte subkey for one purpose.
  ///
  /// - Parameter purpose: What the subkey is for.
  /// - Returns: HKDF-Expand of the folder key under the purpose's label.
  public func subkey(for purpose: KeyPurpose) -> SymmetricKey {
    try! SymmetricKey(bytes: expand(label: purpose.label, count: SymmetricKey.byteCount))
  }

  /// The XChaCha20-Poly1305 key that seals data of one kind.
  ///
  /// - Parameter purpose: What it seals, such as `.segments`.
  /// - Returns: A sealing key under the purpose's subkey.
  public func sealingKey(for purpose: KeyPurpose) -> SealingKey {
    SealingKey(subkey(for: purpose))
  }

  /// The key that names photos in the shared folder (`KeyPurpose.photoNames`).
  public var photoNamingKey: PhotoNamingKey {
    PhotoNamingKey(subkey(for: .photoNames))
  }

  /// The key as sync key text: 60 characters in 12 groups of 5 (see `SyncKeyText`).
  ///
  /// This is the key itself: show it once, to the person, and never log it.
  public var syncKeyText: String {
    SyncKeyText.encode(self)
  }

  /// Calls `body` with the key's 32 bytes, to store them in a device's key file.
  ///
  /// - Parameter body: Receives the bytes; the buffer is valid only during the call.
  /// - Returns: What `body` returns.
  /// - Throws: What `body` throws.
  public func withUnsafeBytes<R, E: Error>(
    _ body: (UnsafeRawBufferPointer) throws(E) -> R
  ) throws(E) -> R {
    try key.withUnsafeBytes(body)
  }

  /// Says which key this is without showing it: `FolderKey(id: 0123456789abcdef, redacted)`.
  public var description: String { "FolderKey(id: \(id), redacted)" }

  /// The same text as `description`.
  public var debugDescription: String { description }

  /// A mirror showing only the key id.
  public var customMirror: Mirror { Mirror(self, children: ["id": id], displayStyle: .struct) }

  /// Whether two folder keys are the same key, compared in constant time.
  ///
  /// - Parameters:
  ///   - lhs: A key.
  ///   - rhs: Another key.
  /// - Returns: `true` when their bytes are equal.
  public static func == (lhs: FolderKey, rhs: FolderKey) -> Bool {
    lhs.key == rhs.key
  }

  /// HKDF-Expand of the pseudorandom key under `label`.
  private func expand(label: String, count: Int) -> [UInt8] {
    try! HKDFSHA256.expand(
      pseudorandomKey: pseudorandomKey, info: Array(label.utf8), outputByteCount: count)
  }
}

/// What a subkey of the folder key is for; each purpose has its own fixed HKDF label.
///
/// The labels are part of the format (Fixtures/README.md, section 6): changing one makes
/// every file sealed under it unreadable. Add a purpose rather than reuse one.
public enum KeyPurpose: String, CaseIterable, Sendable {
  /// Sealing export segments.
  case segments
  /// Sealing photo bytes.
  case photos
  /// Naming photos by a keyed hash (`PhotoNamingKey`).
  case photoNames

  /// The HKDF info label of the key id.
  static let keyIDLabel = "stash folder key v1: key id"

  /// The HKDF info label, in ASCII: `stash folder key v1: ` and the purpose.
  public var label: String {
    switch self {
    case .segments: "stash folder key v1: segments"
    case .photos: "stash folder key v1: photos"
    case .photoNames: "stash folder key v1: photo names"
    }
  }
}

/// The public name of a folder key: 8 bytes derived from it, shown as 16 hex digits.
///
/// Safe to print, log and write into files: it is an HKDF output, from which the key cannot
/// be recovered.
public struct KeyID: Hashable, Sendable, CustomStringConvertible {
  /// The number of bytes in a key id.
  public static let byteCount = 8

  /// The id's bytes.
  public let bytes: [UInt8]

  /// Makes an id from its bytes (8 of them).
  init(bytes: [UInt8]) {
    self.bytes = bytes
  }

  /// Parses an id from its 16 hex digits, in either case.
  ///
  /// - Parameter hex: The text.
  /// - Returns: `nil` unless `hex` is exactly 16 hex digits.
  public init?(hex: String) {
    let digits = Array(hex.utf8)
    guard digits.count == 2 * KeyID.byteCount else { return nil }
    var bytes: [UInt8] = []
    for index in stride(from: 0, to: digits.count, by: 2) {
      guard let high = hexValue(digits[index]), let low = hexValue(digits[index + 1]) else {
        return nil
      }
      bytes.append(high << 4 | low)
    }
    self.bytes = bytes
  }

  /// The id as 16 lowercase hex digits.
  public var hex: String {
    bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
  }

  /// The same text as `hex`.
  public var description: String { hex }
}

/// The value of one ASCII hex digit, or `nil`.
private func hexValue(_ unit: UInt8) -> UInt8? {
  switch unit {
  case UInt8(ascii: "0")...UInt8(ascii: "9"): unit - UInt8(ascii: "0")
  case UInt8(ascii: "a")...UInt8(ascii: "f"): unit - UInt8(ascii: "a") + 10
  case UInt8(ascii: "A")...UInt8(ascii: "F"): unit - UInt8(ascii: "A") + 10
  default: nil
  }
}
