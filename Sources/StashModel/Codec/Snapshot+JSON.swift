public import StashBase

extension Tombstone {
  /// The JSON form: `{"model", "id", "deletedAt", "deletedHash"}`.
  public var json: JSONObject {
    [
      "model": .string(model),
      "id": .string(id.rawValue),
      "deletedAt": .double(deletedAt.secondsSince1970),
      "deletedHash": .string(deletedHash.hex),
    ]
  }

  /// Reads a tombstone from its JSON form.
  ///
  /// - Throws: ``ModelError`` naming what is missing or malformed.
  public init(json: JSONObject) throws(ModelError) {
    guard case .string(let model)? = json["model"], !model.isEmpty else {
      throw ModelError("A tombstone needs a 'model'")
    }
    guard case .string(let idText)? = json["id"], let id = RecordID(idText) else {
      throw ModelError("A tombstone needs an 'id' that is a lowercase UUID")
    }
    guard let seconds = json["deletedAt"]?.exactDouble,
      let deletedAt = Timestamp(secondsSince1970: seconds)
    else { throw ModelError("Tombstone of '\(idText)' needs a 'deletedAt' time") }
    guard case .string(let hashText)? = json["deletedHash"],
      let deletedHash = SnapshotHash(hex: hashText)
    else { throw ModelError("Tombstone of '\(idText)' needs a 'deletedHash' of 64 hex digits") }
    self.init(model: model, id: id, deletedAt: deletedAt, deletedHash: deletedHash)
  }
}

extension Snapshot {
  /// The JSON form: a record as `{"kind": "record", "model", "id", "fields"}`, a tombstone as
  /// `{"kind": "tombstone", "model", "id", "deletedAt", "deletedHash"}`.
  public var json: JSONObject {
    switch self {
    case .record(let record):
      return [
        "kind": .string("record"),
        "model": .string(record.model),
        "id": .string(record.id.rawValue),
        "fields": .object(record.fieldsJSON()),
      ]
    case .tombstone(let tombstone):
      var object: JSONObject = ["kind": .string("tombstone")]
      for (key, value) in tombstone.json { object.append(key, value) }
      return object
    }
  }

  /// Reads a snapshot from its JSON form.
  ///
  /// - Parameters:
  ///   - json: The object written by ``json``.
  ///   - schemas: Where a record's model is looked up.
  /// - Throws: ``ModelError`` for an unknown kind or model, or a malformed record.
  public init(json: JSONObject, schemas: SchemaRegistry) throws(ModelError) {
    switch json["kind"] {
    case .string("record")?:
      guard case .string(let model)? = json["model"] else {
        throw ModelError("A record snapshot needs a 'model'")
      }
      guard case .string(let idText)? = json["id"], let id = RecordID(idText) else {
        throw ModelError("A '\(model)' snapshot needs an 'id' that is a lowercase UUID")
      }
      guard case .object(let fields)? = json["fields"] else {
        throw ModelError("The '\(model)' snapshot '\(idText)' has no 'fields' object")
      }
      let schema = try schemas.schema(for: model)
      self = .record(try Record(schema: schema, id: id, fieldsJSON: fields))
    case .string("tombstone")?:
      self = .tombstone(try Tombstone(json: json))
    default:
      throw ModelError("A snapshot's 'kind' must be 'record' or 'tombstone'")
    }
  }
}
