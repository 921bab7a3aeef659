package import StashBase
import StashModel

extension MirrorVersion {
  /// Appends the JSON text of ``json`` (the segment line of this version), or with `pending`
  /// the body of the mirror's `version` operation (`"pending"` after the snapshot), without
  /// building the tree: the bytes ``JSONWriter`` writes for it, which `VersionJSONBytesTests`
  /// checks (issue 26, item 5).
  ///
  /// - Parameters:
  ///   - bytes: The buffer to append to.
  ///   - pending: The mirror operation's `pending` member, or `nil` for the plain version.
  public func appendJSON(to bytes: inout [UInt8], pending: Bool? = nil) {
    JSONWriter.writeRaw(#"{"id":"#, into: &bytes)
    id.digest.withUnsafeBytes { JSONWriter.writeHexString($0, into: &bytes) }
    JSONWriter.writeRaw(#","hash":"#, into: &bytes)
    hash.digest.withUnsafeBytes { JSONWriter.writeHexString($0, into: &bytes) }
    JSONWriter.writeRaw(#","parents":["#, into: &bytes)
    for (index, parent) in parents.sorted().enumerated() {
      if index > 0 { bytes.append(UInt8(ascii: ",")) }
      parent.digest.withUnsafeBytes { JSONWriter.writeHexString($0, into: &bytes) }
    }
    JSONWriter.writeRaw(#"],"generation":"#, into: &bytes)
    JSONWriter.writeInteger(generation, into: &bytes)
    JSONWriter.writeRaw(#","author":"#, into: &bytes)
    author.appendJSONString(to: &bytes)
    JSONWriter.writeRaw(#","authoredAt":"#, into: &bytes)
    JSONWriter.writeDouble(authoredAt.secondsSince1970, into: &bytes)
    JSONWriter.writeRaw(#","snapshot":"#, into: &bytes)
    snapshot.appendJSON(to: &bytes)
    if let pending {
      JSONWriter.writeRaw(#","pending":"#, into: &bytes)
      JSONWriter.writeBool(pending, into: &bytes)
    }
    bytes.append(UInt8(ascii: "}"))
  }
}

extension MirrorChange {
  /// Appends the JSON text of ``json``: a new version's straight from the version
  /// (``MirrorVersion/appendJSON(to:pending:)``), the rest through their tree.
  func appendJSON(to bytes: inout [UInt8]) {
    guard case .addVersion(let version, let isPending) = self else {
      JSONWriter.write(.object(json), into: &bytes)
      return
    }
    JSONWriter.writeRaw(#"{"version":"#, into: &bytes)
    version.appendJSON(to: &bytes, pending: isPending)
    bytes.append(UInt8(ascii: "}"))
  }
}

/// How many versions' JSON trees (``MirrorVersion/json``) were built, by model, while a test
/// watched (``Census``): a version's lines are written from its bytes
/// (``MirrorVersion/appendJSON(to:pending:)``), and a test proves that a first sync and an
/// import build no tree for them. Use a model no other test uses at the same time.
package let versionTreeCensus = Census()

/// How many version ids a mirror's write derived itself, by model, while a test watched
/// (``Census``): the reconciler gives it the ids its version graph derived, so that a first
/// sync derives each version's id once (issue 26, item 5).
package let derivationCensus = Census()
