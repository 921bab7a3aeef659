public import StashBase

extension RecordKey {
  /// `{"model", "id"}`.
  public var json: JSONObject { ["model": .string(model), "id": .string(id.rawValue)] }

  public init(json: JSONObject) throws(ModelError) {
    guard case .string(let model)? = json["model"], !model.isEmpty,
      case .string(let idText)? = json["id"], let id = RecordID(idText)
    else { throw ModelError("Expected a 'model' and an 'id' that is a lowercase UUID") }
    self.init(model: model, id: id)
  }
}

extension SyncConflict {
  /// The JSON form, as the local store's lines hold it.
  public var json: JSONObject {
    var json: JSONObject = [
      "id": .string(id.rawValue),
      "model": .string(key.model),
      "recordID": .string(key.id.rawValue),
      "kind": .string(kind.rawValue),
      "noticedAt": .double(noticedAt.secondsSince1970),
      "state": .string(state.rawValue),
      "sides": .array(sides.map { .object($0.json) }),
    ]
    // Written only when known (format 4), so that a conflict without fields reads as before.
    if !fields.isEmpty { json["fields"] = .array(fields.map { .string($0) }) }
    json["resolution"] = resolution.map { .object($0.json) } ?? .null
    return json
  }

  public init(json: JSONObject, schemas: SchemaRegistry) throws(ModelError) {
    guard case .string(let idText)? = json["id"], let id = ConflictID(idText),
      case .string(let model)? = json["model"],
      case .string(let recordText)? = json["recordID"], let recordID = RecordID(recordText),
      case .string(let kindText)? = json["kind"], let kind = ConflictKind(rawValue: kindText),
      let noticed = json["noticedAt"]?.exactDouble,
      let noticedAt = Timestamp(secondsSince1970: noticed),
      case .string(let stateText)? = json["state"], let state = ConflictState(rawValue: stateText),
      case .array(let sideValues)? = json["sides"]
    else { throw ModelError("A conflict needs id, model, recordID, kind, noticedAt, state, sides") }
    var sides = [ConflictSide]()
    for value in sideValues {
      guard case .object(let side) = value else { throw ModelError("A conflict side is an object") }
      sides.append(try ConflictSide(json: side, schemas: schemas))
    }
    var resolution: ConflictResolution?
    if case .object(let body)? = json["resolution"] {
      resolution = try ConflictResolution(json: body)
    }
    var fields = [String]()
    if let listed = json["fields"] {
      guard case .array(let names) = listed else {
        throw ModelError("A conflict's 'fields' must be a list of field names")
      }
      for name in names {
        guard case .string(let field) = name else {
          throw ModelError("A conflict's 'fields' must be a list of field names")
        }
        fields.append(field)
      }
    }
    self.init(
      id: id, key: RecordKey(model: model, id: recordID), kind: kind, sides: sides,
      fields: fields, noticedAt: noticedAt, state: state, resolution: resolution)
  }
}

extension ConflictSide {
  /// The JSON form, as the local store's lines hold it.
  public var json: JSONObject {
    [
      "origin": .string(origin.rawValue),
      "snapshot": snapshot.map { .object($0.json) } ?? .null,
      "author": author.map { .string($0.rawValue) } ?? .null,
    ]
  }

  public init(json: JSONObject, schemas: SchemaRegistry) throws(ModelError) {
    guard case .string(let originText)? = json["origin"], let origin = Origin(rawValue: originText)
    else { throw ModelError("A conflict side needs an 'origin' of local or mirror") }
    var snapshot: Snapshot?
    if case .object(let body)? = json["snapshot"] {
      snapshot = try Snapshot(json: body, schemas: schemas)
    }
    var author: DeviceID?
    if case .string(let text)? = json["author"] { author = DeviceID(text) }
    self.init(origin: origin, snapshot: snapshot, author: author)
  }
}

