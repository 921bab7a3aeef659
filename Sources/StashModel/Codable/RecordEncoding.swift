import Foundation
import StashBase

/// Writes a ``CodableRecord`` value as a ``Record`` through the type's `Encodable`
/// conformance.
enum RecordEncoding {
  /// The record that stores `value`.
  ///
  /// - Throws: ``ModelError`` naming the field when a value cannot be stored, a non-optional
  ///   field was not encoded, or the type encodes a key its schema does not have.
  static func encode<T: CodableRecord>(_ value: T, model: CodableModel) throws(ModelError)
    -> Record
  {
    let schema = model.schema
    let fields = FieldsBox(count: schema.fields.count)
    do {
      try value.encode(to: FieldsEncoder(model: model, fields: fields))
    } catch let error as ModelError {
      throw error
    } catch {
      throw ModelError("A '\(schema.model)' does not encode: \(error)")
    }
    if let failure = fields.failure { throw failure }
    for (index, field) in schema.fields.enumerated() where !fields.written[index] {
      guard case .optional = field.type else {
        throw ModelError("Field '\(field.name)' of '\(schema.model)' was not encoded")
      }
    }
    return try Record(schema: schema, id: value.id, values: fields.values)
  }

  /// The field value of `value`, held as `kind` in field `name`.
  static func fieldValue(
    of value: Any, kind: FieldKind, field name: String, model: String
  ) throws(ModelError) -> FieldValue {
    func refuse(_ why: String) -> ModelError {
      ModelError("Field '\(name)' of '\(model)' cannot hold \(value): \(why)")
    }
    switch (kind, value) {
    case (.bool, let flag as Bool): return .bool(flag)
    case (.integer, let integer as any BinaryInteger):
      guard let number = Int64(exactly: integer) else {
        throw refuse("a stored integer is at most \(Int64.max)")
      }
      return .integer(number)
    case (.float, let number as Float): return .double(Double(number))
    case (.double, let number as Double): return .double(number)
    case (.string, let text as String): return .string(text)
    case (.uuid, let uuid as UUID): return .string(uuid.uuidString.lowercased())
    case (.date, let date as Date):
      guard let time = Timestamp(secondsSince1970: date.timeIntervalSince1970) else {
        throw refuse("a date must be finite")
      }
      return .date(time)
    case (.timestamp, let time as Timestamp): return .date(time)
    case (.data, let data as Data): return .bytes(Array(data))
    case (.recordID, let id as RecordID): return .reference(id)
    case (.counter, let counter as Counter): return .counter(counter)
    case (.blob, let blob as BlobRef): return .blob(blob)
    case (.rawValue, let raw as any Encodable):
      let single = SingleFieldEncoder(field: name, model: model)
      do { try raw.encode(to: single) } catch { throw refuse("\(error)") }
      guard let captured = single.box.value else { throw refuse("it encoded no raw value") }
      return captured
    case (.json, let nested as any Encodable):
      return .string(try canonicalJSON(of: nested, field: name, model: model))
    default:
      throw refuse("the field holds \(kind)")
    }
  }

  /// The JSON text of a nested value: as `JSONEncoder` encodes it, read back and written again
  /// with every object's keys in ascending order of their UTF-8 bytes and numbers in shortest
  /// round-trip form, so that one value always gives one text (and one hash).
  static func canonicalJSON(
    of value: any Encodable, field name: String, model: String
  ) throws(ModelError) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    do {
      let data = try encoder.encode(value)
      return JSONWriter.string(sorted(try JSONParser.parse(Array(data))))
    } catch {
      throw ModelError("Field '\(name)' of '\(model)' does not encode as JSON: \(error)")
    }
  }

  private static func sorted(_ json: JSONValue) -> JSONValue {
    switch json {
    case .object(let object):
      .object(
        JSONObject(
          object.map { ($0.key, sorted($0.value)) }
            .sorted { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }))
    case .array(let items): .array(items.map(sorted))
    default: json
    }
  }
}

/// The values written so far (one encode runs on one thread).
private final class FieldsBox {
  var values: [FieldValue]
  var written: [Bool]
  var failure: ModelError?

  init(count: Int) {
    values = Array(repeating: .none, count: count)
    written = Array(repeating: false, count: count)
  }
}

