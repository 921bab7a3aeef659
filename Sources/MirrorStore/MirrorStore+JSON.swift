public import StashModel

extension MirrorVersion {
  /// The JSON form, as the mirror store and the transport's segments hold it.
  ///
  /// `{"hash", "parents": [..sorted..], "generation", "author", "authoredAt", "snapshot"}`.
  public var json: JSONObject {
    [
      "hash": .string(hash.hex),
      "parents": .array(parents.sorted().map { .string($0.hex) }),
      "generation": .integer(generation),
      "author": .string(author.rawValue),
      "authoredAt": .double(authoredAt.secondsSince1970),
      "snapshot": .object(snapshot.json),
    ]
  }

  /// Reads a version and checks that its hash matches its snapshot.
  ///
  /// - Parameters:
  ///   - json: The version's JSON form.
  ///   - schemas: Where records' models are looked up.
  ///   - verifyingHash: Whether to recompute the snapshot's hash and compare. Versions from
  ///     another device are always verified; the mirror store's own lines, already protected by
  ///     their checksums, are not re-hashed on every open (``MirrorContent/checkInvariants()``
  ///     recomputes them all).
  /// - Throws: ``ModelError`` for a malformed version or a hash that does not match its
  ///   payload (which is never applied).
  public init(json: JSONObject, schemas: SchemaRegistry, verifyingHash: Bool = true)
    throws(ModelError)
  {
    guard case .string(let hashText)? = json["hash"], let hash = SnapshotHash(hex: hashText),
      case .array(let parentValues)? = json["parents"],
      case .integer(let generation)? = json["generation"], generation >= 1,
      case .string(let authorText)? = json["author"], let author = DeviceID(authorText),
      let seconds = json["authoredAt"]?.exactDouble,
      let authoredAt = Timestamp(secondsSince1970: seconds),
      case .object(let snapshotJSON)? = json["snapshot"]
    else {
      throw ModelError("A version needs hash, parents, generation, author, authoredAt, snapshot")
    }
    var parents = Set<SnapshotHash>()
    for value in parentValues {
      guard case .string(let text) = value, let parent = SnapshotHash(hex: text) else {
        throw ModelError("A version's parents must be hashes")
      }
      parents.insert(parent)
    }
    let snapshot = try Snapshot(json: snapshotJSON, schemas: schemas)
    if verifyingHash {
      let actual = snapshot.hash
      guard actual == hash else {
        throw ModelError(
          "Version '\(hash.short)' of \(snapshot.key) does not match its content "
            + "(the content hashes to '\(actual.short)')")
      }
    }
    self.init(
      snapshot: snapshot, hash: hash, parents: parents, generation: generation, author: author,
      authoredAt: authoredAt)
  }
}

extension VersionRef {
  var json: JSONObject {
    ["model": .string(key.model), "id": .string(key.id.rawValue), "hash": .string(hash.hex)]
  }

  init(json: JSONObject) throws(ModelError) {
    guard case .string(let model)? = json["model"],
      case .string(let idText)? = json["id"], let id = RecordID(idText),
      case .string(let hashText)? = json["hash"], let hash = SnapshotHash(hex: hashText)
    else { throw ModelError("A version reference needs 'model', 'id' and 'hash'") }
    self.init(key: RecordKey(model: model, id: id), hash: hash)
  }
}

extension MirrorChange {
  var json: JSONObject {
    switch self {
    case .addVersion(let version, let isPending):
      var body = version.json
      body.append("pending", .bool(isPending))
      return ["version": .object(body)]
    case .markExported(let refs, let segment):
      return [
        "exported": .object([
          "segment": .string(segment), "versions": .array(refs.map { .object($0.json) }),
        ])
      ]
    case .markRead(let segment):
      return ["read": .object(["segment": .string(segment)])]
    case .markExporting(let segment, let export):
      return ["exporting": .object(["segment": .string(segment), "export": .string(export)])]
    case .bindZone(let zone):
      return ["zone": .object(["id": .string(zone)])]
    case .recordTransfer(let kind, let time):
      return [
        "transfer": .object(["kind": .string(kind.rawValue), "at": .double(time.secondsSince1970)])
      ]
    }
  }

  init(json: JSONObject, schemas: SchemaRegistry) throws(ModelError) {
    guard json.count == 1, let entry = json.first(where: { _ in true }),
      case .object(let body) = entry.value
    else { throw ModelError("An operation must be an object with one key") }
    switch entry.key {
    case "version":
      guard case .bool(let isPending)? = body["pending"] else {
        throw ModelError("A 'version' needs 'pending'")
      }
      self = .addVersion(
        try MirrorVersion(json: body, schemas: schemas, verifyingHash: false), pending: isPending)
    case "exported":
      guard case .string(let segment)? = body["segment"],
        case .array(let values)? = body["versions"]
      else { throw ModelError("An 'exported' needs 'segment' and 'versions'") }
      var refs = [VersionRef]()
      for value in values {
        guard case .object(let object) = value else {
          throw ModelError("Expected a version reference")
        }
        refs.append(try VersionRef(json: object))
      }
      self = .markExported(refs, segment: segment)
    case "read":
      guard case .string(let segment)? = body["segment"] else {
        throw ModelError("A 'read' needs a 'segment'")
      }
      self = .markRead(segment: segment)
    case "exporting":
      guard case .string(let segment)? = body["segment"], case .string(let export)? = body["export"]
      else { throw ModelError("An 'exporting' needs 'segment' and 'export'") }
      self = .markExporting(segment: segment, export: export)
    case "zone":
      guard case .string(let zone)? = body["id"] else { throw ModelError("A 'zone' needs an 'id'") }
      self = .bindZone(zone)
    case "transfer":
      guard case .string(let kindText)? = body["kind"],
        let kind = MirrorEvent.Kind(rawValue: kindText), let seconds = body["at"]?.exactDouble,
        let time = Timestamp(secondsSince1970: seconds)
      else { throw ModelError("A 'transfer' needs 'kind' and 'at'") }
      self = .recordTransfer(kind, at: time)
    default:
      throw ModelError("Unknown operation '\(entry.key)'")
    }
  }
}
