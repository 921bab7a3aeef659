import StashBase
import StashModel

extension InventoryDigest {
  /// The digest a digest section describes, with the entries of `changes` replaced (`nil`:
  /// the record has no entry now), the section read forward a part at a time through `read`
  /// (offset, count; `nil` when it cannot be read) and never held whole: each model's head,
  /// and the groups of only the buckets those records fall in, which are rehashed with their
  /// other leaves taken from the section; every other bucket keeps the section's hash and its
  /// group is not read. What `sync status` shows from the local index without reading the
  /// store, at the cost of a few buckets whatever the store's size.
  ///
  /// The digest is equal to `InventoryDigest(entries)` when the section was computed from
  /// entries that differ from `entries` only on the keys of `changes`. Its clean buckets are
  /// summarized (``update(_:to:)`` refuses them, ``sectionBytes()`` gives `nil`).
  ///
  /// - Returns: The digest; `nil` when the section is not well formed (checked as
  ///   ``reusing(section:for:)`` checks it, in the groups it reads: every length, each entry
  ///   in its bucket's group, ids strictly increasing) or cannot be read.
  static func patching(
    sectionLength: Int, read: @escaping (Int, Int) -> [UInt8]?, with changes: [RecordKey: Entry?]
  ) -> InventoryDigest? {
    var cursor = SectionCursor(length: sectionLength, read: read)
    var byModel = [String: [RecordID: Entry?]]()
    for (key, entry) in changes { byModel[key.model, default: [:]][key.id] = entry }
    var result = InventoryDigest()
    guard let modelCount = cursor.u32() else { return nil }
    var stored = Set<String>()
    for _ in 0..<modelCount {
      guard let model = cursor.short(), stored.insert(model).inserted, let count = cursor.u32(),
        count > 0
      else { return nil }
      var tree = ModelTree()
      for bucket in 0..<bucketCount {
        guard let hash = cursor.take(32).flatMap({ SHA256Digest(bytes: $0) }) else {
          return nil
        }
        tree.buckets[bucket] = hash
      }
      var lengths = [Int]()
      lengths.reserveCapacity(bucketCount)
      for _ in 0..<bucketCount {
        guard let length = cursor.u32() else { return nil }
        lengths.append(Int(length))
      }
      let changed = byModel[model] ?? [:]
      let dirty = Set(changed.keys.map { bucket(of: $0) })
      // Only the groups of the buckets that changed are read; the others are skipped.
      var start = cursor.offset
      for (bucket, length) in lengths.enumerated() {
        let end = start + length
        defer { start = end }
        guard dirty.contains(bucket) else { continue }
        guard cursor.seek(to: start) else { return nil }
        var previous: ArraySlice<UInt8>?
        while cursor.offset < end {
          guard cursor.take(1)?.first == UInt8(bucket), let size = cursor.take(1)?.first,
            let id = cursor.take(Int(size)), let kind = cursor.take(1)?.first, kind <= 1,
            let hash = cursor.take(32).flatMap({ SHA256Digest(bytes: $0) }),
            // Every id a section holds is a record's (a sync writes it from the store).
            let recordID = RecordID(String(decoding: id, as: UTF8.self))
          else { return nil }
          // Strictly increasing ids within a group, as a section is written.
          if let previous, !previous.lexicographicallyPrecedes(id) { return nil }
          previous = id
          tree.leaves[bucket][recordID] = Entry(
            isTombstone: kind == 1, hash: SnapshotHash(digest: hash))
        }
        guard cursor.offset == end else { return nil }
      }
      guard cursor.seek(to: start) else { return nil }  // the model's end
      result.models[model] = patched(tree, model, count: Int(count), changed, dirty)
    }
    guard cursor.isAtEnd else { return nil }
    for (model, changed) in byModel where !stored.contains(model) {
      let dirty = Set(changed.keys.map { bucket(of: $0) })
      result.models[model] = patched(ModelTree(), model, count: 0, changed, dirty)
    }
    result.overall = result.computeOverall()
    return result
  }

  /// `tree` (a model's bucket hashes and the leaves of its `dirty` buckets, `count` entries)
  /// with `changed` applied and its dirty buckets rehashed; `nil` when it is left empty.
  private static func patched(
    _ tree: ModelTree, _ model: String, count: Int, _ changed: [RecordID: Entry?],
    _ dirty: Set<Int>
  ) -> ModelTree? {
    var tree = tree
    var count = count
    for (id, entry) in changed {
      let bucket = bucket(of: id)
      let had = tree.leaves[bucket][id] != nil
      tree.leaves[bucket][id] = entry
      count += (entry == nil ? 0 : 1) - (had ? 1 : 0)
    }
    guard count > 0 else { return nil }
    for bucket in 0..<bucketCount {
      if dirty.contains(bucket) {
        tree.buckets[bucket] =
          tree.leaves[bucket].isEmpty ? emptyBucket : bucketHash(tree.leaves[bucket])
      } else if tree.buckets[bucket] != emptyBucket {
        tree.summarized.insert(bucket)
      }
    }
    tree.count = count
    tree.root = modelHash(model, tree.buckets)
    return tree
  }
}

/// A digest section read front to back, 64 KiB at a time.
private struct SectionCursor {
  let length: Int
  let read: (Int, Int) -> [UInt8]?
  private var chunk: [UInt8] = []
  private var chunkStart = 0
  private(set) var offset = 0

  init(length: Int, read: @escaping (Int, Int) -> [UInt8]?) {
    self.length = length
    self.read = read
  }

  var isAtEnd: Bool { offset == length }

  /// Moves forward to `target` without reading what is skipped; `false` past the end.
  mutating func seek(to target: Int) -> Bool {
    guard target >= offset, target <= length else { return false }
    offset = target
    return true
  }

  /// The next `count` bytes; `nil` past the end or when they cannot be read.
  mutating func take(_ count: Int) -> ArraySlice<UInt8>? {
    guard count >= 0, length - offset >= count else { return nil }
    if offset + count > chunkStart + chunk.count {
      let size = min(length - offset, max(count, 1 << 16))
      guard let bytes = read(offset, size), bytes.count == size else { return nil }
      chunk = bytes
      chunkStart = offset
    }
    let start = offset - chunkStart
    offset += count
    return chunk[start..<(start + count)]
  }

  mutating func u32() -> UInt32? {
    take(4).map { $0.reversed().reduce(0) { $0 << 8 | UInt32($1) } }
  }

  mutating func short() -> String? {
    guard let length = take(1)?.first, let utf8 = take(Int(length)) else { return nil }
    return String(validating: utf8, as: UTF8.self)
  }
}
