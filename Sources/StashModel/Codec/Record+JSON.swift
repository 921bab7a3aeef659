import Foundation
public import StashBase

/// The JSON form of records, tombstones and snapshots, as store lines and segments hold them.
///
/// Field values map to JSON one to one: strings, integers and booleans as themselves, doubles
/// and dates (seconds since 1970) as numbers in shortest round-trip form, an absent optional
/// as `null`, a reference as its id text, a blob as `{"sha256": hex, "size": n}`, bytes as
/// their base64 text (RFC 4648, with padding).
extension Record {
  /// Every field (device-local ones too) as a JSON object in schema order.
  public func fieldsJSON() -> JSONObject {
    var object = JSONObject()
    for (field, value) in zip(schema.fields, values) {
      object.append(field.name, value.json)
    }
    return object
  }

  /// Reads a record's fields from their JSON object.
  ///
  /// A missing optional field reads as absent; any other missing field, an unknown field or a
  /// value of the wrong type is refused.
  ///
  /// - Parameters:
  ///   - schema: The model's schema.
  ///   - id: The record's id.
  ///   - fieldsJSON: The object written by ``fieldsJSON()``.
  /// - Throws: ``ModelError`` naming the field.
  public init(schema: Schema, id: RecordID, fieldsJSON: JSONObject) throws(ModelError) {
    let fields = schema.fields
    var values = [FieldValue](repeating: .none, count: fields.count)
    var seen = [Bool](repeating: false, count: fields.count)
    var position = 0
    for (name, json) in fieldsJSON {
      // Stores write fields in schema order, so the next field is almost always the one.
      let index: Int
      if position < fields.count && fields[position].name == name {
        index = position
      } else if let found = schema.index(of: name) {
        index = found
      } else {
        throw ModelError("Model '\(schema.model)' has no field '\(name)'")
      }
      position = index + 1
      guard !seen[index] else {
        throw ModelError("Field '\(name)' of '\(schema.model)' appears twice")
      }
      seen[index] = true
      values[index] = try FieldValue(json: json, type: schema.fields[index].type, field: name)
    }
    for (index, field) in schema.fields.enumerated() where !seen[index] {
      guard case .optional = field.type else {
        throw ModelError("Field '\(field.name)' of '\(schema.model)' is missing")
      }
    }
    try self.init(schema: schema, id: id, values: values)
  }
}

extension FieldValue {
  /// The JSON form of this value.
  public var json: JSONValue {
    switch self {
    case .string(let text): .string(text)
    case .integer(let number): .integer(number)
    case .double(let number): .double(number)
    case .date(let time): .double(time.secondsSince1970)
    case .bool(let flag): .bool(flag)
    case .blob(let blob):
      .object(["sha256": .string(blob.digest.hex), "size": .integer(blob.size)])
    case .reference(let id): .string(id.rawValue)
    case .counter(let counter): counter.json
    case .bytes(let bytes): .string(Data(bytes).base64EncodedString())
    case .none: .null
    }
  }

