package import StashBase

/// One field of a schema: its name, type, and whether it belongs to this device only.
public struct FieldSpec: Hashable, Sendable {
  /// The field's name, as written in store lines and in the canonical encoding.
  public let name: String
  /// The field's type.
  public let type: FieldType
  /// A device-local field is neither hashed nor copied between stores (a reminder's
  /// notification identifier belongs to the device that scheduled the notification).
  public let isDeviceLocal: Bool
  /// For a reference: what deleting the record it names does to the record holding it.
  public let deleteRule: DeleteRule

  /// Describes one field.
  ///
  /// - Parameters:
  ///   - name: The field's name.
  ///   - type: Its type.
  ///   - deviceLocal: Whether it belongs to this device only (see ``isDeviceLocal``).
  ///   - onDelete: For a synced reference (``FieldType/reference(model:)``, or an optional
  ///     one for ``DeleteRule/nullify``): what deleting the record it names does.
  public init(
    _ name: String, _ type: FieldType, deviceLocal: Bool = false, onDelete: DeleteRule = .none
  ) {
    self.name = name
    self.type = type
    self.isDeviceLocal = deviceLocal
    self.deleteRule = onDelete
  }

  /// The model this field refers to, if it is a reference (or an optional one).
  public var referencedModel: String? {
    switch type {
    case .reference(let model), .optional(.reference(let model)): model
    default: nil
    }
  }
}

/// What deleting a record does to the records whose reference field names it, applied in
/// the transaction of the delete (so it travels as one unit with it).
///
/// It applies to the records this device holds when it deletes; a record that arrives later
/// naming a deleted one dangles, as every reference may (it is reported, never followed
/// blindly).
public enum DeleteRule: String, Hashable, Sendable, CaseIterable {
  /// Nothing: the references dangle.
  case none
  /// The records naming it are deleted too (and their own rules apply in turn).
  case cascade
  /// The reference is cleared (the field must be optional), and the record's change time,
  /// if its schema has one, set to the delete's.
  case nullify
  /// The delete is refused while a live record names it.
  case deny
}

/// The ordered fields of one model.
///
/// A schema fixes the order in which fields are hashed. Stores, the reconciler and the
/// transport work on records and schemas only; the inventory's three models are schemas, and
/// another tool can embed the engine with schemas of its own.
public final class Schema: Hashable, Sendable, CustomStringConvertible {
  /// The checks a record of a model must pass beyond its field types (ranges, non-empty
  /// names), the same for a local edit and for a version that arrives from another device.
  public typealias Validator = @Sendable (Record) throws(ModelError) -> Void

  /// The model name, such as `"item"`.
  public let model: String
  /// The model's version, from 1: a tool raises it when a new release changes what its
  /// records hold. A device folder records the versions it was written with, and a tool that
  /// knows only an older version of a model refuses the folder (see the README's "A folder
  /// knows whose it is"). Not part of the schema's identity.
  public let version: Int
  /// The fields in canonical order.
  public let fields: [FieldSpec]
  /// The JSON text `"name":` of each field, in order, written once for the schema rather
  /// than for every record (``Record/appendFieldsJSON(to:)``).
  let fieldKeys: FieldKeys
  /// What a record's canonical encoding starts with (``CanonicalEncoding``): the version,
  /// `'R'` and the model, written once for the schema.
  let canonicalHead: [UInt8]
  /// How many fields a record's canonical encoding holds: those that are not device-local.
  let canonicalFieldCount: UInt32
  /// Each field's name as the canonical encoding writes it, in order; `nil` for a
  /// device-local field (not encoded).
  let canonicalFieldNames: [[UInt8]?]
  /// The positions of the fields that may hold a photo: what a walk over every record for its
  /// photos reads, instead of every value of every record.
  package let blobIndices: [Int]
  private let indexByName: [String: Int]
  private let validator: Validator?
  /// The position of the field that records when a record last changed, if the schema has
  /// one: concurrent versions that differ only there (and in counters) merge, taking the
  /// latest.
  public let changeTimeIndex: Int?
  /// The position of the field that names one real thing (an item's barcode, a meter's MAC
  /// address), if the schema declares one: rows of different ids with one value there are
  /// duplicates that a repair merges in place.
  public let candidateKeyIndex: Int?
  /// The positions of the fields a person names a record by (an item's name, a reminder's
  /// message), in declared order: the lookups, labels and the local index search these, and
  /// no other field (see ``Record/lookupNames``).
  public let lookupIndices: [Int]
  /// The positions of the fields a query may select by (``Schema/init(model:version:fields:changeTime:candidateKey:lookup:indexed:mergeGroups:validate:)``'s
  /// `indexed`), and of every reference with a delete rule (whose inverse lookup the rule
  /// needs), in field order: the local store keeps, for each, which rows hold each value.
  public let indexedIndices: [Int]
  /// What concurrent versions merge by, in field order: every synced field on its own, except
  /// the fields of a declared group (a location's latitude, longitude and radius), which merge
  /// as one. The change time is not a unit (the latest wins).
  public let mergeUnits: [MergeUnit]

