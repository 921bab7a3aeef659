import StashBase
public import StashModel

/// The position of a row in the local store: its own identity, separate from the record id.
///
/// Stores do not declare record ids unique, so two rows can carry one id (a diagnostic the
/// reconciler reports); rows are therefore addressed by this number.
public struct RowID: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// The number, unique among the rows of one store file.
  public let rawValue: Int64

  /// Wraps a row number.
  public init(_ rawValue: Int64) { self.rawValue = rawValue }

  public var description: String { "row \(rawValue)" }

  public static func < (lhs: RowID, rhs: RowID) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// One change to the local store: what a transaction's operation line says.
///
/// Writing and opening share this one vocabulary: a save turns changes into lines, an open
/// replays the lines into ``LocalContent`` through the same ``LocalContent/apply(_:)``.
///
/// The rare kinds larger than a row's or a checkpoint's (a conflict, the settings, a damaged
/// row) are boxed: inline, a conflict made every change 168 bytes, in every list a large
/// transaction holds (a 100,000-row import's was 16.8 MB; 112 bytes each now).
public enum LocalChange: Hashable, Sendable {
  /// Insert or replace a row.
  case putRow(RowID, Record, SnapshotHash)
  /// Remove a row.
  case removeRow(RowID)
  /// Insert or replace the tombstone of a key.
  case putTombstone(Tombstone)
  /// Remove the tombstone of a key (a resolution brought the record back).
  case removeTombstone(RecordKey)
  /// Set the checkpoint of a key.
  case putCheckpoint(RecordKey, Checkpoint)
  /// Forget the checkpoint of a key.
  case removeCheckpoint(RecordKey)
  /// Forget every checkpoint and bind the set to another mirror (or none).
  case bindCheckpoints(StoreID?)
  /// Insert or replace a conflict.
  indirect case putConflict(SyncConflict)
  /// Insert or replace a diagnostic.
  case putDiagnostic(Diagnostic)
  /// Remove a diagnostic (the duplicate is gone).
  case removeDiagnostic(RecordKey, Diagnostic.Store)
  /// Replace the device's settings.
  indirect case putSettings(DeviceSettings)
  /// A `put` line read from the file whose row cannot be trusted: set aside, never live (see
  /// ``DamagedRow``). Never built by a save: only reading (and compaction) makes one.
  indirect case damagedRow(DamagedRow)

  /// The key this change concerns, if it concerns one record.
  public var key: RecordKey? {
    switch self {
    case .putRow(_, let record, _): record.key
    case .putTombstone(let tombstone): tombstone.key
    case .removeTombstone(let key), .putCheckpoint(let key, _), .removeCheckpoint(let key),
      .removeDiagnostic(let key, _):
      key
    case .putConflict(let conflict): conflict.key
    case .putDiagnostic(let diagnostic): diagnostic.key
    case .damagedRow(let damaged): damaged.key
    case .removeRow, .bindCheckpoints, .putSettings: nil
    }
  }
}

extension LocalChange {
  /// The operation object written to the log.
  var json: JSONObject {
    switch self {
    case .putRow(let row, let record, let hash):
      return [
        "put": .object([
          "row": .integer(row.rawValue), "model": .string(record.model),
          "id": .string(record.id.rawValue), "hash": .string(hash.hex),
          "fields": .object(record.fieldsJSON()),
        ])
      ]
    case .removeRow(let row):
      return ["remove": .object(["row": .integer(row.rawValue)])]
    case .putTombstone(let tombstone):
      return ["tombstone": .object(tombstone.json)]
    case .removeTombstone(let key):
      return ["untombstone": .object(key.json)]
    case .putCheckpoint(let key, let checkpoint):
      var object = key.json
      object.append("hash", .string(checkpoint.hash.hex))
      object.append("tombstone", .bool(checkpoint.isTombstone))
      if let version = checkpoint.version { object.append("version", .string(version.hex)) }
      return ["checkpoint": .object(object)]
    case .removeCheckpoint(let key):
      return ["uncheckpoint": .object(key.json)]
    case .bindCheckpoints(let mirror):
      return ["bind": .object(["mirror": mirror.map { .string($0.rawValue) } ?? .null])]
    case .putConflict(let conflict):
      return ["conflict": .object(conflict.json)]
    case .putDiagnostic(let diagnostic):
      return ["diagnostic": .object(diagnostic.json)]
    case .removeDiagnostic(let key, let store):
      var object = key.json
      object.append("store", .string(store.rawValue))
      return ["undiagnostic": .object(object)]
    case .putSettings(let settings):
      return ["settings": .object(settings.json)]
    case .damagedRow(let damaged):
      return damaged.operation
    }
  }

