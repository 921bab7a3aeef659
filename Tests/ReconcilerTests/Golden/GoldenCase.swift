import Foundation
import JSONLines
import LocalStore
import MirrorStore
import StashBase
import StashModel

/// One golden reconcile case: how its input stores are built, and the steps it plays.
///
/// The inputs are built by this code only when recording (`STASH_RECORD_FIXTURES=1`); a normal
/// run reads the case folder alone, so a case can also be written or edited by hand (see
/// `Fixtures/README.md`, "Reconcile fixtures").
struct GoldenCase: Sendable {
  /// The folder name under `Fixtures/reconcile/`.
  let name: String
  /// What the case shows, for its README.
  let about: String
  /// Builds the input stores.
  let build: @Sendable (CaseBuilder) throws -> Void
  /// What happens to the device.
  var steps: [GoldenStep] = [.importFinished, .flush]
}

/// Fixed identities, so that fixtures are byte-for-byte repeatable.
enum Fixed {
  static let device = DeviceID("00000000-0000-4000-8000-0000000000a1")!
  static let otherDevice = DeviceID("00000000-0000-4000-8000-0000000000b1")!
  static let localStore = StoreID("00000000-0000-4000-8000-00000000105a")!
  static let mirrorStore = StoreID("00000000-0000-4000-8000-00000000c10d")!
  static let otherStore = StoreID("00000000-0000-4000-8000-0000000000ff")!
  static let created = Timestamp(secondsSince1970: 1_764_441_600)!
  /// The clock of every pass and resolution.
  static let now = Timestamp(secondsSince1970: 1_764_445_200)!

  static func id(_ number: Int) -> RecordID {
    RecordID(String(format: "%08x-0000-4000-8000-%012x", number, number))!
  }

  static func time(_ minutes: Double) -> Timestamp {
    Timestamp(secondsSince1970: created.secondsSince1970 + minutes * 60)!
  }
}

/// Builds a case's input stores with the real store code.
final class CaseBuilder {
  let local: LocalStore
  let mirror: MirrorStore

  init(folder: URL) throws {
    let lock = FolderLock(folder: folder.path)
    local = try LocalStore.open(
      folder: folder.path, schemas: InventorySchemas.registry, lock: lock,
      create: .init(
        deviceID: Fixed.device, deviceName: "salon-basement", time: Fixed.created,
        storeID: Fixed.localStore))
    mirror = try MirrorStore.open(
      folder: folder.path, schemas: InventorySchemas.registry, lock: lock,
      create: (Fixed.device, Fixed.created, Fixed.mirrorStore))
  }

  /// An item with a fixed id.
  func item(
    _ number: Int, _ name: String = "Koleston 7/1", quantity: Int64 = 5, minutes: Double = 0,
    photo: BlobRef? = nil
  ) -> Item {
    Item(
      id: Fixed.id(number), name: name, quantity: quantity, unit: "tube", photo: photo,
      createdAt: Fixed.created, updatedAt: Fixed.time(minutes))
  }

  /// An item with a fixed id whose stock is `stock` (moves, or a recount).
  func item(_ number: Int, stock: Counter, minutes: Double) -> Item {
    var item = self.item(number, minutes: minutes)
    item.stock = stock
    return item
  }

  /// A local row.
  func local(_ record: Record) throws {
    try local.update("fixture") { _, transaction in try transaction.insert(record) }
  }

  /// Replaces the local row of `record`'s id (a person's edit).
  func editLocal(_ record: Record) throws {
    try local.update("fixture") { content, transaction in
      try transaction.replace(content.row(for: record.key)!.row, with: record)
    }
  }

  /// Deletes the local row of `key` explicitly (tombstone, then the row).
  @discardableResult
  func deleteLocal(_ key: RecordKey, minutes: Double) throws -> Tombstone {
    try local.update("fixture") { content, transaction in
      transaction.delete(content.row(for: key)!, at: Fixed.time(minutes))
    }
  }

  /// A local tombstone (without a live row).
  func localTombstone(_ tombstone: Tombstone) throws {
    try local.update("fixture") { _, transaction in transaction.putTombstone(tombstone) }
  }

  /// The checkpoint of a record, bound to the mirror.
  func checkpoint(_ snapshot: Snapshot) throws {
    try local.update("fixture", origin: .reconciler) { content, transaction in
      if content.checkpointMirror != mirror.storeID {
        transaction.bindCheckpoints(to: mirror.storeID)
      }
      // Named by the version holding it, as a pass names it (none when the mirror has none).
      let holding = mirror.content.versions(withSnapshot: snapshot.hash, of: snapshot.key)
      transaction.setCheckpoint(
        snapshot.key, to: Checkpoint(snapshot, version: holding.count == 1 ? holding[0].id : nil))
    }
  }

