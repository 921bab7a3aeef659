// MirrorStore: the mirror, `cloud.store`.
//
// It holds mirrored records and tombstones as a graph of versions per record, the store
// identifier that mirror events name, what the transport needs (pending exports, segments
// read, the zone it is bound to), and the `MirrorEvent` type. It knows nothing of checkpoints
// and must never import LocalStore.

public import JSONLines
import StashBase
public import StashFiles
public import StashModel
import Synchronization

/// The mirror of one device folder: the copy a transport replicates.
///
/// It is created only when sync was entitled when the folder was opened. Reading and saving
/// work as in the local store: reads from memory, saves under the folder's lock after
/// catching up, applied only once durable.
public final class MirrorStore: Sendable {
  /// The file name inside a device folder.
  public static let fileName = "cloud.store"

  /// The file and its replayed content.
  public let file: LogStore<MirrorContent>
  /// What followed the last commit when opening: set aside (opened for writing) or ignored
  /// (opened for reading), if anything.
  public let droppedTail: TailReport?
  /// Whether opening used the index (``open(folder:schemas:lock:create:access:compaction:focus:indexPolicy:fileSystem:)``).
  public let indexUse: IndexUse
  /// When the index is written and used.
  public let indexPolicy: IndexPolicy
  /// How many times this store's saves wrote the index.
  let savedIndexWrites = Mutex(0)
  /// Versions this process saved whose hash and id it computed, or checked, from these very
  /// snapshots in this run (``MirrorTransaction/checkedIdentities``), as saved, until the next
  /// ``verify(_:)``: it checks only their records' models (see ``UntrustedVersion``). Each
  /// save's changes are kept as they are, not copied out: a first sync's pass notes every
  /// version it writes, and the export that checks them follows the local store's write.
  let checkedIdentities = Mutex<[SavedIdentities]>([])

  private init(
    file: LogStore<MirrorContent>, droppedTail: TailReport?, indexUse: IndexUse,
    indexPolicy: IndexPolicy
  ) {
    self.file = file
    self.droppedTail = droppedTail
    self.indexUse = indexUse
    self.indexPolicy = indexPolicy
  }

  /// Opens the mirror of a device folder.
  ///
  /// - Parameters:
  ///   - folder: The device folder.
  ///   - schemas: The models records follow.
  ///   - lock: The folder's lock.
  ///   - create: When the file is missing, create it for this device at this time (with a
  ///     new random store id unless one is given); `nil` to fail with ``LogError/missing(_:)``.
  ///   - access: Writing, or reading: the file is then not changed (nor created) until a save
  ///     has something to write.
  ///   - compaction: When saves compact the file.
  ///   - focus: The records a caller needs (a sync over the few records that changed):
  ///     with an index that still describes the file, the content holds every version of
  ///     these records (and of those with pending versions or versions after the index),
  ///     and everything else the mirror holds but versions whole; ``MirrorContent/isComplete``
  ///     is then `false`. `nil` (the default) reads the whole file. Without a usable index
  ///     the whole file is read either way, and ``indexUse`` says why.
  ///   - indexPolicy: When the index is written and used.
  ///   - sharing: Records the versions read from the whole file share when they hold an
  ///     equal one (the local store's rows; see ``RecordSharing``): the caller ends it once
  ///     this returns.
  ///   - fileSystem: The file-system seam.
  /// - Throws: ``LogError``: missing, damaged, too new, busy, unreadable.
  public static func open(
    folder: String, schemas: SchemaRegistry, lock: FolderLock,
    create: (deviceID: DeviceID, time: Timestamp, storeID: StoreID?)? = nil,
    access: StoreAccess = .writing, compaction: CompactionPolicy = .standard,
    focus: Set<RecordKey>? = nil, indexPolicy: IndexPolicy = .standard,
    sharing: RecordSharing? = nil, fileSystem: any FileSystem = POSIXFileSystem()
  ) throws(LogError) -> MirrorStore {
    let path = folder + "/" + fileName
    var use = IndexUse.notAsked
    if let focus {
      switch try openFromIndex(
        path: path, focus: focus, schemas: schemas, lock: lock, access: access,
        compaction: compaction, policy: indexPolicy, fileSystem: fileSystem)
      {
      case .opened(let file, let tail, let tailBytes):
        return MirrorStore(
          file: file, droppedTail: tail, indexUse: .used(tailBytes: tailBytes),
          indexPolicy: indexPolicy)
      case .ignored(let reason):
        use = .ignored(reason)
      }
    }
    let creation = create.map { create in
      LogStore<MirrorContent>.Creation(
        header: LogHeader(
          format: MirrorContent.format, version: MirrorContent.version,
          storeID: create.storeID ?? .make(), deviceID: create.deviceID, created: create.time))
    }
    let (file, _, tail) = try LogStore<MirrorContent>.openOrCreate(
      path: path, lock: lock, context: MirrorContent.Context(schemas: schemas, sharing: sharing),
      creation: creation,
      access: access, compaction: compaction, fileSystem: fileSystem)
    let store = MirrorStore(
      file: file, droppedTail: tail, indexUse: use, indexPolicy: indexPolicy)
    store.maintainIndex()
    return store
  }

