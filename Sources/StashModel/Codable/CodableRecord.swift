/// A Swift type stored as a ``Record`` of one schema: what a folder's typed calls (`save`,
/// `update`, `all`, `fetch`, `delete`) take.
///
/// Adopt ``CodableRecord`` to declare the fields once through `Codable`, or
/// ``RecordConvertible`` to write the mapping by hand.
public protocol RecordRepresentable: Sendable {
  /// The schema every value of this type is stored with.
  static var schema: Schema { get }
  /// The record's id.
  var id: RecordID { get }
  /// Reads a value from its record.
  ///
  /// - Throws: ``ModelError`` when the record is of another model or a field does not fit.
  init(record: Record) throws(ModelError)
  /// The record that stores this value, in ``schema`` order.
  ///
  /// - Throws: ``ModelError`` naming the field when a value cannot be stored (a `UInt64`
  ///   above `Int64.max`, a `Double` that is not finite).
  func makeRecord() throws(ModelError) -> Record
}

/// A record type whose fields are declared once, as its `Codable` properties.
///
/// The schema, the encoding and the decoding all come from the type's `Codable` conformance
/// (usually the synthesized one) and a ``RecordDeclaration`` of what a coder cannot know:
///
/// ```swift
/// struct Round: CodableRecord {
///   static let model = "round"
///   static let declaration = RecordDeclaration(
///     changeTime: "updatedAt", references: ["fight": "fight"])
///   var id: RecordID
///   var fight: RecordID
///   var number: Int8
///   var scores: [Int16]  // a nested Codable value: canonical JSON text
///   var updatedAt: Date
/// }
/// ```
///
/// The fields are the coding keys, in the order the type decodes them (declaration order for
/// a synthesized conformance); the key `id`, when the type stores one, is the record's id and
/// not a field. Each property's type gives the field's type: `Bool`; every integer width
/// (`.integer`, range-checked both ways); `Double` and `Float` (`.double`); `String`;
/// `UUID` (`.string`, lowercase); `Date` and ``Timestamp`` (`.date`); `Data` (`.bytes`);
/// ``Counter`` (`.counter`); ``BlobRef`` (`.blob`, bytes kept beside the store); ``RecordID`` (`.reference`, to the model the declaration names);
/// a `RawRepresentable` enum with a `String` or integer raw value (its raw value); optionals
/// of all these; and any other `Codable` value as canonical JSON text (`.string`).
public protocol CodableRecord: RecordRepresentable, Codable {
  /// The model name, such as `"round"`.
  static var model: String { get }
  /// What the coder cannot know: the change time, references, lookup fields, device-local
  /// fields, the candidate key, merge groups and the model's own checks.
  static var declaration: RecordDeclaration { get }
}

extension CodableRecord {
  /// No change time, references, lookups or checks.
  public static var declaration: RecordDeclaration { RecordDeclaration() }

  /// The schema derived from the type and its declaration (see ``derivedSchema()``).
  ///
  /// A declaration that breaks the rules (a reference to no field, a `RecordID` field whose
  /// model is not named) is a programming error, reported here by stopping the program with
  /// the reason; call ``derivedSchema()`` to get it as an error instead.
  public static var schema: Schema {
    do {
      return try derivedSchema()
    } catch {
      fatalError("\(Self.self) cannot be stored: \(error.message)")
    }
  }

  /// The schema derived from the type and its declaration, computed once per type.
  ///
  /// - Throws: ``ModelError`` when the type cannot be stored as declared.
  public static func derivedSchema() throws(ModelError) -> Schema {
    try CodableModel.of(Self.self).schema
  }

  /// Reads a value from its record through the type's `Decodable` conformance.
  ///
  /// - Throws: ``ModelError`` naming the field when the record is of another model or a value
  ///   does not fit (an integer out of its type's range, text that is not a case of an enum).
  public init(record: Record) throws(ModelError) {
    self = try RecordDecoding.decode(Self.self, from: record, model: CodableModel.of(Self.self))
  }

  /// The record that stores this value, through the type's `Encodable` conformance.
  ///
  /// - Throws: ``ModelError`` naming the field when a value cannot be stored.
  public func makeRecord() throws(ModelError) -> Record {
    try RecordEncoding.encode(self, model: CodableModel.of(Self.self))
  }
}

/// What a `Codable` record type declares beside its properties: what a coder cannot know.
///
/// Every name is a field's coding key. A ``Counter`` property needs no declaration (its type
/// says it is a counter); a ``RecordID`` property other than `id` needs its model named in
/// `references`.
public struct RecordDeclaration: Sendable {
  /// The date field that records when a record last changed (see ``Schema``).
  public var changeTime: String?
  /// The model each reference field refers to, by field name.
  public var references: [String: String]
  /// The text fields a person names a record by, in label order.
  public var lookup: [String]
  /// Fields that belong to this device only (each must be optional).
  public var deviceLocal: Set<String>
  /// The field that names one real thing (a barcode, a MAC address).
  public var candidateKey: String?
  /// Fields that merge as one (coordinates and their radius).
  public var mergeGroups: [[String]]
  /// The model's own checks, run after the range checks of its integer fields.
  public var validate: Schema.Validator?
  /// The model's version (see ``Schema/version``).
  public var version: Int
  /// The fields queries select by (see ``Schema/indexedIndices``).
  public var indexed: [String]
  /// What deleting the record a reference names does, by reference field (see
  /// ``DeleteRule``).
  public var onDelete: [String: DeleteRule]

  /// Declares what the coder cannot know; every parameter is optional (see ``Schema``'s
  /// initializer for what each one means).
  public init(
    changeTime: String? = nil, references: [String: String] = [:], lookup: [String] = [],
    deviceLocal: Set<String> = [], candidateKey: String? = nil, mergeGroups: [[String]] = [],
    version: Int = 1, indexed: [String] = [], onDelete: [String: DeleteRule] = [:],
    validate: Schema.Validator? = nil
  ) {
    self.changeTime = changeTime
    self.references = references
    self.lookup = lookup
    self.deviceLocal = deviceLocal
    self.candidateKey = candidateKey
    self.mergeGroups = mergeGroups
    self.validate = validate
    self.version = version
    self.indexed = indexed
    self.onDelete = onDelete
  }
}
