import Foundation
import Synchronization

/// How a property of a ``CodableRecord`` type is held in its field.
enum FieldKind: Sendable, Equatable {
  case bool
  /// An integer of a width whose values lie in the range (`Int64` holds every one).
  case integer(ClosedRange<Int64>)
  case float
  case double
  case string
  case uuid
  case date
  case timestamp
  case data
  case recordID
  case counter
  case blob
  /// A `RawRepresentable` value, held as its raw value (a `String` or an integer).
  case rawValue
  /// Any other `Codable` value, held as canonical JSON text.
  case json
}

/// What a ``CodableRecord`` type was found to hold: its schema and how each field is held.
///
/// It is derived once per type by a probing decode (``SchemaProbe``): the type's own
/// `init(from:)` runs against a decoder that answers every request with a placeholder and
/// notes the key, the Swift type and whether it was asked for as an optional. A synthesized
/// conformance asks for every stored property in declaration order, which becomes the field
/// order. The probe needs no instance and sees optionals that are `nil` (an encode of a
/// sample would skip them).
final class CodableModel: Sendable {
  /// The schema the type's values are stored with.
  let schema: Schema
  /// How each field is held, by field name.
  let kinds: [String: FieldKind]
  /// Whether the type stores its id as the coding key `id` (else it computes it).
  let storesID: Bool

  init(schema: Schema, kinds: [String: FieldKind], storesID: Bool) {
    self.schema = schema
    self.kinds = kinds
    self.storesID = storesID
  }

  private static let cache = Mutex<[ObjectIdentifier: Result<CodableModel, ModelError>]>([:])

  /// The model of `type`, derived on first use and kept.
  ///
  /// - Throws: ``ModelError`` when the type cannot be stored as declared.
  static func of<T: CodableRecord>(_ type: T.Type) throws(ModelError) -> CodableModel {
    let key = ObjectIdentifier(type)
    if let known = cache.withLock({ $0[key] }) { return try known.get() }
    let derived: Result<CodableModel, ModelError>
    do {
      derived = .success(try derive(type))
    } catch {
      derived = .failure(error)
    }
    // Two threads may derive at once; both derive the same, and the first one kept wins so
    // that every caller shares one schema instance.
    let kept = cache.withLock { cache in
      if let first = cache[key] { return first }
      cache[key] = derived
      return derived
    }
    return try kept.get()
  }

  private static func derive<T: CodableRecord>(_ type: T.Type) throws(ModelError) -> CodableModel {
    let model = T.model
    let declaration = T.declaration
    let probed = try SchemaProbe.fields(of: type, model: model)
    var fields = [FieldSpec]()
    var kinds = [String: FieldKind]()
    var storesID = false
    for field in probed {
      if field.name == "id" {
        guard field.kind == .recordID, !field.isOptional else {
          throw ModelError(
            "The key 'id' of '\(model)' is the record's id; declare it as a non-optional RecordID")
        }
        storesID = true
        continue
      }
      var fieldType = field.type
      if field.kind == .recordID {
        guard let target = declaration.references[field.name] else {
          throw ModelError(
            "Field '\(field.name)' of '\(model)' is a RecordID; name the model it refers to in "
              + "the declaration's references")
        }
        fieldType = .reference(model: target)
      }
      kinds[field.name] = field.kind
      fields.append(
        FieldSpec(
          field.name, field.isOptional ? .optional(fieldType) : fieldType,
          deviceLocal: declaration.deviceLocal.contains(field.name),
          onDelete: declaration.onDelete[field.name] ?? .none))
    }
    for name in declaration.onDelete.keys.sorted() where declaration.references[name] == nil {
      throw ModelError("The delete rule of '\(name)' of '\(model)' must name one of its references")
    }
    for name in declaration.references.keys.sorted() where kinds[name] != .recordID {
      throw ModelError("The reference '\(name)' of '\(model)' must name one of its RecordID fields")
    }
    for name in declaration.deviceLocal.sorted() where kinds[name] == nil {
      throw ModelError("The device-local field '\(name)' of '\(model)' names no field")
    }
    let ranges = fields.compactMap { field -> (String, ClosedRange<Int64>)? in
      guard case .integer(let range)? = kinds[field.name], range != Int64.min...Int64.max else {
        return nil
      }
      return (field.name, range)
    }
    let schema = try Schema(
      model: model, version: declaration.version, fields: fields,
      changeTime: declaration.changeTime, candidateKey: declaration.candidateKey,
      lookup: declaration.lookup, indexed: declaration.indexed,
      mergeGroups: declaration.mergeGroups,
      validate: validator(ranges: ranges, then: declaration.validate))
    return CodableModel(schema: schema, kinds: kinds, storesID: storesID)
  }

  /// Checks that every integer field of a narrower width holds a value of that width, so a
  /// version from another device that no value of the type could have written is refused on
  /// arrival instead of becoming a row that no longer decodes; then the model's own checks.
  private static func validator(
    ranges: [(String, ClosedRange<Int64>)], then validate: Schema.Validator?
  ) -> Schema.Validator? {
    guard !ranges.isEmpty else { return validate }
    return { record throws(ModelError) in
      for (name, range) in ranges {
        guard case .integer(let number)? = record[field: name], !range.contains(number) else {
          continue
        }
        throw ModelError(
          "Field '\(name)' of '\(record.model)' holds \(number), outside "
            + "\(range.lowerBound)...\(range.upperBound)")
      }
      try validate?(record)
    }
  }
}

extension FieldKind {
  /// The kind and schema type of a property of Swift type `type`, decided from the type alone.
  static func of(_ type: Any.Type) -> (kind: FieldKind, type: FieldType) {
    switch type {
    case is Bool.Type: return (.bool, .bool)
    case is Float.Type: return (.float, .double)
    case is Double.Type: return (.double, .double)
    case is String.Type: return (.string, .string)
    case is UUID.Type: return (.uuid, .string)
    case is Date.Type: return (.date, .date)
    case is Timestamp.Type: return (.timestamp, .date)
    case is Data.Type: return (.data, .bytes)
    case is RecordID.Type: return (.recordID, .reference(model: ""))
    case is Counter.Type: return (.counter, .counter)
    case is BlobRef.Type: return (.blob, .blob)
    default: break
    }
    if let integer = type as? any FixedWidthInteger.Type {
      return (.integer(range(of: integer)), .integer)
    }
    if let raw = type as? any RawRepresentable.Type, let rawType = rawFieldType(of: raw) {
      return (.rawValue, rawType)
    }
    return (.json, .string)
  }

  /// The values of an integer type that an `Int64` holds (all of them but a `UInt64`'s upper
  /// half).
  static func range<I: FixedWidthInteger>(of type: I.Type) -> ClosedRange<Int64> {
    Int64(clamping: I.min)...Int64(clamping: I.max)
  }

  private static func rawFieldType<R: RawRepresentable>(of type: R.Type) -> FieldType? {
    switch R.RawValue.self {
    case is String.Type: .string
    case is any FixedWidthInteger.Type: .integer
    default: nil
    }
  }
}
