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
      // Each id's bucket (the first byte of its text's SHA-256), on every core; the text is
      // written on the stack, and again into the body (an array per id was 8 MB at 100,000).
      let buckets = Parallel.map(count: list.count) { index in UInt8(bucket(of: list[index].id)) }
      var groups = [[Int]](repeating: [], count: bucketCount)
      for index in list.indices { groups[Int(buckets[index])].append(index) }
      for bucket in groups.indices { groups[bucket].sort { list[$0].id < list[$1].id } }
      let hashes = Parallel.map(count: bucketCount, minimumChunk: 16) { [groups] bucket in
        groups[bucket].isEmpty
          ? emptyBucket
          : bucketHash(sorted: groups[bucket].lazy.map { (id: list[$0].id, entry: list[$0].entry) })
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
          list[index].id.appendText(to: &body)
          body.append(list[index].entry.isTombstone ? 1 : 0)
          list[index].entry.hash.digest.appendBytes(to: &body)
        }
      }
    }
    return body
  }
}
