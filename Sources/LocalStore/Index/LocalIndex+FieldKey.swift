import StashBase
import StashModel

extension LocalIndex {
  /// The bytes of one slot of the field table (an entry's offset and which of its fields).
  static let fieldSlot = 5
  /// The most bytes of a value's sort key an entry keeps (a longer text is cut; see
  /// ``fieldKey(_:)``).
  static let maximumFieldKey = 256

  /// A field value as the field table sorts it: a kind byte (0 an empty optional, 1 a bool,
  /// 2 an integer, 3 a double, 4 a date, 5 a text, 6 a reference), then the value's bytes,
  /// so that bytewise order is the order a query compares values of one field in (empty
  /// optionals first) and equal values have equal bytes.
  ///
  /// A bool is one byte (0, 1); an integer eight, big-endian with the sign bit flipped; a
  /// double (and a date's seconds) its IEEE-754 bits, big-endian, with every bit flipped when
  /// it is negative and the sign bit alone otherwise (`-0.0` just below `0.0`); a text its
  /// UTF-8 bytes (the order of its Unicode scalars); a reference its id's 36 characters. A
  /// key is cut to ``maximumFieldKey`` bytes: a cut key still sorts no later than any longer
  /// value it starts, so a search finds every row it should and perhaps a few more, which the
  /// query's own check drops. `nil` for a kind no query compares (counters, photos, bytes).
  static func fieldKey(_ value: FieldValue) -> [UInt8]? {
    var key: [UInt8]
    switch value {
    case .none: key = [0]
    case .bool(let flag): key = [1, flag ? 1 : 0]
    case .integer(let number): key = [2] + bigEndian(UInt64(bitPattern: number) ^ (1 << 63))
    case .double(let number): key = [3] + bigEndian(orderBits(number))
    case .date(let time): key = [4] + bigEndian(orderBits(time.secondsSince1970))
    case .string(let text): key = [5] + Array(text.utf8.prefix(maximumFieldKey))
    case .reference(let id): key = [6] + id.utf8Bytes
    default: return nil
    }
    if key.count > maximumFieldKey { key.removeLast(key.count - maximumFieldKey) }
    return key
  }

  /// The first and last sort keys a range from `lower` through `upper` (either `nil`: open)
  /// covers, empty optionals excluded; `nil` when a bound is of a kind no query compares
  /// (the range then holds nothing).
  static func fieldRange(from lower: FieldValue?, through upper: FieldValue?) -> (
    low: [UInt8], high: [UInt8]
  )? {
    // A zero bound takes both zeros: a range compares numbers, where -0.0 == 0.0.
    func zero(_ value: FieldValue, negative: Bool) -> FieldValue {
      switch value {
      case .double(let number) where number == 0: .double(negative ? -0.0 : 0.0)
      case .date(let time) where time.secondsSince1970 == 0:
        .date(Timestamp(secondsSince1970: negative ? -0.0 : 0.0)!)
      default: value
      }
    }
    var low: [UInt8] = [1]
    var high: [UInt8] = [0xFF]
    if let lower {
      guard let key = fieldKey(zero(lower, negative: true)) else { return nil }
      low = key
    }
    if let upper {
      guard let key = fieldKey(zero(upper, negative: false)) else { return nil }
      high = key
    }
    return (low, high)
  }

  /// What the field table of an index written for `schemas` covers: one line per indexed
  /// field of each model (``Schema/indexedIndices``, positions up to 255), `model`, position
  /// and name separated by tabs, models in byte order; the head keeps its CRC-32.
  static func declaration(of schemas: SchemaRegistry) -> UInt32 {
    var text = ""
    for schema in schemas.schemas.values.sorted(by: {
      Array($0.model.utf8).lexicographicallyPrecedes(Array($1.model.utf8))
    }) {
      for position in schema.indexedIndices where position <= 255 {
        text += "\(schema.model)\t\(position)\t\(schema.fields[position].name)\n"
      }
    }
    return CRC32.checksum(Array(text.utf8))
  }

  /// The fields of a row's entry: each indexed field's position and its value's sort key;
  /// `nil` when a value is of a kind no query compares.
  static func fields(of record: Record) -> [[UInt8]]? {
    var fields = [[UInt8]]()
    for position in record.schema.indexedIndices where position <= 255 {
      guard let key = fieldKey(record.values[position]) else { return nil }
      fields.append([UInt8(position)] + key)
    }
    return fields.count <= 255 ? fields : nil
  }

  private static func orderBits(_ number: Double) -> UInt64 {
    let bits = number.bitPattern
    return bits >> 63 == 1 ? ~bits : bits | (1 << 63)
  }

  private static func bigEndian(_ value: UInt64) -> [UInt8] {
    withUnsafeBytes(of: value.bigEndian) { Array($0) }
  }
}
