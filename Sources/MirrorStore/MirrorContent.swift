public import JSONLines
public import StashBase
public import StashModel

/// One change to the mirror store: what a transaction's operation line says.
public enum MirrorChange: Hashable, Sendable {
  /// Adds a version (or merges what is new about one already known). `pending` marks a
  /// version written on this device that the transport has not exported yet.
  case addVersion(MirrorVersion, pending: Bool)
  /// The transport exported these versions in a segment.
  case markExported([VersionRef], segment: String)
  /// The transport is about to publish `segment` with this export identifier in its header:
  /// recorded first, so that the device recognizes the file as its own even if it crashes
  /// before ``markExported(_:segment:)``, and tells a copy of itself (a restored backup
  /// writing as the same device) by identifiers it never recorded.
  case markExporting(segment: String, export: String)
  /// The transport read (and applied) a segment.
  case markRead(segment: String)
  /// The mirror belongs to this zone (a shared folder's identity) from now on.
  case bindZone(String)
  /// A finished, successful import or export, for `sync status`.
  case recordTransfer(MirrorEvent.Kind, at: Timestamp)
  /// Another device seen in the shared folder: its name, and when its newest segment read
  /// here was written.
  case notePeer(Peer)
}

/// Another device of the zone, as its segments describe it.
public struct Peer: Hashable, Sendable {
  /// Its identity.
  public let device: DeviceID
  /// Its name (by default its host name and the start of its id), when its segments say.
  public let name: String?
  /// When its newest segment read here was written, when its segments say.
  public let wroteAt: Timestamp?

  /// A peer.
  public init(device: DeviceID, name: String?, wroteAt: Timestamp?) {
    self.device = device
    self.name = name
    self.wroteAt = wroteAt
  }

  /// What is known of a device after reading one more of its segments: the newest segment's
  /// name and time win, and a segment that says nothing changes nothing.
  public static func updated(
    _ known: Peer?, device: DeviceID, name: String?, wroteAt: Timestamp?
  ) -> Peer {
    guard let known else { return Peer(device: device, name: name, wroteAt: wroteAt) }
    guard let wroteAt, known.wroteAt.map({ wroteAt > $0 }) ?? true else { return known }
    return Peer(device: device, name: name ?? known.name, wroteAt: wroteAt)
  }
}

/// Everything the mirror store holds, in memory.
///
/// Per record, a graph of versions keyed by ``VersionID``; the leaves are kept up to date as
/// versions arrive, in any order.
public struct MirrorContent: Sendable {
  /// The mirror's identifier: what mirror events name.
  public let storeID: StoreID
  /// The device that owns this mirror file.
  public let deviceID: DeviceID
  /// The schemas records follow.
  public let schemas: SchemaRegistry
  /// Records a version read from the file shares when it holds an equal one.
  let sharing: RecordSharing?
  /// Every known version, per record, by id, with the record's leaves.
  public private(set) var versions = CompactDictionary<RecordKey, RecordVersions>()
  /// Versions written here and not yet exported.
  public private(set) var pending = CompactSet<VersionRef>()
  /// Segments already read, by path relative to the shared folder.
  public private(set) var readSegments: Set<String> = []
  /// Segments this device exported.
  public private(set) var exportedSegments: [String] = []
  /// The export identifiers this mirror recorded before publishing a segment, with the
  /// segment's path: the files in the shared folder that are this device's own.
  public private(set) var exportIDs: [String: String] = [:]
  /// The zone (shared folder identity) this mirror is bound to.
  public private(set) var zone: String?
  /// The last finished, successful import that read at least one segment, or the first
  /// successful one (which may have read nothing): a sync with nothing new writes nothing.
  public private(set) var lastImport: Timestamp?
  /// The last finished, successful export.
  public private(set) var lastExport: Timestamp?
  /// The other devices seen in the shared folder.
  public private(set) var peers: [DeviceID: Peer] = [:]
  /// How many versions there are, kept as they arrive (counting them would cost a walk over
  /// every record after every save).
  public private(set) var versionCount = 0
  /// The photos the versions hold, by digest (the first to name one gives its size), kept as
  /// versions arrive: walking every version for them was a cache miss per record.
  private(set) var loadedPhotos: [SHA256Digest: BlobRef] = [:]
  /// Whether this is the whole mirror: `false` for a mirror opened focused on a few records
  /// from its index (``MirrorStore/open(folder:schemas:lock:create:access:compaction:focus:indexPolicy:fileSystem:)``),
  /// which holds every version of ``focusedKeys`` only (and every other field whole).
  public internal(set) var isComplete = true
  /// The records a focused content holds every version of; `nil` when it is complete.
  public internal(set) var focusedKeys: Set<RecordKey>?
  /// For a focused content: the head checksum of the index it was read through, so that
  /// the same index's summary can be read when asked (``MirrorStore/indexedSummary()``).
  var indexHeadChecksum: UInt32?
  /// Where each `addVersion` line is, in file order, while ``linesAreKnown``.
  var versionLines: [(key: RecordKey, span: LineSpan)] = []
  /// Whether ``versionLines`` lists every version line (not after a compaction rewrote the
  /// file, nor in a focused content).
  var linesAreKnown = true
  /// The last operation line applied, while ``linesAreKnown`` (a probe for the index).
  var lastLine: LineSpan?
  /// Whether this focused content was handed a version of a record it did not load (by a
  /// catch-up with what another process wrote): it cannot tell whether that version is new,
  /// so the store reads the whole file instead.
  public internal(set) var needsWholeRead = false