  /// The mirror's identifier, which mirror events name.
  public var storeID: StoreID { file.header.storeID }

  /// The store file's path.
  public var path: String { file.path }

  /// A copy of everything the mirror holds.
  public var content: MirrorContent { file.content }

  /// Saves one transaction built against the freshest content.
  ///
  /// - Parameter body: Reads the content and adds changes; if it throws, nothing is written.
  /// - Returns: What `body` returns.
  /// - Throws: ``SaveError/refused(_:)`` with what `body` threw, or ``SaveError/store(_:)``
  ///   with the ``LogStoreError``.
  @discardableResult
  public func update<T, E: Error>(
    _ body: (MirrorContent, inout MirrorTransaction) throws(E) -> T
  ) throws(SaveError<LogStoreError, E>) -> T {
    var checked = [(index: Int, modelChecked: Bool)]()
    let saved = try file.update { content throws(E) in
      var transaction = MirrorTransaction(content: content)
      let result = try body(content, &transaction)
      checked = transaction.checkedIdentities
      return (result, transaction.changes)
    }
    if !saved.changes.isEmpty {
      if !checked.isEmpty { noteCheckedIdentities(checked, in: saved.changes) }
      compactFocusedIfDue()
      maintainIndexAfterSave()
    }
    return saved.result
  }

  /// Catches up with what other processes committed.
  ///
  /// - Throws: ``LogStoreError/read(_:)``.
  public func refresh() throws(LogStoreError) { try file.refresh() }
}

/// The changes one save of the mirror will write.
public struct MirrorTransaction: Sendable {
  /// The changes, in order.
  public private(set) var changes: [MirrorChange] = []
  /// The content as it was when the save began (never changed here, so never copied).
  private let content: MirrorContent
  /// Generations of the versions this transaction added, so later writes build on them; it
  /// holds those of ``changes`` before ``addedIndexed``, and is brought up to date only by a
  /// write that names parents (a first sync's writes name none, and an import only merges: a
  /// table of a million versions was built for nothing).
  private var added: [VersionRef: Int64] = [:]
  /// How many of ``changes`` are in ``added``.
  private var addedIndexed = 0
  /// Where in ``changes`` the versions added here are whose hash and id this process computed
  /// from their snapshots (``write(_:author:at:)``) or checked against them
  /// (``merge(_:identityChecked:modelChecked:)``), and whether it checked the record against
  /// its model too.
  private(set) var checkedIdentities = [(index: Int, modelChecked: Bool)]()

  init(content: MirrorContent) {
    self.content = content
  }

  /// Writes a new version from this device (pending export until the transport sends it).
  ///
  /// - Parameters:
  ///   - snapshot: The record or tombstone.
  ///   - parents: The versions it replaces (for a copy from the local store: every leaf whose
  ///     snapshot is the checkpoint).
  ///   - author: This device.
  ///   - time: When it was written.
  /// - Returns: The version.
  @discardableResult
  public mutating func write(
    _ snapshot: Snapshot, parents: Set<VersionID>, author: DeviceID, at time: Timestamp
  ) -> MirrorVersion {
    write([(snapshot, parents)], author: author, at: time)[0]
  }

  /// Writes a new version of each snapshot, in order, exactly as one
  /// ``write(_:parents:author:at:)`` after another would; the snapshots are hashed and the
  /// versions' ids derived on every core (``Parallel``).
  ///
  /// - Returns: The versions.
  @discardableResult
  public mutating func write(
    _ writes: [(snapshot: Snapshot, parents: Set<VersionID>)], author: DeviceID,
    at time: Timestamp
  ) -> [MirrorVersion] {
    write(writes.map { ($0.snapshot, $0.parents, nil, nil) }, author: author, at: time)
  }