  /// Describes a model.
  ///
  /// - Parameters:
  ///   - model: A non-empty name.
  ///   - version: The model's version (see ``version``), at least 1.
  ///   - fields: Distinct names; device-local fields must be optional, since the receiving
  ///     side of a copy starts them empty.
  ///   - changeTime: The name of a date field that records when a record last changed
  ///     (`updatedAt`): versions that differ only in it and in their counters merge.
  ///   - candidateKey: The name of a field that identifies one real thing (see
  ///     ``candidateKeyIndex``).
  ///   - lookup: The synced text fields a person names a record by, in the order a label
  ///     prefers them (see ``lookupIndices``); none: found by its id only. Not part of the
  ///     schema's identity.
  ///   - indexed: The fields queries select by (equality and ranges; see
  ///     ``indexedIndices``): synced text, integer, double, date, bool or reference fields,
  ///     or optional ones. Not part of the schema's identity.
  ///   - mergeGroups: Fields that only make sense together (coordinates and their radius, a
  ///     lease's holder and times): when two devices change such a group at the same time,
  ///     one side's values are kept for all of them or the group is in conflict, never a mix.
  ///     Each names synced fields that are neither counters nor the change time, none twice.
  ///   - validate: The model's own checks of a record (see ``validate(_:)``); not part of the
  ///     schema's identity.
  /// - Throws: ``ModelError`` when the description breaks those rules.
  public init(
    model: String, version: Int = 1, fields: [FieldSpec], changeTime: String? = nil,
    candidateKey: String? = nil, lookup: [String] = [], indexed: [String] = [],
    mergeGroups: [[String]] = [], validate: Validator? = nil
  ) throws(ModelError) {
    guard !model.isEmpty else { throw ModelError("A schema needs a model name") }
    guard version >= 1 else {
      throw ModelError("The version of '\(model)' must be 1 or more, not \(version)")
    }
    var index = [String: Int]()
    for (position, field) in fields.enumerated() {
      guard index.updateValue(position, forKey: field.name) == nil else {
        throw ModelError("Schema '\(model)' declares field '\(field.name)' twice")
      }
      if field.isDeviceLocal, case .optional = field.type {
      } else if field.isDeviceLocal {
        throw ModelError("Device-local field '\(field.name)' of '\(model)' must be optional")
      }
    }
    if let changeTime {
      guard let position = index[changeTime], fields[position].type == .date else {
        throw ModelError("The change time of '\(model)' must name one of its date fields")
      }
    }
    if let candidateKey {
      guard let position = index[candidateKey], !fields[position].isDeviceLocal else {
        throw ModelError("The candidate key of '\(model)' must name one of its synced fields")
      }
    }
    self.fieldKeys = FieldKeys(names: fields.map(\.name))
    self.canonicalHead = CanonicalEncoding.head(model: model)
    self.canonicalFieldNames = fields.map(CanonicalEncoding.fieldName)
    self.blobIndices = fields.indices.filter { fields[$0].type.isBlob }
    self.canonicalFieldCount = UInt32(fields.count { !$0.isDeviceLocal })
    self.lookupIndices = try Self.lookupIndices(of: model, lookup, fields: fields, index: index)
    self.indexedIndices = try Self.indexedIndices(of: model, indexed, fields: fields, index: index)
    for field in fields where field.isDeviceLocal && field.type.isCounter {
      throw ModelError("Counter '\(field.name)' of '\(model)' cannot be device-local")
    }
    for field in fields where field.deleteRule != .none {
      guard field.referencedModel != nil, !field.isDeviceLocal else {
        throw ModelError(
          "The delete rule of '\(field.name)' of '\(model)' needs a synced reference field")
      }
      if field.deleteRule == .nullify, case .reference = field.type {
        throw ModelError(
          "'\(field.name)' of '\(model)' must be an optional reference to be nullified")
      }
    }
    self.model = model
    self.version = version
    self.fields = fields
    self.indexByName = index
    self.validator = validate
    self.changeTimeIndex = changeTime.flatMap { index[$0] }
    self.candidateKeyIndex = candidateKey.flatMap { index[$0] }
    self.mergeUnits = try MergeUnit.units(
      of: model, fields: fields, groups: mergeGroups, index: index,
      changeTime: changeTime.flatMap { index[$0] })
  }