  /// Sets what the index recorded of the prefix (a focused content, whose versions are not
  /// all loaded, cannot count them nor tell which are pending).
  mutating func restore(pending: CompactSet<VersionRef>, versionCount: Int) {
    self.pending = pending
    self.versionCount = versionCount
  }

  /// Applies one committed change.
  public mutating func apply(_ change: MirrorChange) {
    switch change {
    case .addVersion(let version, let isPending):
      let isNew = add(version)
      if isPending && isNew { pending.insert(version.ref) }
    case .markExported(let refs, let segment):
      pending.subtract(refs)
      // Emptied (an export sent everything): its room goes too. Reading a mirror whose first
      // sync sent 100,000 versions filled it, then kept 10 MB for nothing.
      if pending.isEmpty { pending = CompactSet() }
      exportedSegments.append(segment)
    case .markRead(let segment):
      readSegments.insert(segment)
    case .markExporting(let segment, let export):
      exportIDs[export] = segment
    case .bindZone(let zone):
      self.zone = zone
    case .recordTransfer(let kind, let time):
      switch kind {
      case .import: lastImport = time
      case .export: lastExport = time
      case .setup: break
      }
    case .notePeer(let peer):
      peers[peer.device] = peer
    }
  }

  /// Makes room for the versions of a saved transaction before it is applied (a first sync's
  /// pass, an import): the tables of records, lines and pending versions grow once, to
  /// what they will hold, instead of by doubling. Only records the mirror has no version of
  /// add an entry to its table of records (a record given several new versions is counted
  /// for each: room reserved and never written costs no memory the system gives).
  public mutating func reserveCapacity(forApplying changes: [MirrorChange]) {
    guard changes.count >= 1_024 else { return }  // a small save: nothing worth it
    var versions = 0
    var pending = 0
    // The versions are read (a copy of each touches its record, out of the cache by now) only
    // when the mirror holds records, to look their keys up.
    for change in changes {
      guard case .addVersion(_, let isPending) = change else { continue }
      versions += 1
      if isPending { pending += 1 }
    }
    guard versions >= 1_024 else { return }
    let newRecords =
      self.versions.isEmpty
      ? versions
      : changes.count { change in
        guard case .addVersion(let version, _) = change else { return false }
        return self.versions[version.key] == nil
      }
    self.versions.reserveCapacity(self.versions.count + newRecords)
    if linesAreKnown { versionLines.reserveCapacity(versionLines.count + versions) }
    if pending > 0 { self.pending.reserveCapacity(self.pending.count + pending) }
  }

