/// The type of one field of a schema.
///
/// These are the types the canonical encoding knows; each has a one-byte tag there (see
/// `Fixtures/README.md`).
public indirect enum FieldType: Hashable, Sendable, CustomStringConvertible {
  /// UTF-8 text, stored exactly as given (no normalization).
  case string
  /// A signed 64-bit integer.
  case integer
  /// A ``Counter``: a count whose moves on several devices merge (an item's stock).
  case counter
  /// A finite `Double`, hashed as its bit pattern.
  case double
  /// A ``Timestamp``, hashed as the bit pattern of its seconds since 1970.
  case date
  /// `true` or `false`.
  case bool
  /// A ``BlobRef``: the SHA-256 and size of bytes kept beside the store.
  case blob
  /// Bytes held in the record itself (a small binary value, not a photo): base64 in a store
  /// line, the bytes themselves in the canonical encoding.
  case bytes
  /// The ``RecordID`` of a record of another (or the same) model. It may dangle.
  case reference(model: String)
  /// A value of the wrapped type, or none.
  case optional(FieldType)

  public var description: String {
    switch self {
    case .string: "string"
    case .integer: "integer"
    case .counter: "counter"
    case .double: "double"
    case .date: "date"
    case .bool: "bool"
    case .blob: "blob"
    case .bytes: "bytes"
    case .reference(let model): "reference(\(model))"
    case .optional(let wrapped): "optional(\(wrapped))"
    }
  }

  /// Whether a value of this type may be a photo (``FieldValue/blob(_:)``).
  public var isBlob: Bool {
    switch self {
    case .blob: true
    case .optional(let wrapped): wrapped.isBlob
    default: false
    }
  }

  /// Whether this is a counter (or an optional one).
  public var isCounter: Bool {
    switch self {
    case .counter: true
    case .optional(let wrapped): wrapped.isCounter
    default: false
    }
  }

  /// Whether `value` is a valid value of this type.
  public func accepts(_ value: FieldValue) -> Bool {
    switch (self, value) {
    case (.optional, .none): true
    case (.optional(let wrapped), _): wrapped.accepts(value)
    case (.string, .string), (.integer, .integer), (.bool, .bool), (.blob, .blob),
      (.counter, .counter), (.bytes, .bytes),
      (.reference, .reference):
      true
    case (.double, .double(let number)): number.isFinite
    case (.date, .date): true
    default: false
    }
  }
}

/// The value of one field of a record.
///
/// Two values are equal when their canonical encodings are equal: doubles compare by bit
/// pattern, so `-0.0` differs from `0.0` exactly as their hashes do.
public enum FieldValue: Hashable, Sendable, CustomStringConvertible {
  case string(String)
  case integer(Int64)
  /// Inline: a counter is its base and a reference to its epoch and moves, which a plain
  /// counter does not have (boxed, every counter cost an allocation).
  case counter(Counter)
  case double(Double)
  case date(Timestamp)
  case bool(Bool)
  /// Kept out of line so that every value stays small (a blob reference is 40 bytes).
  indirect case blob(BlobRef)
  case reference(RecordID)
  /// Bytes held in the record (any bytes, UTF-8 or not).
  case bytes([UInt8])
  /// The absent value of an optional field.
  case none

  public static func == (lhs: FieldValue, rhs: FieldValue) -> Bool {
    switch (lhs, rhs) {
    case (.string(let a), .string(let b)): a.utf8.elementsEqual(b.utf8)
    case (.integer(let a), .integer(let b)): a == b
    case (.counter(let a), .counter(let b)): a == b
    case (.double(let a), .double(let b)): a.bitPattern == b.bitPattern
    case (.date(let a), .date(let b)): a == b
    case (.bool(let a), .bool(let b)): a == b
    case (.blob(let a), .blob(let b)): a == b
    case (.reference(let a), .reference(let b)): a == b
    case (.bytes(let a), .bytes(let b)): a == b
    case (.none, .none): true
    default: false
    }
  }

  public func hash(into hasher: inout Hasher) {
    switch self {
    case .string(let text):
      hasher.combine(0)
      for byte in text.utf8 { hasher.combine(byte) }
    case .integer(let number):
      hasher.combine(1)
      hasher.combine(number)
    case .double(let number):
      hasher.combine(2)
      hasher.combine(number.bitPattern)
    case .date(let time):
      hasher.combine(3)
      hasher.combine(time)
    case .bool(let flag):
      hasher.combine(4)
      hasher.combine(flag)
    case .blob(let blob):
      hasher.combine(5)
      hasher.combine(blob)
    case .reference(let id):
      hasher.combine(6)
      hasher.combine(id)
    case .counter(let counter):
      hasher.combine(8)
      hasher.combine(counter)
    case .bytes(let bytes):
      hasher.combine(9)
      hasher.combine(bytes)
    case .none: hasher.combine(7)
    }
  }

  public var description: String {
    switch self {
    case .string(let text): "\"\(text)\""
    case .integer(let number): "\(number)"
    case .counter(let counter): "counter(\(counter))"
    case .double(let number): "\(number)"
    case .date(let time): "date(\(time))"
    case .bool(let flag): "\(flag)"
    case .blob(let blob): "blob(\(blob))"
    case .reference(let id): "ref(\(id))"
    case .bytes(let bytes): "bytes(\(bytes.count))"
    case .none: "none"
    }
  }
}
