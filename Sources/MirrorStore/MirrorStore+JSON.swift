public import StashBase
public import StashModel

extension MirrorVersion {
  /// The most parents a version read from a file may name.
  public static let maximumParents = 10_000
  /// The JSON form, as the mirror store and the transport's segments hold it (format 2).
  ///
  /// `{"id", "hash", "parents": [..sorted ids..], "generation", "author", "authoredAt",
  /// "snapshot"}`.
  public var json: JSONObject {
    versionTreeCensus.note(snapshot.key.model)
    return [
      "id": .string(id.hex),
      "hash": .string(hash.hex),
      "parents": .array(parents.sorted().map { .string($0.hex) }),
      "generation": .integer(generation),
      "author": .string(author.rawValue),
      "authoredAt": .double(authoredAt.secondsSince1970),
      "snapshot": .object(snapshot.json),
    ]
  }

  /// Reads a version, in format 2 (with an `id`) or format 1 (without: its id is its snapshot
  /// hash, and its parents name snapshot hashes).
  ///
  /// - Parameters:
  ///   - json: The version's JSON form.
  ///   - schemas: Where records' models are looked up.
  ///   - format: The format the file holding it declares: 1 (versions without ids), or 2 and
  ///     later (with ids); `nil` to tell by the presence of `id` (the mirror store's own
  ///     lines, which an upgrade may mix).
  ///   - verifying: Whether to recompute the snapshot's hash and the id and compare. Versions
  ///     from another device are always verified; the mirror store's own lines, already
  ///     protected by their checksums, are not re-hashed on every open
  ///     (``MirrorContent/checkInvariants()`` recomputes them all).
  /// - Throws: ``ModelError`` for a malformed version, numbers out of range, a version that
  ///   names itself, or a hash or id that does not match (such a version is never applied).
  public init(
    json: JSONObject, schemas: SchemaRegistry, format: Int? = nil, verifying: Bool = true
  ) throws(ModelError) {
    guard case .string(let hashText)? = json["hash"], let hash = SnapshotHash(hex: hashText),
      case .array(let parentValues)? = json["parents"],
      case .integer(let generation)? = json["generation"],
      case .string(let authorText)? = json["author"], let author = DeviceID(authorText),
      let seconds = json["authoredAt"]?.exactDouble,
      let authoredAt = Timestamp(secondsSince1970: seconds),
      case .object(let snapshotJSON)? = json["snapshot"]
    else {
      throw ModelError("A version needs hash, parents, generation, author, authoredAt, snapshot")
    }
    guard parentValues.count <= Self.maximumParents else {
      throw ModelError(
        "Version '\(hash.short)' names \(parentValues.count) parents, more than "
          + "\(Self.maximumParents)")
    }
    var parents = Set<VersionID>()
    for value in parentValues {
      guard case .string(let text) = value, let parent = VersionID(hex: text) else {
        throw ModelError("A version's parents must be 64 hex digits")
      }
      parents.insert(parent)
    }
    let id: VersionID
    switch (format, json["id"]) {
    case (1, .some):
      throw ModelError("Version '\(hash.short)' has an 'id', which format 1 does not know")
    case (1, nil), (nil, nil):
      id = VersionID(naming: hash)
    case (_, .string(let text)?):
      guard let parsed = VersionID(hex: text) else {
        throw ModelError("Version '\(hash.short)' has an 'id' that is not 64 hex digits")
      }
      id = parsed
    default:
      throw ModelError("Version '\(hash.short)' has no 'id'")
    }
    guard !parents.contains(id) else {
      throw ModelError("Version '\(id.short)' names itself as a parent")
    }
    let snapshot = try Snapshot(json: snapshotJSON, schemas: schemas)
    lineTreeCensus.note(snapshot.key.model)
    if verifying {
      let actual = snapshot.hash
      guard actual == hash else {
        throw ModelError(
          "Version '\(hash.short)' of \(snapshot.key) does not match its content "
            + "(the content hashes to '\(actual.short)')")
      }
      if json["id"] != nil {  // format 2: the id must derive, even one equal to the hash
        let derived = VersionID.derive(snapshot: hash, parents: parents)
        guard derived == id else {
          throw ModelError(
            "Version '\(id.short)' of \(snapshot.key) does not match its snapshot and parents "
              + "(they derive '\(derived.short)')")
        }
      }
    }
    self.init(
      snapshot: snapshot, hash: hash, id: id, parents: parents, generation: generation,
      author: author, authoredAt: authoredAt)
  }
}

extension VersionRef {
  /// `{"model", "id", "version"}` (format 1 wrote the snapshot hash as `"hash"`, which is the
  /// id of a format-1 version).
  var json: JSONObject {
    ["model": .string(key.model), "id": .string(key.id.rawValue), "version": .string(id.hex)]
  }

  init(json: JSONObject) throws(ModelError) {
    guard case .string(let model)? = json["model"],
      case .string(let idText)? = json["id"], let id = RecordID(idText),
      case .string(let versionText)? = json["version"] ?? json["hash"],
      let version = VersionID(hex: versionText)
    else { throw ModelError("A version reference needs 'model', 'id' and 'version'") }
    self.init(key: RecordKey(model: model, id: id), id: version)
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
    case .notePeer(let peer):
      return [
        "peer": .object([
          "device": .string(peer.device.rawValue), "name": peer.name.map { .string($0) } ?? .null,
          "wrote": peer.wroteAt.map { .double($0.secondsSince1970) } ?? .null,
        ])
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
        try MirrorVersion(json: body, schemas: schemas, verifying: false), pending: isPending)
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
    case "peer":
      guard case .string(let deviceText)? = body["device"], let device = DeviceID(deviceText)
      else { throw ModelError("A 'peer' needs a 'device'") }
      var name: String?
      if case .string(let text)? = body["name"] { name = text }
      let wrote = body["wrote"]?.exactDouble.flatMap { Timestamp(secondsSince1970: $0) }
      self = .notePeer(Peer(device: device, name: name, wroteAt: wrote))
    default:
      throw ModelError("Unknown operation '\(entry.key)'")
    }
  }
}