  /// Adds a version, or merges a known one; returns whether it was new.
  ///
  /// A known id means the same snapshot and parents, so only the generation can grow. A
  /// format-1 version (its id is its snapshot hash) may arrive again with other parents,
  /// which are merged, as format 1 did; if that closes a cycle, the stale edges are dropped
  /// (see ``breakLegacyCycle(through:of:)``).
  @discardableResult
  private mutating func add(_ version: MirrorVersion) -> Bool {
    let key = version.key
    var merged = version
    merged.parents.remove(version.id)  // a version never names itself
    let known = versions[key]?[version.id]
    if let known {
      // The first arrival's snapshot and author stay; what is new is merged.
      let parents = merged.parents
      merged = known
      if known.isLegacy { merged.parents.formUnion(parents) }
      merged.generation = max(known.generation, version.generation)
      if merged == known { return false }
    } else {
      versionCount += 1
      if case .record(let record) = version.snapshot {
        record.forEachBlob { blob in
          if loadedPhotos[blob.digest] == nil { loadedPhotos[blob.digest] = blob }
        }
      }
    }
    versions[key, default: RecordVersions()].add(merged)
    if merged.isLegacy && hasCycle(through: version.id, of: key) {
      breakLegacyCycle(through: version.id, of: key)
    }
    return known == nil
  }

  /// Whether the version can reach itself through parents (only format-1 versions can: a
  /// derived id cannot be named by its own ancestors).
  private func hasCycle(through id: VersionID, of key: RecordKey) -> Bool {
    !ancestors(of: id, of: key, stoppingAt: id).isDisjoint(with: [id])
  }

  /// Every version reachable from `id` through parents (not `id` itself unless a cycle leads
  /// back to it); stops early once `target` is found.
  private func ancestors(
    of id: VersionID, of key: RecordKey, stoppingAt target: VersionID? = nil
  ) -> Set<VersionID> {
    guard let known = versions[key] else { return [] }
    var seen = Set<VersionID>()
    var queue = Array(known[id]?.parents ?? [])
    while let next = queue.popLast() {
      guard seen.insert(next).inserted else { continue }
      if next == target { break }
      queue.append(contentsOf: known[next]?.parents ?? [])
    }
    return seen
  }

  /// Breaks a cycle that format-1 identity made: a record that returned to an earlier
  /// snapshot (A, then B, then A again) made A and B name each other, and then nothing was a
  /// leaf. Within the cycle, the version written last has the highest generation; the edges
  /// pointing to it from versions of the cycle refer to its earlier incarnation and are
  /// dropped, so it becomes the leaf, as its author meant. Repeated until no cycle is left.
  private mutating func breakLegacyCycle(through id: VersionID, of key: RecordKey) {
    while true {
      let cycle = ancestors(of: id, of: key).filter { member in
        member == id || ancestors(of: member, of: key, stoppingAt: id).contains(id)
      }
      guard cycle.contains(id), let known = versions[key] else { break }
      let head = cycle.compactMap { known[$0] }.max {
        ($0.generation, $0.id) < ($1.generation, $1.id)
      }
      guard let head else { break }
      for member in cycle {
        guard var version = known[member], version.parents.contains(head.id) else { continue }
        version.parents.remove(head.id)
        versions[key]?.add(version)
      }
      versions[key]?.rebuildLeaves()
    }
  }

  // MARK: Queries

  /// Every record the mirror has a version of.
  public var keys: CompactDictionary<RecordKey, RecordVersions>.Keys { versions.keys }

  /// The leaves of a record, winner first.
  public func side(for key: RecordKey) -> MirrorSide {
    let leaves = versions[key]?.leaves ?? []
    return MirrorSide(leaves: leaves.count < 2 ? leaves : leaves.sorted { $0.beats($1) })
  }

  /// The ids of a record's leaves (none for a record the mirror has never seen).
  public func leafIDs(of key: RecordKey) -> Set<VersionID> {
    versions[key]?.leafIDs ?? []
  }

  /// Whether `id` is a leaf of the record.
  public func isLeaf(_ id: VersionID, of key: RecordKey) -> Bool {
    versions[key]?.isLeaf(id) ?? false
  }

  /// The one snapshot every leaf of a record holds, or `nil` when there are no leaves or they
  /// hold different snapshots.
  public func leafSnapshot(of key: RecordKey) -> SnapshotHash? {
    versions[key]?.leafSnapshot
  }

  /// A version by record and id.
  public func version(_ id: VersionID, of key: RecordKey) -> MirrorVersion? {
    versions[key]?[id]
  }

