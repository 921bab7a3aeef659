import StashBase

extension RecordID {
  /// The id every device derives for the same model and natural key, so that two devices
  /// meeting the same thing (a meter with one MAC address) agree on its record id without
  /// talking to each other.
  ///
  /// The derivation (documented with a golden vector in `Fixtures/README.md`, section 2.5):
  /// SHA-256 of the UTF-8 bytes of `stash.record-id` `0x00` model `0x00` key; its first 16
  /// bytes, with the high nibble of byte 6 set to `8` (a version 8 UUID, RFC 9562) and the two
  /// high bits of byte 8 set to `10` (the RFC variant), written as a lowercase UUID.
  ///
  /// The key is taken as given: normalize it first (lowercase, one separator) so that every
  /// spelling of one thing gives one id. Random ids (``make()``) are version 4, so the two
  /// kinds never collide.
  ///
  /// - Parameters:
  ///   - model: The model name, such as `"meter"`.
  ///   - naturalKey: The normalized natural key, such as `"aa:bb:cc:dd:ee:ff"`.
  /// - Returns: The derived id.
  public static func derived(model: String, naturalKey: String) -> RecordID {
    var hasher = SHA256()
    hasher.update(Array("stash.record-id".utf8) + [0] + Array(model.utf8) + [0])
    hasher.update(Array(naturalKey.utf8))
    var bytes = Array(hasher.finalize().bytes.prefix(16))
    bytes[6] = bytes[6] & 0x0F | 0x80
    bytes[8] = bytes[8] & 0x3F | 0x80
    let hex = bytes.map { byte in
      let digits = Array("0123456789abcdef")
      return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }.joined()
    let text = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { range in
      String(hex.dropFirst(range.lowerBound).prefix(range.count))
    }.joined(separator: "-")
    return RecordID(text)!
  }

  /// Whether this id was made by ``derived(model:naturalKey:)`` (a version 8 UUID) rather
  /// than at random.
  public var isDerived: Bool {
    rawValue.utf8[rawValue.utf8.index(rawValue.utf8.startIndex, offsetBy: 14)] == UInt8(ascii: "8")
  }
}

/// A Swift type stored as a ``Record`` of one schema: the inventory's `Item`, `Location` and
/// `Reminder` adopt it, and so can a tool's own models.
///
/// ```swift
/// struct Note: RecordConvertible {
///   static let schema = try! Schema(model: "note", fields: [FieldSpec("text", .string)])
///   var id: RecordID
///   var text: String
///   init(record: Record) throws(ModelError) {
///     id = record.id
///     guard case .string(let text)? = record[field: "text"] else {
///       throw ModelError("A note needs a text")
///     }
///     self.text = text
///   }
///   var record: Record { try! Record(schema: Self.schema, id: id, values: [.string(text)]) }
/// }
/// ```
///
/// A type that declares its fields once through `Codable` adopts ``CodableRecord`` instead.
public protocol RecordConvertible: RecordRepresentable {
  /// The record that stores this value, in ``RecordRepresentable/schema`` order.
  var record: Record { get }
}

extension RecordConvertible {
  /// ``record``: a hand-written mapping cannot fail.
  public func makeRecord() throws(ModelError) -> Record { record }
}

extension Item: RecordConvertible {
  /// ``InventorySchemas/item``.
  public static var schema: Schema { InventorySchemas.item }
}

extension Location: RecordConvertible {
  /// ``InventorySchemas/location``.
  public static var schema: Schema { InventorySchemas.location }
}

extension Reminder: RecordConvertible {
  /// ``InventorySchemas/reminder``.
  public static var schema: Schema { InventorySchemas.reminder }
}
