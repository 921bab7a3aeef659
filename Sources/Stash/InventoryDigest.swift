public import StashBase
public import StashModel

/// A Merkle-style digest of synced data: per model and overall, over every live record's and
/// every tombstone's snapshot hash.
///
/// Two devices that hold the same records and tombstones get the same digest, whatever the
/// order they were written in; any difference in any record changes it. The construction is
/// in `Fixtures/README.md` (section 5), with a golden vector:
///
/// ```
/// leaf    = SHA-256(0x01 'L' u32(len id) id kind(0x00 live, 0x01 tombstone) hash(32))
/// bucket  = SHA-256(0x01 'B' leaf×n)            leaves whose bucket(id) it is, by id bytes
/// model   = SHA-256(0x01 'M' u32(len model) model bucket×256)
/// overall = SHA-256(0x01 'D' (u32(len model) model modelDigest)×m)   models by name
/// bucket(id) = the first byte of SHA-256(id)
/// ```
///
/// The tree has a fixed shape (256 buckets per model), so a change to one record touches one
/// leaf, its bucket (1/256 of the model's leaves), the model's 8 KiB of bucket hashes and the
/// root: ``update(_:to:)`` keeps a digest current at that cost.
public struct InventoryDigest: Sendable {
  /// What a digest's leaf says of one record.
  public struct Entry: Hashable, Sendable {
    /// Whether it is a tombstone (a deletion) rather than a live record.
    public let isTombstone: Bool
    /// The record's snapshot hash, or the tombstone's own hash.
    public let hash: SnapshotHash

    /// An entry.
    public init(isTombstone: Bool, hash: SnapshotHash) {
      self.isTombstone = isTombstone
      self.hash = hash
    }
  }

  /// The number of buckets per model.
  public static let bucketCount = 256

  struct ModelTree: Sendable {
    /// Each bucket's entries by id (leaves are hashed when their bucket is). Keyed by the id,
    /// not its text: a string per record was 21 MB of `sync verify`'s peak at 100,000 items.
    var leaves: [[RecordID: Entry]] = Array(repeating: [:], count: bucketCount)
    var buckets: [SHA256Digest] = Array(repeating: InventoryDigest.emptyBucket, count: bucketCount)
    var count = 0
    var root = SHA256Digest.zero
    /// Buckets whose hash was read back from a digest section without their leaves.
    var summarized: Set<Int> = []
  }

  var models: [String: ModelTree] = [:]
  /// The digest over every model.
  public internal(set) var overall: SHA256Digest = InventoryDigest.emptyOverall

  /// An empty digest (no records, no tombstones).
  public init() {}

  /// The digest of these entries.
  public init(_ entries: some Sequence<(key: RecordKey, value: Entry)>) {
    for (key, entry) in entries {
      let bucket = Self.bucket(of: key.id)
      models[key.model, default: ModelTree()].leaves[bucket][key.id] = entry
    }
    for model in models.keys {
      var tree = models[model]!
      let leaves = tree.leaves
      let hashes = Parallel.map(count: Self.bucketCount, minimumChunk: 16) { bucket in
        leaves[bucket].isEmpty ? nil : Self.bucketHash(leaves[bucket])
      }
      for (bucket, hash) in hashes.enumerated() {
        if let hash { tree.buckets[bucket] = hash }
      }
      tree.count = tree.leaves.reduce(0) { $0 + $1.count }
      tree.root = Self.modelHash(model, tree.buckets)
      models[model] = tree
    }
    overall = computeOverall()
  }

  /// Changes (or, with `nil`, removes) one record's entry, recomputing only its bucket, its
  /// model's digest and the overall digest.
  ///
  /// - Returns: `false`, changing nothing, for a digest computed with a digest section
  ///   (``reusing(section:for:)``) that does not hold that bucket's leaves.
  @discardableResult
  public mutating func update(_ key: RecordKey, to entry: Entry?) -> Bool {
    var tree = models[key.model] ?? ModelTree()
    let id = key.id
    let bucket = Self.bucket(of: id)
    guard !tree.summarized.contains(bucket) else { return false }
    tree.leaves[bucket][id] = entry
    tree.buckets[bucket] =
      tree.leaves[bucket].isEmpty ? Self.emptyBucket : Self.bucketHash(tree.leaves[bucket])
    tree.count = tree.leaves.reduce(0) { $0 + $1.count }
    tree.root = Self.modelHash(key.model, tree.buckets)
    models[key.model] = tree.count == 0 ? nil : tree
    overall = computeOverall()
    return true
  }

  /// Each model's digest, by model name (only models with at least one entry).
  public var perModel: [String: SHA256Digest] { models.mapValues(\.root) }

