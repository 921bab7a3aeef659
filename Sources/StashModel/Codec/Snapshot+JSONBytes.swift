import StashBase

/// The JSON forms of snapshots and records written straight to bytes: exactly the bytes
/// ``JSONWriter`` writes for ``Snapshot/json`` and ``Record/fieldsJSON()``, without building
/// the tree of values first (issue 26, item 5: a first sync writes every record's version
/// twice, in the mirror and in a segment, and building the trees was a large part of it).
/// `SnapshotJSONBytesTests` holds the two to the same bytes.
extension Snapshot {
  /// Appends the JSON text of ``json``.
  ///
  /// - Parameter bytes: The buffer to append to.
  public func appendJSON(to bytes: inout [UInt8]) {
    switch self {
    case .record(let record):
      JSONWriter.writeRaw(#"{"kind":"record","model":"#, into: &bytes)
      JSONWriter.writeString(record.model, into: &bytes)
      JSONWriter.writeRaw(#","id":"#, into: &bytes)
      record.id.appendJSONString(to: &bytes)
      JSONWriter.writeRaw(#","fields":"#, into: &bytes)
      record.appendFieldsJSON(to: &bytes)
      bytes.append(UInt8(ascii: "}"))
    case .tombstone:
      JSONWriter.write(.object(json), into: &bytes)
    }
  }
}

extension Record {
  /// Appends the JSON text of ``fieldsJSON()``.
  ///
  /// - Parameter bytes: The buffer to append to.
  public func appendFieldsJSON(to bytes: inout [UInt8]) {
    bytes.append(UInt8(ascii: "{"))
    // The keys from the schema's one buffer (``FieldKeys``), the values from the record's.
    schema.fieldKeys.withKeys { keys in
      values.withUnsafeBufferPointer { values in
        for index in values.indices {
          if index > 0 { bytes.append(UInt8(ascii: ",")) }
          bytes.append(contentsOf: keys[index])
          values[index].appendJSON(to: &bytes)
        }
      }
    }
    bytes.append(UInt8(ascii: "}"))
  }
}

extension FieldValue {
  /// Appends the JSON text of ``json``.
  func appendJSON(to bytes: inout [UInt8]) {
    switch self {
    case .string(let text): JSONWriter.writeString(text, into: &bytes)
    case .integer(let number): JSONWriter.writeInteger(number, into: &bytes)
    case .double(let number): JSONWriter.writeDouble(number, into: &bytes)
    case .date(let time): JSONWriter.writeDouble(time.secondsSince1970, into: &bytes)
    case .bool(let flag): JSONWriter.writeBool(flag, into: &bytes)
    case .reference(let id): id.appendJSONString(to: &bytes)
    case .none: JSONWriter.writeRaw("null", into: &bytes)
    case .counter(let counter) where counter.isPlain:
      JSONWriter.writeInteger(counter.base, into: &bytes)  // what its tree, `.integer`, writes
    case .blob, .counter, .bytes: JSONWriter.write(json, into: &bytes)
    }
  }
}