  /// Every version of a record whose snapshot is `hash` (several when the same content was
  /// written with different parents), by id.
  public func versions(withSnapshot hash: SnapshotHash, of key: RecordKey) -> [MirrorVersion] {
    (versions[key] ?? [:]).values.filter { $0.hash == hash }.sorted { $0.id < $1.id }
  }

  /// Whether the version `id` holds `snapshot`, or descends from a version (or a named local
  /// side) that does.
  public func descends(
    _ id: VersionID, fromSnapshot snapshot: SnapshotHash, key: RecordKey
  ) -> Bool {
    guard let known = versions[key] else { return id.digest == snapshot.digest }
    var seen: Set<VersionID> = []
    var queue = [id]
    while let next = queue.popLast() {
      guard seen.insert(next).inserted else { continue }
      guard let version = known[next] else {
        if next.digest == snapshot.digest { return true }  // a named, unexported local side
        continue
      }
      if version.hash == snapshot { return true }
      queue.append(contentsOf: version.parents)
    }
    return false
  }

  /// The generation a new version with these parents gets.
  ///
  /// It saturates instead of overflowing: a generation read from a file is never trusted to
  /// leave room for one more.
  public func nextGeneration(after parents: Set<VersionID>, of key: RecordKey) -> Int64 {
    let highest = parents.compactMap { versions[key]?[$0]?.generation }.max() ?? 0
    return highest == .max ? .max : highest + 1
  }

  /// The versions waiting to be exported, in a stable order (``PendingVersions``).
  public var pendingVersions: PendingVersions { PendingVersions(of: self) }
}

extension MirrorContent: LogContent {
  public static let format = "stash.mirror"
  /// Format 3: counters (format 2's plain integers read as counters in their first epoch).
  /// Format 2: versions are identified by ``VersionID`` (snapshot hash and parents); format 1
  /// identified them by their snapshot hash. Older formats are read, then upgraded, on open.
  public static let version = 3

  /// What reading a mirror file takes: the schemas its records follow, and the records
  /// another store holds that its versions may share (see ``RecordSharing``).
  public struct Context: Sendable {
    /// The schemas.
    public let schemas: SchemaRegistry
    /// Records a version equal to one of them shares instead of keeping a copy.
    public let sharing: RecordSharing?

    /// A context.
    public init(schemas: SchemaRegistry, sharing: RecordSharing? = nil) {
      self.schemas = schemas
      self.sharing = sharing
    }
  }

  public init(header: LogHeader, context: Context) {
    self.storeID = header.storeID
    self.deviceID = header.deviceID
    self.schemas = context.schemas
    self.sharing = context.sharing
  }

  public func change(from operation: JSONObject) throws(ModelError) -> MirrorChange {
    shared(try MirrorChange(json: operation, schemas: schemas))
  }

  public func change(fromBytes operation: UnsafeRawBufferPointer, line: Int) -> MirrorChange? {
    MirrorChange.read(operation: operation, schemas: schemas).map(shared)
  }

  /// The change with its record's values shared with the records already read (see
  /// ``RecordSharing``).
  private func shared(_ change: MirrorChange) -> MirrorChange {
    guard let sharing, case .addVersion(var version, let pending) = change,
      case .record(let record) = version.snapshot
    else { return change }
    version.snapshot = .record(sharing.shared(record))
    return .addVersion(version, pending: pending)
  }

  public static func operation(for change: MirrorChange) -> JSONObject { change.json }

  public static func appendOperation(for change: MirrorChange, to bytes: inout [UInt8]) {
    change.appendJSON(to: &bytes)
  }

  public var changesForCompaction: [MirrorChange] {
    // The zone first, then every version, then the rest of the state (``stateChanges``).
    var versionChanges = [MirrorChange]()
    for key in versions.keys.sorted() {
      for version in versions[key]!.values.sorted(by: { $0.id < $1.id }) {
        versionChanges.append(.addVersion(version, pending: pending.contains(version.ref)))
      }
    }
    var changes = stateChanges
    changes.insert(contentsOf: versionChanges, at: zone == nil ? 0 : 1)
    return changes
  }

  public var liveChangeCount: Int {
    versionCount + readSegments.count + exportedSegments.count + exportIDs.count + peers.count + 3
  }
}
