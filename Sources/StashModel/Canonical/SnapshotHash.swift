public import StashBase

/// The SHA-256 of a snapshot's canonical encoding: how every side recognizes a version.
///
/// Records compare by this hash, never by `updatedAt`. A record's hash covers its model, id
/// and every field that is not device-local; a tombstone's covers its own encoding (which
/// includes the hash of the version it deleted).
public struct SnapshotHash: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// The digest.
  public let digest: SHA256Digest

  /// Wraps a digest.
  public init(digest: SHA256Digest) {
    self.digest = digest
  }

  /// Parses 64 hexadecimal digits.
  ///
  /// - Returns: `nil` when `hex` is not a digest.
  public init?(hex: String) {
    guard let digest = SHA256Digest(hex: hex) else { return nil }
    self.digest = digest
  }

  /// The hash of a record's canonical encoding.
  public init(of record: Record) {
    var bytes = [UInt8]()
    bytes.reserveCapacity(256)
    CanonicalEncoding.append(record, to: &bytes)
    self.digest = SHA256.hash(bytes)
    hashCensus.note(record.model)
  }

  /// The hash of a tombstone's canonical encoding.
  public init(of tombstone: Tombstone) {
    self.digest = SHA256.hash(CanonicalEncoding.bytes(of: tombstone))
    hashCensus.note(tombstone.model)
  }

  /// 64 lowercase hexadecimal digits.
  public var hex: String { digest.hex }

  /// The first 12 hexadecimal digits, for messages and tables.
  public var short: String { String(digest.hex.prefix(12)) }

  public var description: String { digest.hex }

  public static func < (lhs: SnapshotHash, rhs: SnapshotHash) -> Bool { lhs.digest < rhs.digest }
}

/// How many snapshot hashes were computed, by model, while a test watched (``Census``): what
/// lets a test prove how often a sync hashes each record (issue 26, item 5). Use a model no
/// other test uses at the same time.
package let hashCensus = Census()
