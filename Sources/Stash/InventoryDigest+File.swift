public import StashModel

/// `default.store.digest`: the digest's per-record entries and bucket hashes, kept beside the
/// store so that `sync status` and `sync verify` rehash only what changed since it was written.
///
/// Derived, never trusted for more than a shortcut: every use compares each record of the
/// store (as opened) with the file's entry for it, and rehashes exactly the buckets where one
/// differs, was added or is gone; every other bucket keeps the file's hash, which was computed
/// from the same entries. So a file that is behind the store (a later save, another process,
/// a compaction) still gives the exact digest, only at the cost of the buckets that moved. A
/// file that fails its own checks (magic, a newer format version, its CRC-32, its length,
/// another store's id) is ignored and the digest is computed from the rows. Written (temporary
/// file and rename, without fsync) by `sync`, never by a command that only reads; deleting it
/// is always safe.
///
/// Layout, integers big-endian:
///
/// ```
/// "stash-digest\n"  u32 version (1)  u32 CRC-32 of the body  body
/// body  = u8 len storeID  u32 models  model×(by name)
/// model = u8 len name  u32 entries  bucket hash×256  (u32 n  entry×n)×256
/// entry = u8 len id  id  kind (0x00 live, 0x01 tombstone)  hash(32)
/// ```
extension InventoryDigest {
  /// The file's name beside `default.store`.
  public static let fileName = "default.store.digest"
  /// The format version this code writes and reads.
  public static let fileVersion: UInt32 = 1
  static let magic = Array("stash-digest\n".utf8)