  /// Reads a value of `type` from JSON.
  ///
  /// - Parameters:
  ///   - json: The value as stored.
  ///   - type: The field's type.
  ///   - field: The field's name, for the error message.
  /// - Throws: ``ModelError`` when the JSON does not hold a value of that type.
  public init(json: JSONValue, type: FieldType, field: String) throws(ModelError) {
    func refuse() -> ModelError {
      ModelError("Field '\(field)' takes \(type), not \(JSONWriter.string(json))")
    }
    switch (type, json) {
    case (.optional, .null): self = .none
    case (.optional(let wrapped), _): try self.init(json: json, type: wrapped, field: field)
    case (.string, .string(let text)): self = .string(text)
    case (.integer, .integer(let number)): self = .integer(number)
    case (.double, _):
      guard let number = json.exactDouble else { throw refuse() }
      self = .double(number)
    case (.date, _):
      guard let number = json.exactDouble, let time = Timestamp(secondsSince1970: number) else {
        throw refuse()
      }
      self = .date(time)
    case (.bool, .bool(let flag)): self = .bool(flag)
    case (.blob, .object(let object)):
      guard case .string(let hex)? = object["sha256"], let digest = SHA256Digest(hex: hex),
        case .integer(let size)? = object["size"], size >= 0, object.count == 2
      else { throw refuse() }
      self = .blob(BlobRef(digest: digest, size: size))
    case (.reference, .string(let text)):
      guard let id = RecordID(text) else { throw refuse() }
      self = .reference(id)
    case (.counter, _):
      self = .counter(try Counter(json: json, field: field))
    case (.bytes, .string(let text)):
      // One text per value: padding required, no whitespace, no stray bits in the last digit.
      guard let data = Data(base64Encoded: text), data.base64EncodedString() == text else {
        throw refuse()
      }
      self = .bytes(Array(data))
    default:
      throw refuse()
    }
  }
}

extension JSONValue {
  /// The number as a `Double` when it is one exactly: a double literal, or an integer literal
  /// within ±2^53 (beyond that an integer would be rounded, so it is refused).
  public var exactDouble: Double? {
    switch self {
    case .double(let number): number.isFinite ? number : nil
    case .integer(let number): abs(number) <= (1 << 53) ? Double(number) : nil
    default: nil
    }
  }
}

extension Counter {
  /// The JSON form: a plain integer for a first epoch without moves (exactly what a quantity
  /// was before counters), else
  /// `{"epoch": id or null, "base": n, "p": {device: units}, "n": {device: units}}` with the
  /// devices in ascending order.
  public var json: JSONValue {
    guard !isPlain else { return .integer(base) }
    func tallies(_ values: [DeviceID: Int64]) -> JSONValue {
      .object(
        JSONObject(values.sorted { $0.key < $1.key }.map { ($0.key.rawValue, .integer($0.value)) }))
    }
    return .object([
      "epoch": epoch.map { .string($0.rawValue) } ?? .null, "base": .integer(base),
      "p": tallies(increments), "n": tallies(decrements),
    ])
  }

  /// Reads a counter: a plain integer, or the object written by ``json``.
  ///
  /// - Throws: ``ModelError`` naming the field when the shape is wrong, a device id is not a
  ///   lowercase UUID, or a tally is not a positive integer.
  public init(json: JSONValue, field: String) throws(ModelError) {
    if case .integer(let plain) = json {
      self.init(base: plain)
      return
    }
    func refuse(_ why: String) -> ModelError {
      ModelError("Field '\(field)' takes a counter: \(why)")
    }
    guard case .object(let object) = json, object.count == 4,
      case .integer(let base)? = object["base"]
    else { throw refuse("an integer, or an object with 'epoch', 'base', 'p' and 'n'") }
    var epoch: CounterEpoch?
    switch object["epoch"] {
    case .null?: epoch = nil
    case .string(let text)?:
      guard let parsed = CounterEpoch(text) else { throw refuse("'epoch' must be a UUID") }
      epoch = parsed
    default: throw refuse("'epoch' must be a UUID or null")
    }
    func tallies(_ name: String) throws(ModelError) -> [DeviceID: Int64] {
      guard case .object(let members)? = object[name] else {
        throw refuse("'\(name)' must be an object")
      }
      var found = [DeviceID: Int64]()
      for (key, value) in members {
        guard let device = DeviceID(key) else {
          throw refuse("'\(key)' in '\(name)' is not a device id")
        }
        guard case .integer(let units) = value, units > 0, found[device] == nil else {
          throw refuse("'\(name)' of '\(key)' must be a positive integer, given once")
        }
        found[device] = units
      }
      return found
    }
    self.init(
      base: base, epoch: epoch, increments: try tallies("p"), decrements: try tallies("n"))
    guard !isPlain else {
      throw refuse("a first epoch without moves is written as a plain integer")
    }
  }
}