/// The encoder of one record: one keyed container of its fields.
private struct FieldsEncoder: Encoder {
  let model: CodableModel
  let fields: FieldsBox
  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    KeyedEncodingContainer(FieldsContainer<Key>(model: model, fields: fields))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    fields.failure = fields.failure ?? notFlat("a list")
    return DiscardingContainer<DiscardedKey>()
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    fields.failure = fields.failure ?? notFlat("a single value")
    return DiscardingContainer<DiscardedKey>()
  }

  private func notFlat(_ what: String) -> ModelError {
    ModelError("A '\(model.schema.model)' encodes \(what); a record type encodes its fields")
  }
}

/// A record's fields by name; the key `id` is the record's id, written by the record itself.
private struct FieldsContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let model: CodableModel
  let fields: FieldsBox
  var codingPath: [any CodingKey] { [] }

  mutating func encodeNil(forKey key: Key) throws {
    try set(.none, key)
  }

  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
    if model.storesID && key.stringValue == "id" { return }
    guard let kind = model.kinds[key.stringValue] else { throw unknown(key) }
    try set(
      RecordEncoding.fieldValue(
        of: value, kind: kind, field: key.stringValue, model: model.schema.model), key)
  }

  private func set(_ value: FieldValue, _ key: Key) throws {
    guard let index = model.schema.index(of: key.stringValue) else { throw unknown(key) }
    fields.values[index] = value
    fields.written[index] = true
  }

  private func unknown(_ key: Key) -> ModelError {
    ModelError("Model '\(model.schema.model)' has no field '\(key.stringValue)'")
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    fields.failure = fields.failure ?? notField(key)
    return KeyedEncodingContainer(DiscardingContainer<NestedKey>())
  }

  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    fields.failure = fields.failure ?? notField(key)
    return DiscardingContainer<DiscardedKey>()
  }

  mutating func superEncoder() -> any Encoder {
    fields.failure = fields.failure ?? ModelError("A record type encodes no superclass part")
    return SingleFieldEncoder(field: "super", model: model.schema.model)
  }

  mutating func superEncoder(forKey key: Key) -> any Encoder { superEncoder() }

  private func notField(_ key: Key) -> ModelError {
    ModelError(
      "Field '\(key.stringValue)' of '\(model.schema.model)' is encoded as a container; nest a "
        + "Codable value in a property instead")
  }
}

/// Captures the one value a `RawRepresentable` enum encodes (its raw value).
private final class CapturedValue {
  var value: FieldValue?
}

private struct SingleFieldEncoder: Encoder, SingleValueEncodingContainer {
  let field: String
  let model: String
  let box = CapturedValue()
  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    KeyedEncodingContainer(DiscardingContainer<Key>())
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    DiscardingContainer<DiscardedKey>()
  }

  func singleValueContainer() -> any SingleValueEncodingContainer { self }

  mutating func encodeNil() throws { box.value = FieldValue.none }

  mutating func encode<T: Encodable>(_ value: T) throws {
    let kind: FieldKind =
      switch value {
      case is String: .string
      case is any BinaryInteger: .integer(Int64.min...Int64.max)
      default: .json
      }
    guard kind != .json else {
      throw ModelError("Field '\(field)' of '\(model)' takes a String or integer raw value")
    }
    box.value = try RecordEncoding.fieldValue(of: value, kind: kind, field: field, model: model)
  }
}

/// A container that keeps nothing, for a shape a record does not have (the failure is noted).
private struct DiscardingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol,
  UnkeyedEncodingContainer, SingleValueEncodingContainer
{
  var codingPath: [any CodingKey] { [] }
  var count: Int { 0 }
  mutating func encodeNil(forKey key: Key) {}
  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) {}
  mutating func encodeNil() {}
  mutating func encode<T: Encodable>(_ value: T) {}
  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    KeyedEncodingContainer(DiscardingContainer<NestedKey>())
  }
  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type
  ) -> KeyedEncodingContainer<NestedKey> {
    KeyedEncodingContainer(DiscardingContainer<NestedKey>())
  }
  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { self }
  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }
  mutating func superEncoder() -> any Encoder { SingleFieldEncoder(field: "super", model: "") }
  mutating func superEncoder(forKey key: Key) -> any Encoder { superEncoder() }
}

/// The key of a ``DiscardingContainer`` that is not keyed.
private struct DiscardedKey: CodingKey {
  var stringValue: String { "" }
  var intValue: Int? { nil }
  init?(stringValue: String) {}
  init?(intValue: Int) {}
}