  /// Writes a new version of each snapshot, as ``write(_:author:at:)``
  /// does, taking the snapshot hash (and the version id) given beside a snapshot instead of
  /// computing them again.
  ///
  /// - Parameter writes: Each snapshot, its parents, and its hash when this process already
  ///   computed it from this snapshot's synced content, or checked it against that content
  ///   (the reconciler passes a row's stored hash, which the pass checked against the row's
  ///   record before writing anything); `nil` to compute it here. A wrong hash would make a
  ///   version other devices reject: never pass one read from disk unchecked. With a hash,
  ///   `id` may give the version id this process derived from that hash and these parents
  ///   (``VersionID/derive(snapshot:parents:)``: the reconciler's version graph did, for
  ///   every version it copies); it is ignored without one.
  /// - Returns: The versions.
  @discardableResult
  public mutating func write(
    _ writes: [(snapshot: Snapshot, parents: Set<VersionID>, hash: SnapshotHash?, id: VersionID?)],
    author: DeviceID, at time: Timestamp
  ) -> [MirrorVersion] {
    // Room for many at once (a first sync writes a version of every record in one call); a
    // few are left to grow as usual (an exact reservation at every call would copy at every
    // call).
    if writes.count >= 1_024 { changes.reserveCapacity(changes.count + writes.count) }
    let identities = Parallel.map(count: writes.count) { index in
      let write = writes[index]
      if let hash = write.hash, let id = write.id {
        assert(id == VersionID.derive(snapshot: hash, parents: write.parents))
        return (hash, id)
      }
      derivationCensus.note(write.snapshot.key.model)
      let hash = write.hash ?? write.snapshot.hash
      return (hash, VersionID.derive(snapshot: hash, parents: write.parents))
    }
    return zip(writes, identities).map { write, identity in
      self.write(
        write.snapshot, hash: identity.0, id: identity.1, parents: write.parents, author: author,
        at: time)
    }
  }

  /// Writes the version of `snapshot` whose hash and id were derived from it and `parents`.
  private mutating func write(
    _ snapshot: Snapshot, hash: SnapshotHash, id: VersionID, parents: Set<VersionID>,
    author: DeviceID, at time: Timestamp
  ) -> MirrorVersion {
    let key = snapshot.key
    var addedHere: Int64 = 0
    if !parents.isEmpty {
      indexAdded()
      addedHere = parents.compactMap { added[VersionRef(key: key, id: $0)] }.max() ?? 0
    }
    let generation = max(
      content.nextGeneration(after: parents, of: key), addedHere == .max ? .max : addedHere + 1)
    let version = MirrorVersion(
      snapshot: snapshot, hash: hash, id: id, parents: parents, generation: generation,
      author: author, authoredAt: time)
    add(.addVersion(version, pending: true))
    checkedIdentities.append((changes.count - 1, false))
    return version
  }

  /// Merges a version that arrived from another device (not to be exported again).
  ///
  /// - Parameters:
  ///   - version: The version.
  ///   - identityChecked: Whether this process checked the version's hash against its
  ///     snapshot and its id against its hash and parents, from the bytes it read (an import
  ///     reading a segment does): the next ``MirrorStore/verify(_:)`` then does not again.
  ///   - modelChecked: Whether this process also checked its record against its model
  ///     (``Schema/validate(_:)``, as an import does); only with `identityChecked`.
  public mutating func merge(
    _ version: MirrorVersion, identityChecked: Bool = false, modelChecked: Bool = false
  ) {
    add(.addVersion(version, pending: false))
    if identityChecked { checkedIdentities.append((changes.count - 1, modelChecked)) }
  }

  /// Marks versions as exported in `segment`.
  public mutating func markExported(_ refs: [VersionRef], segment: String) {
    add(.markExported(refs, segment: segment))
  }

  /// Records the export identifier of a segment about to be published.
  public mutating func markExporting(segment: String, export: String) {
    add(.markExporting(segment: segment, export: export))
  }

  /// Marks a segment as read.
  public mutating func markRead(segment: String) {
    add(.markRead(segment: segment))
  }

  /// Binds the mirror to a zone.
  public mutating func bindZone(_ zone: String) {
    add(.bindZone(zone))
  }

  /// Notes what a segment said of another device (only when it is news).
  public mutating func notePeer(_ peer: Peer) {
    add(.notePeer(peer))
  }

  /// Records a finished, successful transfer.
  public mutating func recordTransfer(_ kind: MirrorEvent.Kind, at time: Timestamp) {
    add(.recordTransfer(kind, at: time))
  }

  /// Records a change. A version's device-local fields are cleared first: they belong to the
  /// device that set them and never travel, whoever writes the version.
  private mutating func add(_ change: MirrorChange) {
    var change = change
    if case .addVersion(let version, let isPending) = change,
      case .record(let record) = version.snapshot
    {
      var stripped = version
      stripped.snapshot = .record(record.copied(keepingDeviceLocalFieldsOf: nil))
      change = .addVersion(stripped, pending: isPending)
    }
    changes.append(change)
  }

  /// Brings ``added`` up to date with ``changes``.
  private mutating func indexAdded() {
    guard addedIndexed < changes.count else { return }
    if changes.count - addedIndexed >= 1_024 {
      added.reserveCapacity(added.count + changes.count - addedIndexed)
    }
    for change in changes[addedIndexed...] {
      guard case .addVersion(let version, _) = change else { continue }
      let ref = version.ref
      added[ref] = max(added[ref] ?? 0, version.generation)
    }
    addedIndexed = changes.count
  }
}
