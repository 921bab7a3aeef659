import StashBase
import StashModel

extension LocalChange {
  /// Appends the JSON text of ``json``: a row's and a checkpoint's straight from their values
  /// (a sync writes one of each for every record it imports), the rest through their tree.
  /// The bytes are the tree's, which `LocalChangeJSONBytesTests` checks (issue 26, item 5).
  func appendJSON(to bytes: inout [UInt8]) {
    switch self {
    case .putRow(let row, let record, let hash):
      JSONWriter.writeRaw(#"{"put":{"row":"#, into: &bytes)
      JSONWriter.writeInteger(row.rawValue, into: &bytes)
      JSONWriter.writeRaw(#","model":"#, into: &bytes)
      JSONWriter.writeString(record.model, into: &bytes)
      JSONWriter.writeRaw(#","id":"#, into: &bytes)
      record.id.appendJSONString(to: &bytes)
      JSONWriter.writeRaw(#","hash":"#, into: &bytes)
      hash.digest.withUnsafeBytes { JSONWriter.writeHexString($0, into: &bytes) }
      JSONWriter.writeRaw(#","fields":"#, into: &bytes)
      record.appendFieldsJSON(to: &bytes)
      JSONWriter.writeRaw("}}", into: &bytes)
    case .putCheckpoint(let key, let checkpoint):
      JSONWriter.writeRaw(#"{"checkpoint":{"model":"#, into: &bytes)
      JSONWriter.writeString(key.model, into: &bytes)
      JSONWriter.writeRaw(#","id":"#, into: &bytes)
      key.id.appendJSONString(to: &bytes)
      JSONWriter.writeRaw(#","hash":"#, into: &bytes)
      checkpoint.hash.digest.withUnsafeBytes { JSONWriter.writeHexString($0, into: &bytes) }
      JSONWriter.writeRaw(#","tombstone":"#, into: &bytes)
      JSONWriter.writeBool(checkpoint.isTombstone, into: &bytes)
      if let version = checkpoint.version {
        JSONWriter.writeRaw(#","version":"#, into: &bytes)
        version.digest.withUnsafeBytes { JSONWriter.writeHexString($0, into: &bytes) }
      }
      JSONWriter.writeRaw("}}", into: &bytes)
    default:
      JSONWriter.write(.object(json), into: &bytes)
    }
  }
}
