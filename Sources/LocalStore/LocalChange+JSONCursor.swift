import StashBase
import StashModel

extension LocalChange {
  /// Reads a row's and a checkpoint's operation straight from the bytes
  /// ``appendJSON(to:)`` writes, without a JSON tree (issue 26, item 5: a store's open reads
  /// one of each per record a sync imported).
  ///
  /// Only that exact form is accepted; anything else, and a row whose record its schema or
  /// its model's checks refuse (the tree path sets it aside as a ``damagedRow(_:)``), answers
  /// `nil`, and the caller reads the line through its tree (``init(json:schemas:line:)``).
  /// Where this answers, its change equals the tree's.
  ///
  /// - Parameters:
  ///   - operation: The line's `op` object.
  ///   - schemas: Where records' models are looked up.
  /// The record a row's put names, read from the start of its operation in the form
  /// ``appendJSON(to:)`` writes (`{"put":{"row":…,"model":…,"id":…`), without reading the
  /// rest; `nil` for any other operation or form.
  static func putKey(operation: UnsafeRawBufferPointer) -> RecordKey? {
    var cursor = JSONCursor(operation)
    guard cursor.take(#"{"put":{"row":"#), let row = cursor.integer(), RowID.isValid(row),
      cursor.take(#","model":"#), let model = cursor.string(), !model.isEmpty,
      cursor.take(#","id":"#), let id = cursor.recordID()
    else { return nil }
    return RecordKey(model: model, id: id)
  }

  static func read(operation: UnsafeRawBufferPointer, schemas: SchemaRegistry) -> LocalChange? {
    var cursor = JSONCursor(operation)
    if cursor.take(#"{"put":{"row":"#) {
      guard let row = cursor.integer(), RowID.isValid(row), cursor.take(#","model":"#),
        let model = cursor.string(), !model.isEmpty, cursor.take(#","id":"#),
        let id = cursor.recordID(), cursor.take(#","hash":"#),
        let hash = cursor.digest(), cursor.take(#","fields":"#),
        let schema = try? schemas.schema(for: model),
        let record = Record.read(fieldsFrom: &cursor, schema: schema, id: id),
        (try? schema.validate(record)) != nil, cursor.take("}}"), cursor.isAtEnd
      else { return nil }
      return .putRow(RowID(row), record, SnapshotHash(digest: hash))
    }
    guard cursor.take(#"{"checkpoint":{"model":"#), let model = cursor.string(), !model.isEmpty,
      cursor.take(#","id":"#), let id = cursor.recordID(),
      cursor.take(#","hash":"#), let hash = cursor.digest(), cursor.take(#","tombstone":"#),
      let isTombstone = cursor.bool()
    else { return nil }
    var version: VersionID?
    if cursor.take(#","version":"#) {
      guard let digest = cursor.digest() else { return nil }
      version = VersionID(digest: digest)
    }
    guard cursor.take("}}"), cursor.isAtEnd else { return nil }
    return .putCheckpoint(
      RecordKey(model: model, id: id),
      Checkpoint(hash: SnapshotHash(digest: hash), isTombstone: isTombstone, version: version))
  }
}
