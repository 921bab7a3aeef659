public import StashBase
import Synchronization

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
    HashCensus.count(record.model)
  }

  /// The hash of a tombstone's canonical encoding.
  public init(of tombstone: Tombstone) {
    self.digest = SHA256.hash(CanonicalEncoding.bytes(of: tombstone))
    HashCensus.count(tombstone.model)
  }

  /// 64 lowercase hexadecimal digits.
  public var hex: String { digest.hex }

  /// The first 12 hexadecimal digits, for messages and tables.
  public var short: String { String(digest.hex.prefix(12)) }

  public var description: String { digest.hex }

  public static func < (lhs: SnapshotHash, rhs: SnapshotHash) -> Bool { lhs.digest < rhs.digest }
}

/// How many snapshot hashes were computed, by model, while a test watched: the seam that
/// lets a test prove how often a sync hashes each record (issue 26, item 5), never a clock.
///
/// Off (one relaxed atomic load per hash) unless ``counting(model:_:)`` runs. Counts go by
/// model so that other tests running at the same time, with other models, add nothing.
package enum HashCensus {
  /// How many ``counting(model:_:)`` calls are running.
  private static let watchers = Atomic<Int>(0)
  /// The counts of the models being watched.
  private static let counts = Mutex<[String: Int]>([:])

  static func count(_ model: String) {
    guard watchers.load(ordering: .relaxed) > 0 else { return }
    counts.withLock { counts in
      if let current = counts[model] { counts[model] = current + 1 }
    }
  }

  /// Runs `body` and returns how many snapshot hashes of `model`'s records and tombstones it
  /// (and any thread meanwhile) computed. Use a model no other test uses at the same time
  /// (tests that share one run serialized).
  package static func counting<T>(
    model: String, _ body: () throws -> T
  ) rethrows -> (result: T, hashes: Int) {
    counts.withLock { $0[model] = 0 }
    watchers.add(1, ordering: .sequentiallyConsistent)
    defer {
      watchers.subtract(1, ordering: .sequentiallyConsistent)
      counts.withLock { $0[model] = nil }
    }
    let result = try body()
    return (result, counts.withLock { $0[model] ?? 0 })
  }
}