  /// The file's bytes for a store with id `storeID`.
  ///
  /// - Parameter storeID: The store the digest describes.
  /// - Returns: The bytes, or `nil` when an id or model name is longer than the format allows.
  public func fileBytes(storeID: String) -> [UInt8]? {
    var body = [UInt8]()
    body.reserveCapacity(64 + models.values.reduce(0) { $0 + 8192 + 1100 + $1.count * 72 })
    guard Self.appendShort(storeID, to: &body) else { return nil }
    Self.append(UInt32(models.count), to: &body)
    for model in models.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
      let tree = models[model]!
      guard Self.appendShort(model, to: &body) else { return nil }
      Self.append(UInt32(tree.count), to: &body)
      for bucket in tree.buckets { bucket.appendBytes(to: &body) }
      for leaves in tree.leaves {
        Self.append(UInt32(leaves.count), to: &body)
        for (id, entry) in leaves {
          guard Self.appendShort(id, to: &body) else { return nil }
          body.append(entry.isTombstone ? 1 : 0)
          entry.hash.digest.appendBytes(to: &body)
        }
      }
    }
    var bytes = Self.magic
    Self.append(Self.fileVersion, to: &bytes)
    Self.append(CRC32.checksum(body), to: &bytes)
    return bytes + body
  }

  /// The digest a file holds, when it passes every check and describes `storeID`.
  ///
  /// - Returns: `nil` for anything else (short, corrupt, a newer version, another store's).
  public init?(fileBytes bytes: [UInt8], storeID: String) {
    var reader = DigestFileReader(bytes: bytes)
    guard reader.take(Self.magic.count) == Self.magic, reader.u32() == Self.fileVersion,
      let checksum = reader.u32(), CRC32.checksum(Array(bytes[reader.offset...])) == checksum,
      reader.short() == storeID, let modelCount = reader.u32()
    else { return nil }
    self.init()
    for _ in 0..<modelCount {
      guard let model = reader.short(), models[model] == nil, let count = reader.u32() else {
        return nil
      }
      var tree = ModelTree()
      for bucket in 0..<Self.bucketCount {
        guard let hash = reader.take(32).flatMap(SHA256Digest.init(bytes:)) else { return nil }
        tree.buckets[bucket] = hash
      }
      for bucket in 0..<Self.bucketCount {
        guard let n = reader.u32(), n <= count else { return nil }
        tree.leaves[bucket].reserveCapacity(Int(n))
        for _ in 0..<n {
          guard let id = reader.short(), let kind = reader.take(1)?.first, kind <= 1,
            let digest = reader.take(32).flatMap(SHA256Digest.init(bytes:))
          else { return nil }
          tree.leaves[bucket][id] = Entry(
            isTombstone: kind == 1, hash: SnapshotHash(digest: digest))
        }
        tree.count += Int(n)
      }
      guard tree.count == Int(count), tree.count > 0 else { return nil }
      tree.root = Self.modelHash(model, tree.buckets)
      models[model] = tree
    }
    guard reader.offset == bytes.count else { return nil }
    overall = computeOverall()
  }

  /// The digest of `entries`, rehashing only the buckets where they differ from `stored`
  /// (an entry changed, added or gone); every other bucket keeps `stored`'s hash.
  ///
  /// - Returns: The digest (equal to `InventoryDigest(entries)`) and how many buckets were
  ///   rehashed.
  public static func reusing(
    _ stored: InventoryDigest, for entries: [RecordKey: Entry]
  ) -> (digest: InventoryDigest, rehashed: Int) {
    var bucketOf = [String: [String: Int]]()
    for (model, tree) in stored.models {
      var map = [String: Int](minimumCapacity: tree.count)
      for (bucket, leaves) in tree.leaves.enumerated() {
        for id in leaves.keys { map[id] = bucket }
      }
      bucketOf[model] = map
    }
    var result = InventoryDigest()
    var dirty = [String: Set<Int>]()
    for (key, entry) in entries {
      let id = key.id.rawValue
      let bucket: Int
      if let known = bucketOf[key.model]?[id] {
        bucket = known
        if stored.models[key.model]!.leaves[known][id] != entry {
          dirty[key.model, default: []].insert(known)
        }
      } else {
        bucket = Self.bucket(of: id)
        dirty[key.model, default: []].insert(bucket)
      }
      result.models[key.model, default: ModelTree()].leaves[bucket][id] = entry
    }
    var rehashed = 0
    for model in result.models.keys {
      var tree = result.models[model]!
      let old = stored.models[model]
      for bucket in 0..<Self.bucketCount {
        let leaves = tree.leaves[bucket]
        tree.count += leaves.count
        // Every id here is the stored bucket's with the same entry: the same count means
        // none is gone.
        if let old, dirty[model]?.contains(bucket) != true,
          old.leaves[bucket].count == leaves.count
        {
          tree.buckets[bucket] = old.buckets[bucket]
        } else if !leaves.isEmpty || !(old?.leaves[bucket].isEmpty ?? true) {
          tree.buckets[bucket] = leaves.isEmpty ? Self.emptyBucket : Self.bucketHash(leaves)
          rehashed += 1
        }
      }
      tree.root = Self.modelHash(model, tree.buckets)
      result.models[model] = tree
    }
    result.overall = result.computeOverall()
    return (result, rehashed)
  }

  private static func append(_ value: UInt32, to bytes: inout [UInt8]) {
    for shift in stride(from: 24, through: 0, by: -8) {
      bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift)))
    }
  }

  /// `u8` length and the UTF-8 bytes; `false` when longer than 255 bytes.
  private static func appendShort(_ text: String, to bytes: inout [UInt8]) -> Bool {
    let utf8 = Array(text.utf8)
    guard utf8.count <= 255 else { return false }
    bytes.append(UInt8(utf8.count))
    bytes += utf8
    return true
  }
}

/// Reads the digest file's fields, never past its end.
private struct DigestFileReader {
  let bytes: [UInt8]
  var offset = 0

  mutating func take(_ count: Int) -> [UInt8]? {
    guard count >= 0, bytes.count - offset >= count else { return nil }
    defer { offset += count }
    return Array(bytes[offset..<offset + count])
  }

  mutating func u32() -> UInt32? {
    take(4).map { $0.reduce(0) { $0 << 8 | UInt32($1) } }
  }

  mutating func short() -> String? {
    guard let length = take(1)?.first, let utf8 = take(Int(length)) else { return nil }
    return String(validating: utf8, as: UTF8.self)
  }
}
