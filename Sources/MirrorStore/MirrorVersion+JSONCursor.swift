import StashBase
package import StashModel

/// Versions read straight from the bytes ``MirrorVersion/appendJSON(to:pending:)`` writes,
/// without a JSON tree (issue 26, item 5): a segment's line and the mirror's `version` line.
///
/// Only that exact form is accepted; anything else, and any version that fails a check (its
/// snapshot's hash, its id, its schema), answers `nil`, and the caller reads the line through
/// its tree (``MirrorVersion/init(json:schemas:format:verifying:)``), whose value or error is
/// the answer. Where a reader answers, its version equals the tree's.
extension MirrorVersion {
  /// Reads a segment's version line, or `nil`.
  ///
  /// - Parameters:
  ///   - line: The line's bytes, without its newline.
  ///   - schemas: Where records' models are looked up.
  ///   - format: The segment's format (1 has no ids: never read here).
  ///   - verifying: Whether to check the snapshot's hash and the id, as the tree does.
  package static func read(
    line: UnsafeRawBufferPointer, schemas: SchemaRegistry, format: Int?, verifying: Bool = true
  ) -> MirrorVersion? {
    guard format != 1 else { return nil }
    var cursor = JSONCursor(line)
    guard let version = read(from: &cursor, schemas: schemas, verifying: verifying),
      cursor.take(byte: UInt8(ascii: "}")), cursor.isAtEnd
    else { return nil }
    return version
  }

  /// Reads a version's members from `{"id":` to the end of its snapshot, or `nil`.
  static func read(
    from cursor: inout JSONCursor, schemas: SchemaRegistry, verifying: Bool
  ) -> MirrorVersion? {
    guard cursor.take(#"{"id":"#), let idDigest = cursor.digest(), cursor.take(#","hash":"#),
      let hashDigest = cursor.digest(), cursor.take(#","parents":["#)
    else { return nil }
    var parents = Set<VersionID>()
    if !cursor.take(byte: UInt8(ascii: "]")) {
      var count = 0
      repeat {
        guard let parent = cursor.digest() else { return nil }
        count += 1
        parents.insert(VersionID(digest: parent))
      } while cursor.take(byte: UInt8(ascii: ","))
      guard count <= maximumParents, cursor.take(byte: UInt8(ascii: "]")) else { return nil }
    }
    guard cursor.take(#","generation":"#), let generation = cursor.integer(),
      cursor.take(#","author":"#), let author = cursor.deviceID(),
      cursor.take(#","authoredAt":"#),
      let seconds = cursor.scalar()?.exactDouble,
      let authoredAt = Timestamp(secondsSince1970: seconds), cursor.take(#","snapshot":"#),
      let snapshot = Snapshot.read(from: &cursor, schemas: schemas)
    else { return nil }
    let hash = SnapshotHash(digest: hashDigest)
    let id = VersionID(digest: idDigest)
    guard !parents.contains(id) else { return nil }
    if verifying {
      guard snapshot.hash == hash, VersionID.derive(snapshot: hash, parents: parents) == id
      else { return nil }
    }
    return MirrorVersion(
      snapshot: snapshot, hash: hash, id: id, parents: parents, generation: generation,
      author: author, authoredAt: authoredAt)
  }
}

extension MirrorChange {
  /// Reads the mirror's `{"version":{…,"pending":…}}` operation straight from its bytes, or
  /// `nil` (every other operation, and any version the reader does not accept).
  package static func read(operation: UnsafeRawBufferPointer, schemas: SchemaRegistry)
    -> MirrorChange?
  {
    var cursor = JSONCursor(operation)
    guard cursor.take(#"{"version":"#),
      let version = MirrorVersion.read(from: &cursor, schemas: schemas, verifying: false),
      cursor.take(#","pending":"#), let isPending = cursor.bool(), cursor.take("}}"),
      cursor.isAtEnd
    else { return nil }
    return .addVersion(version, pending: isPending)
  }
}
