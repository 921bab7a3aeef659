import Foundation

/// Finds a ``CodableRecord`` type's fields by running its `init(from:)` against a decoder that
/// notes what is asked for (see ``CodableModel``).
enum SchemaProbe {
  /// One field the probe saw.
  struct Field {
    let name: String
    let kind: FieldKind
    let type: FieldType
    let isOptional: Bool
  }

  /// The fields `type` decodes, in the order it asks for them.
  ///
  /// - Throws: ``ModelError`` when the type decodes something other than a flat keyed
  ///   container, asks for a key twice, or a placeholder for one of its values cannot be made.
  static func fields<T: Decodable>(of type: T.Type, model: String) throws(ModelError) -> [Field] {
    let notes = Notes(model: model)
    do {
      _ = try T(from: ProbeDecoder(notes: notes))
    } catch let error as ModelError {
      throw error
    } catch {
      throw ModelError("'\(model)' cannot be probed for its fields: \(error)")
    }
    return notes.fields
  }

  /// What the probe has seen so far (one probe runs on one thread).
  final class Notes {
    let model: String
    var fields = [Field]()

    init(model: String) { self.model = model }

    func note(_ key: some CodingKey, _ type: Any.Type, optional: Bool) throws(ModelError) {
      guard !fields.contains(where: { $0.name == key.stringValue }) else {
        throw ModelError("'\(model)' decodes the key '\(key.stringValue)' twice")
      }
      let (kind, fieldType) = FieldKind.of(type)
      fields.append(Field(name: key.stringValue, kind: kind, type: fieldType, isOptional: optional))
    }

    func notFlat(_ what: String) -> ModelError {
      ModelError(
        "'\(model)' decodes \(what); a record type decodes its fields from one keyed container "
          + "(nest a Codable value in a property to store it as JSON)")
    }
  }

  /// A placeholder value of `type`, for a non-optional property the probe must hand back.
  static func placeholder<T: Decodable>(_ type: T.Type, model: String) throws -> T {
    let simple: Any? =
      switch type {
      case is Bool.Type: false
      case is String.Type: ""
      case is Double.Type: 0.0
      case is Float.Type: Float(0)
      case is UUID.Type: UUID()
      case is Date.Type: Date(timeIntervalSince1970: 0)
      case is Data.Type: Data()
      case is Timestamp.Type: Timestamp(secondsSince1970: 0)
      case is RecordID.Type: RecordID.make()
      case is Counter.Type: Counter(base: 0)
      case is BlobRef.Type: BlobRef(of: [])
      default: nil
      }
    if let value = simple as? T { return value }
    if let integer = type as? any FixedWidthInteger.Type, let zero = zero(of: integer) as? T {
      return zero
    }
    if let cases = type as? any CaseIterable.Type, let first = firstCase(of: cases) as? T {
      return first
    }
    do {
      return try T(from: PlaceholderDecoder(model: model))
    } catch {
      throw ModelError(
        "'\(model)' cannot be probed: no placeholder for a '\(T.self)' (make it CaseIterable)")
    }
  }

  private static func zero<I: FixedWidthInteger>(of type: I.Type) -> Any { I.zero }

  private static func firstCase<C: CaseIterable>(of type: C.Type) -> Any? { C.allCases.first }
}

/// The decoder of the probe's top level: notes every key.
private struct ProbeDecoder: Decoder {
  let notes: SchemaProbe.Notes
  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedDecodingContainer<Key> {
    KeyedDecodingContainer(ProbeContainer<Key>(notes: notes))
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    throw notes.notFlat("a list")
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer {
    throw notes.notFlat("a single value")
  }
}

/// The probe's keyed container: every key is there, optionals are absent.
private struct ProbeContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
  let notes: SchemaProbe.Notes
  var codingPath: [any CodingKey] { [] }
  var allKeys: [Key] { [] }

  func contains(_ key: Key) -> Bool { true }

  func decodeNil(forKey key: Key) throws -> Bool {
    throw notes.notFlat("'\(key.stringValue)' through decodeNil")
  }

  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
    try notes.note(key, type, optional: false)
    return try SchemaProbe.placeholder(type, model: notes.model)
  }

  func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
    try notes.note(key, type, optional: true)
    return nil
  }

  func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try probe(type, key) }
  func decode(_ type: String.Type, forKey key: Key) throws -> String { try probe(type, key) }
  func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try probe(type, key) }
  func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try probe(type, key) }
  func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try probe(type, key) }
  func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try probe(type, key) }
  func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try probe(type, key) }
  func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try probe(type, key) }
  func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try probe(type, key) }
  func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try probe(type, key) }
  func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try probe(type, key) }
  func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try probe(type, key) }
  func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try probe(type, key) }
  func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try probe(type, key) }

  func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try absent(type, key) }
  func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
    try absent(type, key)
  }
  func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
    try absent(type, key)
  }
  func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
    try absent(type, key)
  }
  func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try absent(type, key) }
  func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try absent(type, key) }
  func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? {
    try absent(type, key)
  }
  func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? {
    try absent(type, key)
  }
  func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
    try absent(type, key)
  }
  func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try absent(type, key) }
  func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? {
    try absent(type, key)
  }
  func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? {
    try absent(type, key)
  }
  func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? {
    try absent(type, key)
  }
  func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? {
    try absent(type, key)
  }

  func nestedContainer<NestedKey: CodingKey>(
    keyedBy type: NestedKey.Type, forKey key: Key
  ) throws -> KeyedDecodingContainer<NestedKey> {
    throw notes.notFlat("a nested container under '\(key.stringValue)'")
  }

  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    throw notes.notFlat("a nested list under '\(key.stringValue)'")
  }

  func superDecoder() throws -> any Decoder { throw notes.notFlat("a superclass") }

  func superDecoder(forKey key: Key) throws -> any Decoder { throw notes.notFlat("a superclass") }

  private func probe<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T {
    try decode(type, forKey: key)
  }

  private func absent<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T? {
    try decodeIfPresent(type, forKey: key)
  }
}
