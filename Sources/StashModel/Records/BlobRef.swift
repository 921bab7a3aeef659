public import StashBase

/// A reference to immutable bytes stored beside a store, such as an item's photo.
///
/// The bytes live in `blobs/<sha256>`; a record holds only this reference, so a consume on an
/// item with a large photo writes a short line.
public struct BlobRef: Hashable, Sendable, CustomStringConvertible {
  /// The SHA-256 of the bytes, which also names the blob file.
  public let digest: SHA256Digest
  /// The number of bytes.
  public let size: Int64

  /// A reference to bytes with the given digest and size.
  public init(digest: SHA256Digest, size: Int64) {
    self.digest = digest
    self.size = size
  }

  /// The reference for bytes in memory.
  ///
  /// - Parameter bytes: The blob's content.
  public init(of bytes: [UInt8]) {
    self.init(digest: SHA256.hash(bytes), size: Int64(bytes.count))
  }

  public var description: String { "\(digest.hex) (\(size) bytes)" }
}
