import Foundation
import StashBase

/// Reads a ``CodableRecord`` value from a ``Record`` through the type's `Decodable`
/// conformance.
enum RecordDecoding {
  /// The value `record` stores.
  ///
  /// - Throws: ``ModelError`` naming the field when the record is of another model or a
  ///   value does not fit its property.
  static func decode<T: Decodable>(
    _ type: T.Type, from record: Record, model: CodableModel
  ) throws(ModelError) -> T {
    guard record.schema == model.schema else {
      throw ModelError(
        "Record '\(record.id)' is a '\(record.model)', not a '\(model.schema.model)'")
    }
    do {
      return try T(from: FieldsDecoder(record: record, model: model))
    } catch let error as ModelError {
      throw error
    } catch {
      throw ModelError("A '\(record.model)' record '\(record.id)' does not decode: \(error)")
    }
  }

  /// The Swift value of `stored`, held in field `name` as `kind`.
  static func value<T: Decodable>(
    _ type: T.Type, of stored: FieldValue, kind: FieldKind, field name: String, model: String
  ) throws(ModelError) -> T {
    func refuse(_ why: String = "") -> ModelError {
      ModelError("Field '\(name)' of '\(model)' holds \(stored), not a \(T.self)\(why)")
    }
    let found: Any?
    switch (kind, stored) {
    case (.bool, .bool(let flag)): found = flag
    case (.integer, .integer(let number)):
      guard let integer = T.self as? any FixedWidthInteger.Type else { throw refuse() }
      guard let exact = exactly(number, as: integer) else {
        throw refuse(" (out of its range)")
      }
      found = exact
    case (.float, .double(let number)):
      guard let exact = Float(exactly: number) else { throw refuse(" (not exactly a Float)") }
      found = exact
    case (.double, .double(let number)): found = number
    case (.string, .string(let text)): found = text
    case (.uuid, .string(let text)): found = UUID(uuidString: text)
    case (.date, .date(let time)): found = time.date
    case (.timestamp, .date(let time)): found = time
    case (.data, .bytes(let bytes)): found = Data(bytes)
    case (.recordID, .reference(let id)): found = id
    case (.counter, .counter(let counter)): found = counter
    case (.blob, .blob(let blob)): found = blob
    case (.rawValue, .string), (.rawValue, .integer):
      do {
        return try T(from: SingleFieldDecoder(value: stored, field: name, model: model))
      } catch let error as ModelError {
        throw error
      } catch {
        throw refuse()
      }
    case (.json, .string(let text)):
      do {
        return try JSONDecoder().decode(T.self, from: Data(text.utf8))
      } catch {
        throw refuse(" (\(error))")
      }
    default: found = nil
    }
    guard let typed = found as? T else { throw refuse() }
    return typed
  }

  private static func exactly<I: FixedWidthInteger>(_ number: Int64, as type: I.Type) -> Any? {
    I(exactly: number)
  }
}

/// The decoder over one record: one keyed container of its fields.
private struct FieldsDecoder: Decoder {
  let record: Record
  let model: CodableModel
  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedDecodingContainer<Key> {
    KeyedDecodingContainer(FieldsContainer<Key>(record: record, model: model))
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    throw ModelError("A '\(record.model)' record holds fields, not a list")
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer {
    throw ModelError("A '\(record.model)' record holds fields, not a single value")
  }
}

/// A record's fields by name; the key `id` is the record's id when the type stores it.
private struct FieldsContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
  let record: Record
  let model: CodableModel
  var codingPath: [any CodingKey] { [] }

  var allKeys: [Key] {
    let names = (model.storesID ? ["id"] : []) + record.schema.fields.map(\.name)
    return names.compactMap { Key(stringValue: $0) }
  }

  func contains(_ key: Key) -> Bool {
    (model.storesID && key.stringValue == "id") || record[field: key.stringValue] != nil
  }

  func decodeNil(forKey key: Key) throws -> Bool {
    if model.storesID && key.stringValue == "id" { return false }
    return try stored(key) == .none
  }

  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
    if model.storesID && key.stringValue == "id", let id = record.id as? T { return id }
    let value = try stored(key)
    guard let kind = model.kinds[key.stringValue] else { throw unknown(key) }
    if case .none = value {
      throw ModelError("Field '\(key.stringValue)' of '\(record.model)' is absent")
    }
    return try RecordDecoding.value(
      type, of: value, kind: kind, field: key.stringValue, model: record.model)
  }

  private func stored(_ key: Key) throws -> FieldValue {
    guard let value = record[field: key.stringValue] else { throw unknown(key) }
    return value
  }

  private func unknown(_ key: Key) -> ModelError {
    ModelError("Model '\(record.model)' has no field '\(key.stringValue)'")
  }

  func nestedContainer<NestedKey: CodingKey>(
    keyedBy type: NestedKey.Type, forKey key: Key
  ) throws -> KeyedDecodingContainer<NestedKey> {
    throw ModelError("Field '\(key.stringValue)' of '\(record.model)' is not a container")
  }

  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    throw ModelError("Field '\(key.stringValue)' of '\(record.model)' is not a list")
  }

  func superDecoder() throws -> any Decoder {
    throw ModelError("A '\(record.model)' record has no superclass part")
  }

  func superDecoder(forKey key: Key) throws -> any Decoder { try superDecoder() }
}

/// One field's value as a single value: what a `RawRepresentable` enum decodes its raw value
/// from.
private struct SingleFieldDecoder: Decoder, SingleValueDecodingContainer {
  let value: FieldValue
  let field: String
  let model: String
  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    throw ModelError("Field '\(field)' of '\(model)' holds \(value), not a container")
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    throw ModelError("Field '\(field)' of '\(model)' holds \(value), not a list")
  }

  func singleValueContainer() -> any SingleValueDecodingContainer { self }

  func decodeNil() -> Bool { value == .none }

  func decode<T: Decodable>(_ type: T.Type) throws -> T {
    let kind: FieldKind =
      switch value {
      case .integer: .integer(Int64.min...Int64.max)
      default: .string
      }
    return try RecordDecoding.value(type, of: value, kind: kind, field: field, model: model)
  }
}
