public import StashBase

/// The identity of one version in the mirror's graph: SHA-256 over its snapshot hash and the
/// sorted ids of its parents, like a git commit.
///
/// Because the parents are part of the identity, no version can name itself or one of its
/// descendants, and a record that returns to an earlier identical snapshot (a frozen clock, a
/// merge equal to one of its sides) makes a new version rather than a cycle. The byte layout is
/// in `Fixtures/README.md` (section 3):
///
/// ```
/// 0x01 'V' snapshotHash (32 bytes) u32(parent count) parentID (32 bytes)×n, ascending
/// ```
///
/// Two other kinds of name share this type, because a version's parents may name them:
/// - a **format-1 version** (written before ids included the parents) keeps its snapshot hash
///   as its id, which is what format-1 parents name;
/// - a **local side never exported** (a merge or resolution replaces a local row that no version
///   holds) is named by its snapshot hash, which no version's derived id can equal.
public struct VersionID: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// The 32 bytes.
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

  /// The name of a snapshot that has no derived id: a format-1 version, or a local side that
  /// was never exported.
  public init(naming hash: SnapshotHash) {
    self.digest = hash.digest
  }

  /// The id of a version with this snapshot and these parents.
  ///
  /// - Parameters:
  ///   - snapshot: The snapshot's hash.
  ///   - parents: The ids of the versions it replaces.
  /// - Returns: SHA-256 over the layout above.
  public static func derive(snapshot: SnapshotHash, parents: Set<VersionID>) -> VersionID {
    var bytes = [UInt8]()
    bytes.reserveCapacity(38 + 32 * parents.count)
    bytes.append(0x01)
    bytes.append(UInt8(ascii: "V"))
    snapshot.digest.appendBytes(to: &bytes)
    let count = UInt32(clamping: parents.count)
    for shift in stride(from: 24, through: 0, by: -8) {
      bytes.append(UInt8(truncatingIfNeeded: count >> UInt32(shift)))
    }
    for parent in parents.sorted() { parent.digest.appendBytes(to: &bytes) }
    return VersionID(digest: SHA256.hash(bytes))
  }

  /// 64 lowercase hexadecimal digits.
  public var hex: String { digest.hex }

  /// The first 12 hexadecimal digits, for messages and tables.
  public var short: String { String(digest.hex.prefix(12)) }

  public var description: String { digest.hex }

  public static func < (lhs: VersionID, rhs: VersionID) -> Bool { lhs.digest < rhs.digest }
}
