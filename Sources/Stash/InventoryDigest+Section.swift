import JSONLines
import StashBase
public import StashModel

/// The digest section of the local index (`default.store.index`): the digest's per-record
/// entries and bucket hashes, kept with the store so that `sync status` and `sync verify`
/// rehash only what changed since a sync wrote it.
///
/// Derived, never trusted for more than a shortcut: a use over the whole store compares each
/// record (as opened) with the section's entry for it, by a merge over ids sorted by their
/// bytes (no hashing, no table of the section's ids: the bucket groups, each in that order,
/// are merged into it), and rehashes exactly the buckets where one differs, was added or is
/// gone; every other bucket keeps the section's hash, which was computed from the same
/// entries. So a section that is behind the store (a later save, another process, a
/// compaction) still gives the exact digest, only at the cost of the buckets that moved.
/// `sync status` reads only the groups of the buckets its changed records fall in
/// (``patching(sectionLength:read:with:)``). The index is a derived file bound to the store's id: one that fails
/// its checks is ignored and the digest is computed from the rows. Written (without fsync)
/// by `sync` (``LocalStore/replaceIndexedDigest(_:)``), carried forward by the saves that
/// write the index again, never written by a command that only reads. Its predecessor, the
/// separate file `default.store.digest`, is ignored and removed.
///
/// Section (Fixtures/README.md section 8), integers little-endian:
///
/// ```
/// body  = u32 models  model×(by name)
/// model = u8 len name  u32 entries  bucket hash×256  u32 group length×256  group×256
/// group = entry×(its bucket's entries, ids in byte order)
/// entry = u8 bucket  u8 len id  id  kind (0x00 live, 0x01 tombstone)  hash(32)
/// ```
///
/// Format 8 of the index held a model's entries in one run in id order, so that finding a
/// bucket's leaves meant reading them all.
extension InventoryDigest {
  /// The section's bytes.
  ///
  /// - Returns: The bytes, or `nil` when a model name is longer than the format allows, or the
  ///   digest was itself read back from a section (it lacks the leaves of some
  ///   buckets).
  public func sectionBytes() -> [UInt8]? {
    guard models.values.allSatisfy({ $0.summarized.isEmpty }) else { return nil }
    var body = [UInt8]()
    body.reserveCapacity(64 + models.values.reduce(0) { $0 + 8192 + $1.count * 72 })
    Self.append(UInt32(models.count), to: &body)
    for model in models.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
      let tree = models[model]!
      guard Self.appendShort(model, to: &body) else { return nil }
      Self.append(UInt32(tree.count), to: &body)
      for bucket in tree.buckets { bucket.appendBytes(to: &body) }
      for leaves in tree.leaves {
        Self.append(UInt32(leaves.count * (35 + RecordID.textLength)), to: &body)
      }
      for (bucket, leaves) in tree.leaves.enumerated() {
        for (id, entry) in leaves.sorted(by: { $0.key < $1.key }) {
          body.append(UInt8(bucket))
          body.append(UInt8(RecordID.textLength))
          id.appendText(to: &body)
          body.append(entry.isTombstone ? 1 : 0)
          entry.hash.digest.appendBytes(to: &body)
        }
      }
    }
    return body
  }

  /// The digest of `entries`, given a digest section's bytes: every record is compared with
  /// the section's entry for it (a merge over ids in byte order, no hashing), and only the
  /// buckets where one differs, was added or is gone are rehashed; every other bucket keeps
  /// the section's hash.
  ///
  /// - Returns: The digest (equal to `InventoryDigest(entries)`) and how many buckets were
  ///   rehashed; `nil` when the bytes are not a well-formed section.
  public static func reusing(
    section bytes: [UInt8], for entries: some Sequence<(key: RecordKey, value: Entry)>
  ) -> (digest: InventoryDigest, rehashed: Int)? {
    guard let file = DigestFile(bytes: bytes) else { return nil }
    var byModel = [String: [(id: RecordID, entry: Entry)]]()
    for (key, entry) in entries { byModel[key.model, default: []].append((key.id, entry)) }
    var result = InventoryDigest()
    var rehashed = 0
    for (model, var list) in byModel {
      guard let stored = file.models[model] else {
        let fresh = InventoryDigest(
          Dictionary(
            uniqueKeysWithValues: list.map { (RecordKey(model: model, id: $0.id), $0.entry) }))
        result.models[model] = fresh.models[model]
        rehashed += fresh.models[model]?.buckets.count ?? 0
        continue
      }
      list.sort { $0.id < $1.id }  // the order of their texts' bytes (``bucketHash(_:)``)
      var tree = ModelTree()
      var bucketOf = [UInt8](repeating: 0, count: list.count)
      var dirty = [Bool](repeating: false, count: bucketCount)
      var counts = [Int](repeating: 0, count: bucketCount)
      var merged = MergedGroups(bytes: bytes, groups: stored.groups)
      var index = 0
      var expected = [UInt8]()
      expected.reserveCapacity(32)
      while index < list.count || merged.current != nil {
        let order: Int
        let cursor = merged.current ?? 0
        if index == list.count {
          order = 1
        } else if merged.current == nil {
          order = -1
        } else {
          order = compare(list[index].id, bytes, at: cursor + 2, count: Int(bytes[cursor + 1]))
        }
        let length = merged.current != nil ? Int(bytes[cursor + 1]) : 0
        if order == 0 {
          let bucket = bytes[cursor]
          let kind = bytes[cursor + 2 + length]
          let entry = list[index].entry
          expected.removeAll(keepingCapacity: true)
          entry.hash.digest.appendBytes(to: &expected)
          if entry.isTombstone != (kind == 1)
            || !expected.elementsEqual(bytes[(cursor + 3 + length)..<(cursor + 35 + length)])
          {
            dirty[Int(bucket)] = true
          }
          bucketOf[index] = bucket
          counts[Int(bucket)] += 1
          index += 1
          merged.advance()
        } else if order < 0 {
          let bucket = Self.bucket(of: list[index].id)
          dirty[bucket] = true
          bucketOf[index] = UInt8(bucket)
          counts[bucket] += 1
          index += 1
        } else {
          dirty[Int(bytes[cursor])] = true  // gone from the store
          merged.advance()
        }
      }
      for (position, item) in list.enumerated() where dirty[Int(bucketOf[position])] {
        tree.leaves[Int(bucketOf[position])][item.id] = item.entry
      }
      let leaves = tree.leaves
      let rehashes = Parallel.map(count: bucketCount, minimumChunk: 16) { [dirty] bucket in
        dirty[bucket] ? (leaves[bucket].isEmpty ? emptyBucket : bucketHash(leaves[bucket])) : nil
      }
      for bucket in 0..<bucketCount {
        if let rehash = rehashes[bucket] {
          tree.buckets[bucket] = rehash
          rehashed += 1
        } else {
          tree.buckets[bucket] = stored.buckets[bucket]
          if counts[bucket] > 0 { tree.summarized.insert(bucket) }
        }
      }
      tree.count = list.count
      tree.root = modelHash(model, tree.buckets)
      result.models[model] = tree
    }
    result.overall = result.computeOverall()
    return (result, rehashed)
  }

  /// -1, 0 or 1 as `id`'s text sorts before, equal or after `count` bytes at `offset`.
  private static func compare(_ id: RecordID, _ bytes: [UInt8], at offset: Int, count: Int) -> Int {
    id.withText { x in
      let shared = min(x.count, count)
      var index = 0
      while index < shared {
        let other = bytes[offset + index]
        if x[index] != other { return x[index] < other ? -1 : 1 }
        index += 1
      }
      return x.count == count ? 0 : x.count < count ? -1 : 1
    }
  }

  private static func append(_ value: UInt32, to bytes: inout [UInt8]) {
    withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
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

/// A digest section (its index's container checked) checked whole (every length, each entry
/// in its bucket's group, ids in order within each group) and read only as far as where each
/// model's bucket hashes and groups are.
private struct DigestFile {
  struct Model {
    var buckets: [SHA256Digest]
    /// Where each bucket's group of entries is.
    var groups: [Range<Int>]
  }

  var models: [String: Model] = [:]

  init?(bytes: [UInt8]) {
    var reader = DigestFileReader(bytes: bytes)
    guard let modelCount = reader.u32() else { return nil }
    for _ in 0..<modelCount {
      guard let model = reader.short(), models[model] == nil, let count = reader.u32(), count > 0
      else { return nil }
      var buckets = [SHA256Digest]()
      buckets.reserveCapacity(InventoryDigest.bucketCount)
      for _ in 0..<InventoryDigest.bucketCount {
        guard let hash = reader.take(32).flatMap(SHA256Digest.init(bytes:)) else { return nil }
        buckets.append(hash)
      }
      var lengths = [Int]()
      for _ in 0..<InventoryDigest.bucketCount {
        guard let length = reader.u32() else { return nil }
        lengths.append(Int(length))
      }
      var groups = [Range<Int>]()
      var entries = 0
      for (bucket, length) in lengths.enumerated() {
        let start = reader.offset
        guard bytes.count - start >= length else { return nil }
        var previous: ArraySlice<UInt8>?
        while reader.offset < start + length {
          guard reader.take(1)?.first == UInt8(bucket), let size = reader.take(1)?.first,
            let id = reader.take(Int(size)), let kind = reader.take(1)?.first, kind <= 1,
            reader.take(32) != nil
          else { return nil }
          // Strictly increasing ids within a group: the merge relies on it.
          if let previous, !previous.lexicographicallyPrecedes(id) { return nil }
          previous = id
          entries += 1
        }
        guard reader.offset == start + length else { return nil }
        groups.append(start..<reader.offset)
      }
      guard entries == count else { return nil }
      models[model] = Model(buckets: buckets, groups: groups)
    }
    guard reader.offset == bytes.count else { return nil }
  }
}

/// Reads the digest section's fields, never past its end.
private struct DigestFileReader {
  let bytes: [UInt8]
  var offset = 0

  mutating func take(_ count: Int) -> ArraySlice<UInt8>? {
    guard count >= 0, bytes.count - offset >= count else { return nil }
    defer { offset += count }
    return bytes[offset..<offset + count]
  }

  mutating func u32() -> UInt32? {
    take(4).map { $0.reversed().reduce(0) { $0 << 8 | UInt32($1) } }
  }

  mutating func short() -> String? {
    guard let length = take(1)?.first, let utf8 = take(Int(length)) else { return nil }
    return String(validating: utf8, as: UTF8.self)
  }
}
