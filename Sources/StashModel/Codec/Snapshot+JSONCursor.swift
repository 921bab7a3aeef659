package import StashBase

/// Snapshots and records read straight from the bytes their direct writers write
/// (``Snapshot/appendJSON(to:)``, ``Record/appendFieldsJSON(to:)``), without a JSON tree
/// (issue 26, item 5: a second device's import and every store open read one per record).
///
/// Each reader accepts only that exact form (members in the written order, no whitespace) and
/// answers `nil` for anything else, a record its schema refuses included: the caller then
/// reads the line through its tree (``Snapshot/init(json:schemas:)``), whose value or error is
/// the answer. Values are read by the parser's own scanners and checked by the same
/// ``FieldValue/init(json:type:field:)``, so what a reader accepts equals what the tree gives.
extension Snapshot {
  /// Reads the snapshot at `cursor` (`{"kind":…}`), or `nil`.
  package static func read(
    from cursor: inout JSONCursor, schemas: SchemaRegistry
  ) -> Snapshot? {
    guard cursor.take(#"{"kind":"#) else { return nil }
    if cursor.take(#""record","model":"#) {
      guard let model = cursor.string(), cursor.take(#","id":"#), let id = cursor.recordID(),
        cursor.take(#","fields":"#),
        let schema = try? schemas.schema(for: model),
        let record = Record.read(fieldsFrom: &cursor, schema: schema, id: id),
        cursor.take(byte: UInt8(ascii: "}"))
      else { return nil }
      return .record(record)
    }
    guard cursor.take(#""tombstone","model":"#), let model = cursor.string(), !model.isEmpty,
      cursor.take(#","id":"#), let id = cursor.recordID(), cursor.take(#","deletedAt":"#),
      let seconds = cursor.scalar()?.exactDouble,
      let deletedAt = Timestamp(secondsSince1970: seconds), cursor.take(#","deletedHash":"#),
      let deletedHash = cursor.digest(), cursor.take(byte: UInt8(ascii: "}"))
    else { return nil }
    return .tombstone(
      Tombstone(
        model: model, id: id, deletedAt: deletedAt, deletedHash: SnapshotHash(digest: deletedHash)
      ))
  }
}

extension Record {
  /// Reads the fields object at `cursor`, every field of `schema` in its order, or `nil`.
  package static func read(
    fieldsFrom cursor: inout JSONCursor, schema: Schema, id: RecordID
  ) -> Record? {
    guard cursor.take(byte: UInt8(ascii: "{")) else { return nil }
    let fields = schema.fields
    var values = [FieldValue]()
    values.reserveCapacity(fields.count)
    let complete = schema.fieldKeys.withKeys { keys in
      for index in fields.indices {
        if index > 0 {
          guard cursor.take(byte: UInt8(ascii: ",")) else { return false }
        }
        guard cursor.take(keys[index]),
          let value = FieldValue.read(
            from: &cursor, type: fields[index].type, field: fields[index].name)
        else { return false }
        values.append(value)
      }
      return true
    }
    guard complete, cursor.take(byte: UInt8(ascii: "}")) else { return nil }
    return try? Record(schema: schema, id: id, values: values)
  }
}

extension FieldValue {
  /// Reads one value of `type` at `cursor`: a scalar, or a small object (a photo's
  /// reference, a counter with moves), as the tree reads it and checked by the same
  /// ``FieldValue/init(json:type:field:)``; `nil` for anything else.
  static func read(from cursor: inout JSONCursor, type: FieldType, field: String) -> FieldValue? {
    // The common types straight from their tokens, as ``FieldValue/init(json:type:field:)``
    // reads them; a token of another kind answers `nil` there as it would be refused there.
    switch type {
    case .string: return cursor.string().map { .string($0) }
    case .integer: return cursor.integer().map { .integer($0) }
    case .bool: return cursor.bool().map { .bool($0) }
    case .double: return cursor.scalar()?.exactDouble.map { .double($0) }
    case .date:
      return cursor.scalar()?.exactDouble.flatMap { Timestamp(secondsSince1970: $0) }.map {
        .date($0)
      }
    case .reference:
      if let id = cursor.recordID() { return .reference(id) }
    case .counter:
      // A plain integer (a first epoch without moves), or the object a counter with moves is
      // written as; anything else is read through its tree below.
      if let plain = cursor.integer() { return .counter(Counter(base: plain)) }
      let start = cursor.offset
      if let counter = Counter.read(from: &cursor) { return .counter(counter) }
      cursor.offset = start
    case .optional(let wrapped):
      if cursor.take("null") { return FieldValue.none }
      return read(from: &cursor, type: wrapped, field: field)
    default: break
    }
    let json = cursor.next == UInt8(ascii: "{") ? cursor.smallObject() : cursor.scalar()
    guard let json else { return nil }
    return try? FieldValue(json: json, type: type, field: field)
  }
}

extension Counter {
  /// Reads the object a counter with moves is written as (``json``: members in that order,
  /// device ids as lowercase UUIDs, tallies as positive integers, each device once), or `nil`
  /// for anything else, a first epoch without moves included (the tree refuses it: it is
  /// written as a plain integer). The cursor may have moved when it answers `nil`.
  ///
  /// Through its tree, a counter cost two thirds of reading an item's line: `history` of an
  /// item used a few hundred times read one for each use.
  package static func read(from cursor: inout JSONCursor) -> Counter? {
    guard cursor.take(#"{"epoch":"#) else { return nil }
    var epoch: CounterEpoch?
    if !cursor.take("null") {
      guard let text = cursor.string(), let parsed = CounterEpoch(text) else { return nil }
      epoch = parsed
    }
    guard cursor.take(#","base":"#), let base = cursor.integer(), cursor.take(#","p":"#),
      let increments = tallies(from: &cursor), cursor.take(#","n":"#),
      let decrements = tallies(from: &cursor), cursor.take(byte: UInt8(ascii: "}"))
    else { return nil }
    let counter = Counter(
      base: base, epoch: epoch, increments: increments, decrements: decrements)
    return counter.isPlain ? nil : counter
  }

  /// Reads `{device: units, …}` as ``json`` writes it, or `nil`.
  private static func tallies(from cursor: inout JSONCursor) -> [DeviceID: Int64]? {
    guard cursor.take(byte: UInt8(ascii: "{")) else { return nil }
    var found = [DeviceID: Int64]()
    if cursor.take(byte: UInt8(ascii: "}")) { return found }
    repeat {
      guard let device = cursor.deviceID(), cursor.take(byte: UInt8(ascii: ":")),
        let units = cursor.integer(), units > 0, found[device] == nil
      else { return nil }
      found[device] = units
    } while cursor.take(byte: UInt8(ascii: ","))
    return cursor.take(byte: UInt8(ascii: "}")) ? found : nil
  }
}

extension JSONCursor {
  /// Reads a device id written as its 36 lowercase characters, or `nil` (as ``recordID()``).
  package mutating func deviceID() -> DeviceID? {
    recordID().map { DeviceID(id: $0) }
  }

  /// Reads a record id written as its 36 lowercase characters (which the parser reads as that
  /// text), or `nil` for any other string.
  package mutating func recordID() -> RecordID? {
    var id: RecordID?
    return quoted(count: 36) {
      id = RecordID(utf8: $0)
      return id != nil
    } ? id : nil
  }
}

/// How many version and row lines were read through a JSON tree, by model, while a test
/// watched (``Census``): the lines a store or a segment holds one per record are read
/// straight from their bytes, and a test proves that a first sync and a second device's
/// import parse no tree for them (issue 26, item 5). Use a model no other test uses at the
/// same time.
package let lineTreeCensus = Census()
