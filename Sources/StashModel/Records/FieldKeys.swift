import StashBase

/// The JSON text `"name":` of each field of a schema, in order, in one buffer written once for
/// the schema: a record's fields are written and read against it with no array of its own per
/// field. An array per field was retained and released for every field of every record a sync
/// writes, on every core at once: the same schema's arrays, so their counts moved between
/// the cores' caches (2.5% of a first sync of 100,000 records; issue 26, item 5).
struct FieldKeys: Sendable {
  /// Every key, one after another.
  private let bytes: [UInt8]
  /// Where each key starts in ``bytes``, and where the last ends.
  private let bounds: [Int]

  /// The keys of fields with these names, in order.
  init(names: [String]) {
    var bytes = [UInt8]()
    var bounds = [0]
    for name in names {
      JSONWriter.writeString(name, into: &bytes)
      bytes.append(UInt8(ascii: ":"))
      bounds.append(bytes.count)
    }
    self.bytes = bytes
    self.bounds = bounds
  }

  /// Calls `body` with the keys.
  func withKeys<Result>(_ body: (Keys) -> Result) -> Result {
    bytes.withUnsafeBufferPointer { bytes in
      bounds.withUnsafeBufferPointer { bounds in body(Keys(bytes: bytes, bounds: bounds)) }
    }
  }

  /// The keys, valid only inside ``FieldKeys/withKeys(_:)``.
  struct Keys {
    let bytes: UnsafeBufferPointer<UInt8>
    let bounds: UnsafeBufferPointer<Int>

    /// The key of the field at `index`.
    subscript(index: Int) -> UnsafeBufferPointer<UInt8> {
      UnsafeBufferPointer(rebasing: bytes[bounds[index]..<bounds[index + 1]])
    }
  }
}