  /// How many entries each model has (live records and tombstones).
  public var counts: [String: Int] { models.mapValues(\.count) }

  /// Each bucket's hash of a model (256), to narrow a difference down without comparing every
  /// record; `nil` for a model without entries.
  public func buckets(of model: String) -> [SHA256Digest]? { models[model]?.buckets }

  // MARK: The construction

  /// The bucket a record id falls in: the first byte of SHA-256 of its UTF-8 bytes.
  public static func bucket(of id: String) -> Int {
    // Straight from the id's bytes and the digest's first byte: no array either way.
    Int(SHA256.hash(id).withUnsafeBytes { $0[0] })
  }

  /// The bucket of a record id: ``bucket(of:)-(String)`` of its text, hashed from the stack.
  public static func bucket(of id: RecordID) -> Int {
    id.withText { text in Int(SHA256.hash(text).withUnsafeBytes { $0[0] }) }
  }

  /// A leaf: `0x01 'L' u32(len id) id kind hash`.
  public static func leaf(id: String, entry: Entry) -> SHA256Digest {
    var bytes = [UInt8]()
    appendLeaf(id: id.utf8, entry: entry, to: &bytes)
    return SHA256.hash(bytes)
  }

  /// Appends the bytes ``leaf(id:entry:)`` hashes, given the id's text.
  private static func appendLeaf(
    id text: some Collection<UInt8>, entry: Entry, to bytes: inout [UInt8]
  ) {
    bytes += [0x01, UInt8(ascii: "L")]
    withUnsafeBytes(of: UInt32(clamping: text.count).bigEndian) { bytes.append(contentsOf: $0) }
    bytes += text
    bytes.append(entry.isTombstone ? 1 : 0)
    entry.hash.digest.appendBytes(to: &bytes)
  }

  /// A bucket: `0x01 'B'` and the hash of each of its leaves (``leaf(id:entry:)``), in the
  /// order of their ids' bytes, which is ``RecordID``'s own order (fixed width, lowercase
  /// hexadecimal digits, dashes in the same places).
  static func bucketHash(_ leaves: [RecordID: Entry]) -> SHA256Digest {
    bucketHash(sorted: leaves.sorted { $0.key < $1.key }.lazy.map { (id: $0.key, entry: $0.value) })
  }

  /// ``bucketHash(_:)`` of leaves given in id order; one buffer holds each leaf in turn.
  static func bucketHash(sorted leaves: some Sequence<(id: RecordID, entry: Entry)>)
    -> SHA256Digest
  {
    var hasher = SHA256()
    hasher.update([0x01, UInt8(ascii: "B")])
    var leaf = [UInt8]()
    leaf.reserveCapacity(7 + RecordID.textLength + 32)
    for (id, entry) in leaves {
      leaf.removeAll(keepingCapacity: true)
      id.withText { appendLeaf(id: $0, entry: entry, to: &leaf) }
      SHA256.hash(leaf).withUnsafeBytes { hasher.update($0) }
    }
    return hasher.finalize()
  }

  static func modelHash(_ model: String, _ buckets: [SHA256Digest]) -> SHA256Digest {
    var bytes: [UInt8] = [0x01, UInt8(ascii: "M")]
    bytes.reserveCapacity(2 + 4 + model.utf8.count + 32 * buckets.count)
    appendLength(of: model, to: &bytes)
    for bucket in buckets { bucket.appendBytes(to: &bytes) }
    return SHA256.hash(bytes)
  }

  func computeOverall() -> SHA256Digest {
    var bytes: [UInt8] = [0x01, UInt8(ascii: "D")]
    for model in models.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
      Self.appendLength(of: model, to: &bytes)
      models[model]!.root.appendBytes(to: &bytes)
    }
    return SHA256.hash(bytes)
  }

  /// `u32` big-endian length, then the UTF-8 bytes.
  private static func appendLength(of text: String, to bytes: inout [UInt8]) {
    let utf8 = Array(text.utf8)
    let count = UInt32(clamping: utf8.count)
    for shift in stride(from: 24, through: 0, by: -8) {
      bytes.append(UInt8(truncatingIfNeeded: count >> UInt32(shift)))
    }
    bytes += utf8
  }

  static let emptyBucket = SHA256.hash([0x01, UInt8(ascii: "B")])
  private static let emptyOverall = SHA256.hash([0x01, UInt8(ascii: "D")])
}

extension SHA256Digest {
  /// 32 zero bytes (a placeholder, never a digest of anything).
  static let zero = SHA256Digest(bytes: [UInt8](repeating: 0, count: 32))!
}