extension ConflictResolution {
  /// The JSON form, as the local store's lines hold it.
  public var json: JSONObject {
    [
      "choice": .string(choice), "at": .double(at.secondsSince1970),
      "by": .string(by.rawValue), "result": result.map { .string($0.hex) } ?? .null,
    ]
  }

  public init(json: JSONObject) throws(ModelError) {
    guard case .string(let choice)? = json["choice"], let seconds = json["at"]?.exactDouble,
      let at = Timestamp(secondsSince1970: seconds),
      case .string(let byText)? = json["by"], let by = DeviceID(byText)
    else { throw ModelError("A resolution needs 'choice', 'at' and 'by'") }
    var result: SnapshotHash?
    if case .string(let text)? = json["result"] { result = SnapshotHash(hex: text) }
    self.init(choice: choice, at: at, by: by, result: result)
  }
}

extension Diagnostic {
  /// The JSON form, as the local store's lines hold it.
  public var json: JSONObject {
    var object = key.json
    object.append("store", .string(store.rawValue))
    object.append("rows", .integer(Int64(rows)))
    object.append("noticedAt", .double(noticedAt.secondsSince1970))
    return object
  }

  public init(json: JSONObject) throws(ModelError) {
    guard case .string(let storeText)? = json["store"], let store = Store(rawValue: storeText),
      case .integer(let rows)? = json["rows"], let seconds = json["noticedAt"]?.exactDouble,
      let noticedAt = Timestamp(secondsSince1970: seconds)
    else { throw ModelError("A diagnostic needs 'store', 'rows' and 'noticedAt'") }
    self.init(key: try RecordKey(json: json), store: store, rows: Int(rows), noticedAt: noticedAt)
  }
}

extension DeviceSettings {
  /// The JSON form, as the local store's lines hold it.
  public var json: JSONObject {
    var json: JSONObject = [
      "name": .string(name), "entitlement": .string(entitlement.rawValue),
      "cloudFolder": cloudFolder.map { .string($0) } ?? .null,
    ]
    // Written only once a step is done, so that stores without one read as before.
    if !stepsDone.isEmpty { json["stepsDone"] = .array(stepsDone.sorted().map { .string($0) }) }
    // Numbers as decimal text: an inode may not fit a JSON integer's 63 bits.
    if let folder = folderIdentity {
      var identity: JSONObject = [
        "device": .string(String(folder.device)), "inode": .string(String(folder.inode)),
      ]
      if let born = folder.born { identity["born"] = .string(born) }
      json["folder"] = .object(identity)
    }
    return json
  }

  public init(json: JSONObject) throws(ModelError) {
    guard case .string(let name)? = json["name"],
      case .string(let entitlementText)? = json["entitlement"],
      let entitlement = Entitlement(rawValue: entitlementText)
    else { throw ModelError("Settings need a 'name' and a known 'entitlement'") }
    var cloudFolder: String?
    if case .string(let text)? = json["cloudFolder"] { cloudFolder = text }
    var steps = Set<String>()
    if case .array(let names)? = json["stepsDone"] {
      for case .string(let name) in names { steps.insert(name) }
    }
    var folderIdentity: FolderIdentity?
    if let folder = json["folder"] {
      guard case .object(let body) = folder, case .string(let device)? = body["device"],
        let deviceNumber = UInt64(device), case .string(let inode)? = body["inode"],
        let inodeNumber = UInt64(inode)
      else { throw ModelError("Settings' 'folder' needs a 'device' and an 'inode' number") }
      var born: String?
      if let value = body["born"] {
        guard case .string(let text) = value else {
          throw ModelError("Settings' 'folder' birth time must be text")
        }
        born = text
      }
      folderIdentity = FolderIdentity(device: deviceNumber, inode: inodeNumber, born: born)
    }
    self.init(
      name: name, entitlement: entitlement, cloudFolder: cloudFolder, stepsDone: steps,
      folderIdentity: folderIdentity)
  }
}