  /// A version in the mirror (by default from the other device, already imported).
  @discardableResult
  func mirror(
    _ snapshot: Snapshot, parents: [Snapshot] = [], author: DeviceID = Fixed.otherDevice,
    minutes: Double = 0
  ) throws -> MirrorVersion {
    try mirror.update { content, transaction in
      // Each parent snapshot names every version holding it (or itself, when none does).
      var ids = Set<VersionID>()
      for parent in parents {
        let holding = content.versions(withSnapshot: parent.hash, of: parent.key)
        ids.formUnion(holding.isEmpty ? [VersionID(naming: parent.hash)] : holding.map(\.id))
      }
      let version = MirrorVersion(
        snapshot: snapshot, parents: ids,
        generation: content.nextGeneration(after: ids, of: snapshot.key), author: author,
        authoredAt: Fixed.time(minutes))
      transaction.merge(version)
      return version
    }
  }

  /// The id of the (one) mirror version holding `record`.
  func versionID(of record: Record) throws -> VersionID {
    guard
      let version = mirror.content.versions(withSnapshot: record.snapshotHash, of: record.key).first
    else { throw ModelError("No mirror version holds \(record)") }
    return version.id
  }

  /// A version from the other device over the given parent ids (which may not be here).
  @discardableResult
  func mirror(_ snapshot: Snapshot, over parents: Set<VersionID>) throws -> MirrorVersion {
    try mirror.update { content, transaction in
      let version = MirrorVersion(
        snapshot: snapshot, parents: parents,
        generation: content.nextGeneration(after: parents, of: snapshot.key) + 1,
        author: Fixed.otherDevice, authoredAt: Fixed.time(30))
      transaction.merge(version)
      return version
    }
  }

  /// A record both sides agreed on: the local row, the mirror's version and the checkpoint.
  func agreed(_ record: Record) throws {
    try local(record)
    try mirror(.record(record), author: Fixed.device)
    try checkpoint(.record(record))
  }
}

/// One step of a case.
enum GoldenStep: Hashable, Sendable {
  /// A mirror event; `store` is `"mirror"` (this device's) or `"other"`.
  case event(MirrorEvent.Kind, MirrorEvent.Phase, failure: String?, store: String)
  /// A person's save of these records (the edit itself is already in the input store).
  case save([RecordKey])
  case flush
  case background
  case foreground
  /// A new process: a new coordinator, its gate closed.
  case restart(bootstrapFlag: Bool)
  /// The next write to the local store fails.
  case failNextLocalWrite
  /// Resolves the oldest open conflict.
  case resolve(keep: String)
  /// A version of the other device's arrives in the mirror (imported late).
  case arrive(MirrorVersion)

  static let importFinished = GoldenStep.event(.import, .finished, failure: nil, store: "mirror")

  var json: JSONValue {
    switch self {
    case .event(let kind, let phase, let failure, let store):
      var body: JSONObject = [
        "kind": .string(kind.rawValue), "phase": .string(phase.rawValue), "store": .string(store),
      ]
      if let failure { body.append("failure", .string(failure)) }
      return .object(["event": .object(body)])
    case .save(let keys):
      return .object(["save": .array(keys.map { .object($0.json) })])
    case .flush: return .object(["flush": .bool(true)])
    case .background: return .object(["background": .bool(true)])
    case .foreground: return .object(["foreground": .bool(true)])
    case .restart(let flag): return .object(["restart": .object(["bootstrapFlag": .bool(flag)])])
    case .failNextLocalWrite: return .object(["failNextLocalWrite": .bool(true)])
    case .resolve(let keep): return .object(["resolve": .object(["keep": .string(keep)])])
    case .arrive(let version): return .object(["arrive": .object(version.json)])
    }
  }

  init(json: JSONValue) throws {
    guard case .object(let object) = json,
      let (name, body) = object.first.map({ ($0.key, $0.value) })
    else { throw ModelError("A step is an object with one key") }
    switch (name, body) {
    case ("event", .object(let event)):
      guard case .string(let kind)? = event["kind"],
        let eventKind = MirrorEvent.Kind(rawValue: kind),
        case .string(let phase)? = event["phase"],
        let eventPhase = MirrorEvent.Phase(rawValue: phase),
        case .string(let store)? = event["store"]
      else { throw ModelError("An event needs kind, phase and store") }
      var failure: String?
      if case .string(let text)? = event["failure"] { failure = text }
      self = .event(eventKind, eventPhase, failure: failure, store: store)
    case ("save", .array(let keys)):
      self = .save(
        try keys.map { value in
          guard case .object(let key) = value else { throw ModelError("A saved key is an object") }
          return try RecordKey(json: key)
        })
    case ("flush", _): self = .flush
    case ("background", _): self = .background
    case ("foreground", _): self = .foreground
    case ("restart", .object(let options)):
      self = .restart(bootstrapFlag: options["bootstrapFlag"] == .bool(true))
    case ("failNextLocalWrite", _): self = .failNextLocalWrite
    case ("resolve", .object(let options)):
      guard case .string(let keep)? = options["keep"] else {
        throw ModelError("resolve needs keep")
      }
      self = .resolve(keep: keep)
    case ("arrive", .object(let version)):
      self = .arrive(try MirrorVersion(json: version, schemas: InventorySchemas.registry))
    default:
      throw ModelError("Unknown step '\(name)'")
    }
  }
}

extension JSONObject {
  /// The first member.
  var first: (key: String, value: JSONValue)? {
    var iterator = makeIterator()
    return iterator.next()
  }
}
