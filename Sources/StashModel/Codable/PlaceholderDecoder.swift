/// A decoder that makes up a value of any shape: zero, empty, absent, the first case.
///
/// The probe hands one back for a nested `Codable` property it must return; the value is
/// thrown away, only the field's type matters.
struct PlaceholderDecoder: Decoder {
  let model: String
  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedDecodingContainer<Key> {
    KeyedDecodingContainer(Keyed<Key>(model: model))
  }

  func unkeyedContainer() -> any UnkeyedDecodingContainer { Unkeyed(model: model) }

  func singleValueContainer() -> any SingleValueDecodingContainer { Single(model: model) }

  private struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let model: String
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { [] }
    func contains(_ key: Key) -> Bool { false }
    func decodeNil(forKey key: Key) -> Bool { true }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
      try SchemaProbe.placeholder(type, model: model)
    }
    func nestedContainer<NestedKey: CodingKey>(
      keyedBy type: NestedKey.Type, forKey key: Key
    ) -> KeyedDecodingContainer<NestedKey> {
      KeyedDecodingContainer(Keyed<NestedKey>(model: model))
    }
    func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedDecodingContainer {
      Unkeyed(model: model)
    }
    func superDecoder() -> any Decoder { PlaceholderDecoder(model: model) }
    func superDecoder(forKey key: Key) -> any Decoder { PlaceholderDecoder(model: model) }
  }

  private struct Unkeyed: UnkeyedDecodingContainer {
    let model: String
    var codingPath: [any CodingKey] { [] }
    var count: Int? { 0 }
    var isAtEnd: Bool { true }
    var currentIndex: Int { 0 }
    mutating func decodeNil() -> Bool { true }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
      try SchemaProbe.placeholder(type, model: model)
    }
    mutating func nestedContainer<NestedKey: CodingKey>(
      keyedBy type: NestedKey.Type
    ) -> KeyedDecodingContainer<NestedKey> {
      KeyedDecodingContainer(Keyed<NestedKey>(model: model))
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedDecodingContainer {
      Unkeyed(model: model)
    }
    mutating func superDecoder() -> any Decoder { PlaceholderDecoder(model: model) }
  }

  private struct Single: SingleValueDecodingContainer {
    let model: String
    var codingPath: [any CodingKey] { [] }
    func decodeNil() -> Bool { false }
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
      try SchemaProbe.placeholder(type, model: model)
    }
  }
}
