/// A record: a model, a ``RecordID`` and one typed value per field of its ``Schema``.
///
/// Like a CloudKit record, it is generic: stores, the reconciler and the transport work on
/// records, and typed structs such as ``Item`` sit on top. Values are kept in schema order.
public struct Record: Hashable, Sendable, CustomStringConvertible {
  /// The schema the values follow.
  public let schema: Schema
  /// The record's identity.
  public let id: RecordID
  /// One value per field, in schema order.
  public private(set) var values: [FieldValue]

  /// A record with the given values.
  ///
  /// - Parameters:
  ///   - schema: The model's schema.
  ///   - id: The record's id.
  ///   - values: One value per field in schema order, each accepted by its field's type.
  /// - Throws: ``ModelError`` naming the first field whose value does not fit.
  public init(schema: Schema, id: RecordID, values: [FieldValue]) throws(ModelError) {
    guard values.count == schema.fields.count else {
      throw ModelError(
        "A '\(schema.model)' record needs \(schema.fields.count) values, not \(values.count)")
    }
    for (field, value) in zip(schema.fields, values) where !field.type.accepts(value) {
      throw ModelError(
        "Field '\(field.name)' of '\(schema.model)' takes \(field.type), not \(value)")
    }
    self.schema = schema
    self.id = id
    self.values = values
  }

  /// A record with the given values by field name; fields not named are `.none`.
  ///
  /// - Throws: ``ModelError`` for an unknown field name or a value that does not fit.
  public init(schema: Schema, id: RecordID, fields: [String: FieldValue]) throws(ModelError) {
    var values = [FieldValue](repeating: .none, count: schema.fields.count)
    for (name, value) in fields {
      guard let index = schema.index(of: name) else {
        throw ModelError("Model '\(schema.model)' has no field '\(name)'")
      }
      values[index] = value
    }
    try self.init(schema: schema, id: id, values: values)
  }

  /// The model name.
  public var model: String { schema.model }

  /// The key the reconciler and the stores index this record by.
  public var key: RecordKey { RecordKey(model: schema.model, id: id) }

  /// The value of a field, or `nil` when the schema has no such field.
  public subscript(field name: String) -> FieldValue? {
    guard let index = schema.index(of: name) else { return nil }
    return values[index]
  }

  /// Replaces the value of one field.
  ///
  /// - Throws: ``ModelError`` for an unknown field or a value of the wrong type.
  public mutating func set(_ name: String, to value: FieldValue) throws(ModelError) {
    guard let index = schema.index(of: name) else {
      throw ModelError("Model '\(schema.model)' has no field '\(name)'")
    }
    let field = schema.fields[index]
    guard field.type.accepts(value) else {
      throw ModelError("Field '\(name)' of '\(schema.model)' takes \(field.type), not \(value)")
    }
    values[index] = value
  }

  /// This record's synced content with the device-local fields of `receiver`.
  ///
  /// A copy between stores carries every synced field and never the device-local ones: the
  /// receiving side keeps its own (or starts empty when it had no row).
  ///
  /// - Parameter receiver: The row being replaced on the receiving side, if any.
  /// - Returns: The record to write on the receiving side; its hash equals this record's.
  public func copied(keepingDeviceLocalFieldsOf receiver: Record?) -> Record {
    var copy = self
    let kept = receiver.flatMap { $0.schema == schema ? $0.values : nil }
    for (index, field) in schema.fields.enumerated() where field.isDeviceLocal {
      // Only a value that changes is written: a copy whose device-local fields are already
      // what they should be (most copies) shares its values instead of allocating its own.
      let value = kept?[index] ?? .none
      if copy.values[index] != value { copy.values[index] = value }
    }
    return copy
  }

  /// The snapshot hash: SHA-256 of the canonical encoding (device-local fields left out).
  public var snapshotHash: SnapshotHash { SnapshotHash(of: self) }

  public var description: String { "\(schema.model) \(id)" }

  public static func == (lhs: Record, rhs: Record) -> Bool {
    lhs.id == rhs.id && lhs.schema == rhs.schema && lhs.values == rhs.values
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(schema.model)
    hasher.combine(id)
    hasher.combine(values)
  }
}

/// The identity the reconciler works on: a model name and a record id.
public struct RecordKey: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// The model name.
  public let model: String
  /// The record id.
  public let id: RecordID

  /// The key of a record of `model` with `id`.
  public init(model: String, id: RecordID) {
    self.model = model
    self.id = id
  }

  public var description: String { "\(model) \(id)" }

  public static func < (lhs: RecordKey, rhs: RecordKey) -> Bool {
    (lhs.model, lhs.id) < (rhs.model, rhs.id)
  }

  /// Hashes the id alone: ids are random and practically never shared across models, and
  /// hashing the model's text too doubled the cost of every lookup in a large store. Equality
  /// still compares both, so equal keys hash equally.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(id)
  }
}