  /// Reads an operation object.
  ///
  /// A `put` whose frame is sound (a row number, a model and id, a hash, a fields object) but
  /// whose row cannot be trusted becomes ``damagedRow(_:)`` rather than an error: the rest of
  /// the store still opens. Anything else malformed throws, and the store refuses to open.
  ///
  /// - Parameter line: The line it was read from, for a damaged row.
  /// - Throws: ``ModelError`` saying what is wrong with it.
  init(json: JSONObject, schemas: SchemaRegistry, line: Int = 0) throws(ModelError) {
    guard json.count == 1, let entry = json.first(where: { _ in true }),
      case .object(let body) = entry.value
    else { throw ModelError("An operation must be an object with one key") }
    switch entry.key {
    case "put":
      let key = try RecordKey(json: body)
      lineTreeCensus.note(key.model)
      guard case .integer(let row)? = body["row"],
        case .string(let hashText)? = body["hash"], let hash = SnapshotHash(hex: hashText),
        case .object(let fields)? = body["fields"]
      else { throw ModelError("A 'put' needs 'row', 'hash' and 'fields'") }
      do throws(ModelError) {
        self = .putRow(RowID(row), try Self.trustedRecord(row, key, fields, schemas), hash)
      } catch {
        self = .damagedRow(
          DamagedRow(line: line, row: row, key: key, reason: error.message, operation: json))
      }
    case "remove":
      guard case .integer(let row)? = body["row"] else {
        throw ModelError("A 'remove' needs a 'row'")
      }
      self = .removeRow(RowID(row))
    case "tombstone":
      self = .putTombstone(try Tombstone(json: body))
    case "untombstone":
      self = .removeTombstone(try RecordKey(json: body))
    case "checkpoint":
      if case .string(let model)? = body["model"] { lineTreeCensus.note(model) }
      guard case .string(let hashText)? = body["hash"], let hash = SnapshotHash(hex: hashText),
        case .bool(let isTombstone)? = body["tombstone"]
      else { throw ModelError("A 'checkpoint' needs a 'hash' and 'tombstone'") }
      var version: VersionID?
      if let text = body["version"] {
        guard case .string(let hex) = text, let id = VersionID(hex: hex) else {
          throw ModelError("A checkpoint's 'version' must be 64 hexadecimal digits")
        }
        version = id
      }
      self = .putCheckpoint(
        try RecordKey(json: body),
        Checkpoint(hash: hash, isTombstone: isTombstone, version: version))
    case "uncheckpoint":
      self = .removeCheckpoint(try RecordKey(json: body))
    case "bind":
      switch body["mirror"] {
      case .null?: self = .bindCheckpoints(nil)
      case .string(let text)?:
        guard let id = StoreID(text) else { throw ModelError("A 'bind' needs a mirror UUID") }
        self = .bindCheckpoints(id)
      default: throw ModelError("A 'bind' needs a 'mirror'")
      }
    case "conflict":
      self = .putConflict(try SyncConflict(json: body, schemas: schemas))
    case "diagnostic":
      self = .putDiagnostic(try Diagnostic(json: body))
    case "undiagnostic":
      guard case .string(let text)? = body["store"], let store = Diagnostic.Store(rawValue: text)
      else { throw ModelError("An 'undiagnostic' needs a 'store'") }
      self = .removeDiagnostic(try RecordKey(json: body), store)
    case "settings":
      self = .putSettings(try DeviceSettings(json: body))
    default:
      throw ModelError("Unknown operation '\(entry.key)'")
    }
  }

  /// The record of a `put`, once its row number is in range and the record fits its schema and
  /// passes its model's checks. (Its size is bounded by the line's; saves keep records under
  /// ``RecordLimits/maximumRecordBytes``.)
  private static func trustedRecord(
    _ row: Int64, _ key: RecordKey, _ fields: JSONObject, _ schemas: SchemaRegistry
  ) throws(ModelError) -> Record {
    guard RowID.isValid(row) else {
      throw ModelError("Row number \(row) is outside 1...\(RowID.maximum)")
    }
    let schema = try schemas.schema(for: key.model)
    let record = try Record(schema: schema, id: key.id, fieldsJSON: fields)
    try schema.validate(record)
    return record
  }
}
