import StashBase

/// The canonical byte encoding of records and tombstones, the input of every snapshot hash.
///
/// The layout is documented byte by byte in `Fixtures/README.md`; this file and that text must
/// change together (and `Fixtures/snapshots/` pins both). In short, all integers big-endian:
///
/// ```
/// record    = 0x01 'R' str(model) str(recordID) u32(n) { str(fieldName) value }×n
/// tombstone = 0x01 'T' str(model) str(recordID) f64(deletedAt) digest(deletedHash)
/// str(s)    = u32(byte count of s in UTF-8) bytes
/// value     = 's' str | 'i' i64 | 'd' f64 | 't' f64 | 'b' u8 | 'h' digest u64(size)
///           | 'r' str(recordID) | 'x' u32(byte count) bytes | counter
/// counter   = 'i' i64(base)                            (first epoch, no moves: a plain integer)
///           | 'c' epoch i64(base) tallies(increments) tallies(decrements)
/// epoch     = 0x00 (the first epoch) | 0x01 str(epoch id)
/// tallies   = u32(n) { str(deviceID) i64(units) }×n, by device id ascending
/// optional  = 0x00 (absent) | 0x01 value
/// ```
/// Only fields that are not device-local are encoded, in schema order; `n` counts them.
/// `f64` is the IEEE-754 bit pattern of a `Double` (a date: its seconds since 1970).
public enum CanonicalEncoding {
  /// The version byte every snapshot starts with.
  public static let version: UInt8 = 0x01

  /// The canonical bytes of a record.
  public static func bytes(of record: Record) -> [UInt8] {
    var out = [UInt8]()
    out.reserveCapacity(256)
    append(record, to: &out)
    return out
  }

  /// The canonical bytes of a tombstone.
  public static func bytes(of tombstone: Tombstone) -> [UInt8] {
    var out = [UInt8]()
    out.reserveCapacity(128)
    append(tombstone, to: &out)
    return out
  }

  /// Appends the canonical bytes of a record to `out`.
  ///
  /// The bytes that depend only on the schema (the header with the model, the field count,
  /// each synced field's name) are the schema's, written once for it
  /// (``Schema/canonicalHead``, ``Schema/canonicalFieldNames``); integers are appended whole,
  /// not a byte at a time (a first sync hashes every record: issue 26, item 5).
  public static func append(_ record: Record, to out: inout [UInt8]) {
    let schema = record.schema
    out.append(contentsOf: schema.canonicalHead)
    appendUInt32(UInt32(RecordID.textLength), to: &out)
    record.id.appendText(to: &out)
    appendUInt32(schema.canonicalFieldCount, to: &out)
    let fields = schema.fields
    let names = schema.canonicalFieldNames
    record.values.withUnsafeBufferPointer { values in
      for index in fields.indices {
        guard let name = names[index] else { continue }
        out.append(contentsOf: name)
        appendValue(values[index], of: fields[index].type, to: &out)
      }
    }
  }

  /// What every record of `schema` starts with: the version, `'R'` and the model.
  static func head(model: String) -> [UInt8] {
    var out = [version, UInt8(ascii: "R")]
    appendString(model, to: &out)
    return out
  }

  /// The bytes naming a synced field (its name as `str`); `nil` for a device-local one.
  static func fieldName(_ field: FieldSpec) -> [UInt8]? {
    guard !field.isDeviceLocal else { return nil }
    var out = [UInt8]()
    appendString(field.name, to: &out)
    return out
  }

  /// Appends the canonical bytes of a tombstone to `out`.
  public static func append(_ tombstone: Tombstone, to out: inout [UInt8]) {
    out.append(version)
    out.append(UInt8(ascii: "T"))
    appendString(tombstone.model, to: &out)
    appendUInt32(UInt32(RecordID.textLength), to: &out)
    tombstone.id.appendText(to: &out)
    appendUInt64(tombstone.deletedAt.secondsSince1970.bitPattern, to: &out)
    tombstone.deletedHash.digest.appendBytes(to: &out)
  }

  private static func appendValue(_ value: FieldValue, of type: FieldType, to out: inout [UInt8]) {
    if case .optional(let wrapped) = type {
      if case .none = value {
        out.append(0x00)
      } else {
        out.append(0x01)
        appendValue(value, of: wrapped, to: &out)
      }
      return
    }
    switch value {
    case .string(let text):
      out.append(UInt8(ascii: "s"))
      appendString(text, to: &out)
    case .integer(let number):
      out.append(UInt8(ascii: "i"))
      appendUInt64(UInt64(bitPattern: number), to: &out)
    case .double(let number):
      out.append(UInt8(ascii: "d"))
      appendUInt64(number.bitPattern, to: &out)
    case .date(let time):
      out.append(UInt8(ascii: "t"))
      appendUInt64(time.secondsSince1970.bitPattern, to: &out)
    case .bool(let flag):
      out.append(UInt8(ascii: "b"))
      out.append(flag ? 0x01 : 0x00)
    case .blob(let blob):
      out.append(UInt8(ascii: "h"))
      blob.digest.appendBytes(to: &out)
      appendUInt64(UInt64(bitPattern: blob.size), to: &out)
    case .reference(let id):
      out.append(UInt8(ascii: "r"))
      appendUInt32(UInt32(RecordID.textLength), to: &out)
      id.appendText(to: &out)
    case .counter(let counter):
      appendCounter(counter, to: &out)
    case .bytes(let bytes):
      out.append(UInt8(ascii: "x"))
      appendUInt32(UInt32(clamping: bytes.count), to: &out)
      out.append(contentsOf: bytes)
    case .none:
      // Records are validated against their schema, so `.none` only occurs in optionals.
      preconditionFailure("A non-optional field holds no value")
    }
  }

  /// A counter with no epoch id and no moves is byte for byte the plain integer it replaces,
  /// so hashes written before counters existed stay valid.
  private static func appendCounter(_ counter: Counter, to out: inout [UInt8]) {
    guard !counter.isPlain else {
      out.append(UInt8(ascii: "i"))
      appendUInt64(UInt64(bitPattern: counter.base), to: &out)
      return
    }
    out.append(UInt8(ascii: "c"))
    if let epoch = counter.epoch {
      out.append(0x01)
      appendString(epoch.rawValue, to: &out)
    } else {
      out.append(0x00)
    }
    appendUInt64(UInt64(bitPattern: counter.base), to: &out)
    for tallies in [counter.increments, counter.decrements] {
      appendUInt32(UInt32(clamping: tallies.count), to: &out)
      for (device, units) in tallies.sorted(by: { $0.key < $1.key }) {
        appendString(device.rawValue, to: &out)
        appendUInt64(UInt64(bitPattern: units), to: &out)
      }
    }
  }

  private static func appendString(_ text: String, to out: inout [UInt8]) {
    var text = text
    text.withUTF8 { bytes in
      appendUInt32(UInt32(bytes.count), to: &out)
      out.append(contentsOf: bytes)
    }
  }

  private static func appendUInt32(_ number: UInt32, to out: inout [UInt8]) {
    withUnsafeBytes(of: number.bigEndian) { out.append(contentsOf: $0) }
  }

  private static func appendUInt64(_ number: UInt64, to out: inout [UInt8]) {
    withUnsafeBytes(of: number.bigEndian) { out.append(contentsOf: $0) }
  }
}