  /// The names of the fields a person names a record by (see ``lookupIndices``).
  public var lookupFields: [String] { lookupIndices.map { fields[$0].name } }

  /// The positions of the counter fields.
  public var counterIndices: [Int] {
    fields.indices.filter { fields[$0].type.isCounter }
  }

  /// The position of a field, or `nil` when the schema has no such field.
  public func index(of name: String) -> Int? { indexByName[name] }

  /// Checks a record of this model the way a local edit is checked: its values already fit
  /// their types (``Record`` guarantees that); this runs the model's own rules.
  ///
  /// Every version that arrives from another device passes through here before it is applied
  /// or passed on, so a hostile or buggy writer cannot make an invalid record live.
  ///
  /// - Throws: ``ModelError`` naming the field, as the model's validation words it.
  public func validate(_ record: Record) throws(ModelError) {
    validationCensus.note(model)
    guard record.schema == self else {
      throw ModelError("Record '\(record.id)' is a '\(record.model)', not a '\(model)'")
    }
    try validator?(record)
  }

  public var description: String { "schema '\(model)'" }

  private static func lookupIndices(
    of model: String, _ lookup: [String], fields: [FieldSpec], index: [String: Int]
  ) throws(ModelError) -> [Int] {
    var positions = [Int]()
    for name in lookup {
      guard let position = index[name], !fields[position].isDeviceLocal,
        fields[position].type == .string || fields[position].type == .optional(.string)
      else {
        throw ModelError("The lookup field '\(name)' of '\(model)' must name a synced text field")
      }
      guard !positions.contains(position) else {
        throw ModelError("Schema '\(model)' declares lookup field '\(name)' twice")
      }
      positions.append(position)
    }
    return positions
  }

  private static func indexedIndices(
    of model: String, _ indexed: [String], fields: [FieldSpec], index: [String: Int]
  ) throws(ModelError) -> [Int] {
    var positions = Set<Int>()
    for name in indexed {
      guard let position = index[name] else {
        throw ModelError("The indexed field '\(name)' is not a field of '\(model)'")
      }
      let field = fields[position]
      var type = field.type
      if case .optional(let wrapped) = type { type = wrapped }
      let indexable: Bool
      switch type {
      case .string, .integer, .double, .date, .bool, .reference: indexable = true
      default: indexable = false
      }
      guard indexable, !field.isDeviceLocal else {
        throw ModelError(
          "The indexed field '\(name)' of '\(model)' must be a synced text, number, date, "
            + "bool or reference field")
      }
      positions.insert(position)
    }
    for (position, field) in fields.enumerated() where field.deleteRule != .none {
      positions.insert(position)
    }
    return positions.sorted()
  }

  public static func == (lhs: Schema, rhs: Schema) -> Bool {
    lhs === rhs || (lhs.model == rhs.model && lhs.fields == rhs.fields)
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(model)
    hasher.combine(fields)
  }
}

/// The schemas a process knows, by model name.
public struct SchemaRegistry: Sendable {
  /// Every registered schema, by model name.
  public private(set) var schemas: [String: Schema] = [:]

  /// An empty registry.
  public init() {}

  /// A registry holding the given schemas.
  ///
  /// - Throws: ``ModelError`` when two schemas share a model name.
  public init(_ schemas: [Schema]) throws(ModelError) {
    for schema in schemas { try register(schema) }
  }

  /// Adds a schema.
  ///
  /// - Throws: ``ModelError`` when a different schema is already registered under its name.
  public mutating func register(_ schema: Schema) throws(ModelError) {
    if let existing = schemas[schema.model], existing != schema {
      throw ModelError("Model '\(schema.model)' is registered twice with different fields")
    }
    schemas[schema.model] = schema
  }

  /// The schema of a model.
  ///
  /// - Throws: ``ModelError`` naming the model when it is unknown.
  public func schema(for model: String) throws(ModelError) -> Schema {
    guard let schema = schemas[model] else {
      throw ModelError("Unknown model '\(model)'; this version knows \(knownModels)")
    }
    return schema
  }

  /// The registered model names, sorted.
  public var models: [String] { schemas.keys.sorted() }

  private var knownModels: String {
    models.map { "'\($0)'" }.joined(separator: ", ")
  }
}

/// How many records ``Schema/validate(_:)`` checked, by model, while a test watched
/// (``Census``): an import checks each arriving record once (issue 26, item 5).
package let validationCensus = Census()
