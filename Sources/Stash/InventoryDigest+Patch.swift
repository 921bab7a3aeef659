import StashBase
public import StashModel

extension InventoryDigest {
  /// The digest a digest section describes, with the entries of `changes` replaced (`nil`:
  /// the record has no entry now): only the buckets those records fall in are rehashed, their
  /// other leaves read from the section; every other bucket keeps the section's hash. What
  /// `sync status` shows from the local index without reading the store.
  ///
  /// The digest is equal to `InventoryDigest(entries)` when the section was computed from
  /// entries that differ from `entries` only on the keys of `changes`. Its clean buckets are
  /// summarized (``update(_:to:)`` refuses them, ``sectionBytes()`` gives `nil`).
  ///
  /// - Returns: The digest; `nil` when the bytes are not a well-formed section.
  static func patching(
    section bytes: [UInt8], with changes: [RecordKey: Entry?]
  ) -> InventoryDigest? {
    guard let file = DigestFile(bytes: bytes) else { return nil }
    var byModel = [String: [String: Entry?]]()
    for (key, entry) in changes { byModel[key.model, default: [:]][key.id.rawValue] = entry }
    var result = InventoryDigest()
    for model in Set(file.models.keys).union(byModel.keys) {
      let stored = file.models[model]
      var tree = ModelTree()
      tree.buckets = stored?.buckets ?? tree.buckets
      var count = stored?.count ?? 0
      let changed = byModel[model] ?? [:]
      var dirty = Set<Int>()
      for id in changed.keys { dirty.insert(bucket(of: id)) }
      if let stored, !dirty.isEmpty {
        // The dirty buckets' leaves, from the section's entries.
        var cursor = stored.entries
        while cursor < stored.end {
          let length = Int(bytes[cursor + 1])
          let bucket = Int(bytes[cursor])
          if dirty.contains(bucket) {
            let id = String(decoding: bytes[(cursor + 2)..<(cursor + 2 + length)], as: UTF8.self)
            let start = cursor + 3 + length
            if let digest = SHA256Digest(bytes: Array(bytes[start..<(start + 32)])) {
              tree.leaves[bucket][id] = Entry(
                isTombstone: bytes[cursor + 2 + length] == 1, hash: SnapshotHash(digest: digest))
            } else {
              return nil
            }
          }
          cursor += 35 + length
        }
      }
      for (id, entry) in changed {
        let bucket = bucket(of: id)
        let had = tree.leaves[bucket][id] != nil
        tree.leaves[bucket][id] = entry
        count += (entry == nil ? 0 : 1) - (had ? 1 : 0)
      }
      for bucket in 0..<bucketCount {
        if dirty.contains(bucket) {
          tree.buckets[bucket] =
            tree.leaves[bucket].isEmpty ? emptyBucket : bucketHash(tree.leaves[bucket])
        } else if tree.buckets[bucket] != emptyBucket {
          tree.summarized.insert(bucket)
        }
      }
      guard count > 0 else { continue }
      tree.count = count
      tree.root = modelHash(model, tree.buckets)
      result.models[model] = tree
    }
    result.overall = result.computeOverall()
    return result
  }
}
