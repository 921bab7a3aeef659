import JSONLines
import StashBase
import StashCrypto
import StashFiles
import StashModel

/// The photos of an encrypted shared folder.
///
/// A photo is named `blobs/<N>` where `N` is the hex of HMAC-SHA256 of its SHA-256 (32
/// bytes) under the folder key's `photo names` subkey, so nobody without the key can tell
/// whether a given picture is there. The file is
/// `key id (8 bytes) ‖ nonce (24) ‖ ciphertext ‖ tag (16)`: the photo's bytes sealed with
/// XChaCha20-Poly1305 under the key's `photos` subkey, the associated data being the key id
/// followed by the photo's SHA-256 (32 bytes). It is exactly 48 bytes longer than the photo:
/// shorter is still arriving, longer is damaged. After a rotation a photo may be under the
/// name of any key the device holds: each is tried, newest first; new copies are written
/// under the current key.
extension SharedFiles {
  /// The bytes a sealed photo adds to the photo.
  static let sealedPhotoOverhead = KeyID.byteCount + SealingKey.overhead

  /// The name of a photo in an encrypted folder under `key`.
  static func sealedPhotoPath(_ ref: BlobRef, key: FolderKey) -> String {
    "blobs/" + key.photoNamingKey.name(forPhoto: ref.digest).hex
  }

  /// Where this device writes (and first looks for) the photo.
  func photoPath(_ ref: BlobRef) -> String {
    guard let keyring else { return Self.photoPath(ref) }
    return Self.sealedPhotoPath(ref, key: keyring.current)
  }

  /// The associated data of a sealed photo.
  static func photoAssociatedData(_ ref: BlobRef, key: KeyID) -> [UInt8] {
    var data = key.bytes
    ref.digest.withUnsafeBytes { data.append(contentsOf: $0) }
    return data
  }

  /// The photo's bytes sealed with `key`: the file published under ``sealedPhotoPath(_:key:)``.
  static func sealPhoto(_ bytes: [UInt8], ref: BlobRef, key: FolderKey) throws(CryptoError)
    -> [UInt8]
  {
    key.id.bytes
      + (try key.sealingKey(for: .photos).seal(
        bytes, associatedData: photoAssociatedData(ref, key: key.id)))
  }

  /// Reads and opens a sealed photo under each key held, newest first: its bytes when one
  /// copy is intact, else what the current key's copy is (or the first other copy found).
  func readSealedPhoto(_ ref: BlobRef, keyring: FolderKeyring) throws(FileSystemError)
    -> ([UInt8]?, SharedPhoto)
  {
    guard (0...CloudLimits.photoBytes).contains(ref.size) else {
      return (nil, .damaged("it claims \(ref.size) bytes, more than a photo may have"))
    }
    var first: SharedPhoto?
    for key in keyring.keys.reversed() {
      let (bytes, state) = try readSealedPhoto(ref, key: key)
      if let bytes { return (bytes, .intact) }
      if first == nil || (first == .waiting("it has not arrived yet") && state != first) {
        first = state
      }
    }
    return (nil, first ?? .waiting("it has not arrived yet"))
  }

  private func readSealedPhoto(_ ref: BlobRef, key: FolderKey) throws(FileSystemError)
    -> ([UInt8]?, SharedPhoto)
  {
    let expected = ref.size + Int64(Self.sealedPhotoOverhead)
    let opened = try withRegularFile(Self.sealedPhotoPath(ref, key: key)) {
      (descriptor, size) throws(FileSystemError) -> ([UInt8]?, SharedPhoto) in
      if size < expected {
        return (nil, .waiting("it has \(size) of its \(expected) bytes so far"))
      }
      if size > expected { return (nil, .damaged("it holds \(size) bytes, not \(expected)")) }
      let sealed = try fileSystem.read(descriptor, count: Int(size), at: 0)
      guard sealed.count == size, Array(sealed.prefix(KeyID.byteCount)) == key.id.bytes,
        let bytes = try? key.sealingKey(for: .photos).open(
          Array(sealed.dropFirst(KeyID.byteCount)),
          associatedData: Self.photoAssociatedData(ref, key: key.id)),
        SHA256.hash(bytes) == ref.digest
      else {
        return (nil, .damaged("it failed authentication, or its bytes do not match its name"))
      }
      return (bytes, .intact)
    }
    switch opened {
    case .opened(let result): return result
    case .missing: return (nil, .waiting("it has not arrived yet"))
    case .notRegular(let culprit, let kind):
      return (nil, .damaged("'\(culprit)' is a \(kind.noun), not a regular file"))
    }
  }
}
