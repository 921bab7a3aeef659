import StashBase
import StashModel

extension InventoryDigest {
  /// The digest section of `entries` (the bytes `InventoryDigest(entries).sectionBytes()`
  /// gives), built straight from the records' ids: a sync writes it for the whole store, and
  /// the digest's tables of leaves keyed by id text (a string, a dictionary entry and two
  /// sorts for each record) were most of what writing it cost (issue 26, item 5).
  ///
  /// Ids are UUIDs: in their text's byte order exactly when in ``RecordID``'s own order (fixed
  /// width, lowercase hex digits, dashes in the same places), so a group is sorted by id.
  ///
  /// - Returns: The bytes, or `nil` when a model name is longer than the format allows.
  static func sectionBytes(of entries: some Sequence<(key: RecordKey, value: Entry)>) -> [UInt8]? {
    var byModel = [String: [(id: RecordID, entry: Entry)]]()
    for (key, entry) in entries { byModel[key.model, default: []].append((key.id, entry)) }
    let entryBytes = 3 + RecordID.textLength + 32  // bucket, length, id, kind, hash
    var body = [UInt8]()
    body.reserveCapacity(64 + byModel.values.reduce(0) { $0 + 9216 + $1.count * entryBytes })
    withUnsafeBytes(of: UInt32(byModel.count).littleEndian) { body.append(contentsOf: $0) }
    for model in byModel.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
      let list = byModel[model]!
      let name = Array(model.utf8)
      guard name.count <= 255 else { return nil }
      // Each id's text once, and its bucket (the first byte of its SHA-256), on every core.
      let texts = Parallel.map(count: list.count) { index in
        var text = [UInt8]()
        text.reserveCapacity(RecordID.textLength)
        list[index].id.appendText(to: &text)
        return (text: text, bucket: SHA256.hash(text).withUnsafeBytes { $0[0] })
      }
      var groups = [[Int]](repeating: [], count: bucketCount)
      for index in list.indices { groups[Int(texts[index].bucket)].append(index) }
      for bucket in groups.indices { groups[bucket].sort { list[$0].id < list[$1].id } }
      let hashes = Parallel.map(count: bucketCount, minimumChunk: 16) { [groups] bucket in
        groups[bucket].isEmpty
          ? emptyBucket : leavesHash(groups[bucket].map { (texts[$0].text, list[$0].entry) })
      }
      body.append(UInt8(name.count))
      body += name
      withUnsafeBytes(of: UInt32(list.count).littleEndian) { body.append(contentsOf: $0) }
      for hash in hashes { hash.appendBytes(to: &body) }
      for group in groups {
        let length = UInt32(group.count * entryBytes)
        withUnsafeBytes(of: length.littleEndian) { body.append(contentsOf: $0) }
      }
      for (bucket, group) in groups.enumerated() {
        for index in group {
          body.append(UInt8(bucket))
          body.append(UInt8(RecordID.textLength))
          body += texts[index].text
          body.append(list[index].entry.isTombstone ? 1 : 0)
          list[index].entry.hash.digest.appendBytes(to: &body)
        }
      }
    }
    return body
  }

  /// A bucket's hash over its leaves, given in id order as their ids' text and entries (see
  /// ``leaf(id:entry:)`` and ``bucketHash(_:)``, which this equals).
  private static func leavesHash(_ leaves: [(text: [UInt8], entry: Entry)]) -> SHA256Digest {
    var hasher = SHA256()
    hasher.update([0x01, UInt8(ascii: "B")])
    var leaf = [UInt8]()
    leaf.reserveCapacity(8 + RecordID.textLength + 32)
    for (text, entry) in leaves {
      leaf.removeAll(keepingCapacity: true)
      leaf += [0x01, UInt8(ascii: "L")]
      withUnsafeBytes(of: UInt32(text.count).bigEndian) { leaf.append(contentsOf: $0) }
      leaf += text
      leaf.append(entry.isTombstone ? 1 : 0)
      entry.hash.digest.appendBytes(to: &leaf)
      SHA256.hash(leaf).withUnsafeBytes { hasher.update($0) }
    }
    return hasher.finalize()
  }
}
