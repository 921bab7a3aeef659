public import JSONLines
public import StashModel

/// One change to the mirror store: what a transaction's operation line says.
public enum MirrorChange: Hashable, Sendable {
  /// Adds a version (or merges the parents of one already known). `pending` marks a version
  /// written on this device that the transport has not exported yet.
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
}

/// Everything the mirror store holds, in memory.
///
/// Per record, a graph of versions; the leaves and the winner are kept up to date as versions
/// arrive, in any order.
public struct MirrorContent: Sendable {
  /// The mirror's identifier: what mirror events name.
  public let storeID: StoreID
  /// The device that owns this mirror file.
  public let deviceID: DeviceID
  /// The schemas records follow.
  public let schemas: SchemaRegistry
  /// Every known version, per record, by hash.
  public private(set) var versions: [RecordKey: [SnapshotHash: MirrorVersion]] = [:]
  /// The hashes named as parents, per record (these are not leaves).
  private var named: [RecordKey: Set<SnapshotHash>] = [:]
  /// The leaves' hashes, per record.
  public private(set) var leafHashes: [RecordKey: Set<SnapshotHash>] = [:]
  /// Versions written here and not yet exported.
  public private(set) var pending: Set<VersionRef> = []
  /// Segments already read, by path relative to the shared folder.
  public private(set) var readSegments: Set<String> = []
  /// Segments this device exported.
  public private(set) var exportedSegments: [String] = []
  /// The export identifiers this mirror recorded before publishing a segment, with the
  /// segment's path: the files in the shared folder that are this device's own.
  public private(set) var exportIDs: [String: String] = [:]
  /// The zone (shared folder identity) this mirror is bound to.
  public private(set) var zone: String?
  /// The last finished, successful import that read at least one segment.
  public private(set) var lastImport: Timestamp?
  /// The last finished, successful export.
  public private(set) var lastExport: Timestamp?
  /// How many versions there are, kept as they arrive (counting them would cost a walk over
  /// every record after every save).
  public private(set) var versionCount = 0

  /// Applies one committed change.
  public mutating func apply(_ change: MirrorChange) {
    switch change {
    case .addVersion(let version, let isPending):
      add(version)
      if isPending { pending.insert(VersionRef(key: version.key, hash: version.hash)) }
    case .markExported(let refs, let segment):
      pending.subtract(refs)
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
    }
  }

  private mutating func add(_ version: MirrorVersion) {
    let key = version.key
    var merged = version
    if let known = versions[key]?[version.hash] {
      merged.parents.formUnion(known.parents)
      merged.generation = max(known.generation, version.generation)
    } else {
      versionCount += 1
    }
    versions[key, default: [:]][version.hash] = merged
    named[key, default: []].formUnion(merged.parents)
    var leaves = leafHashes[key] ?? []
    leaves.subtract(merged.parents)
    if !named[key]!.contains(version.hash) { leaves.insert(version.hash) }
    leafHashes[key] = leaves
  }

  // MARK: Queries

  /// Every record the mirror has a version of.
  public var keys: Dictionary<RecordKey, Set<SnapshotHash>>.Keys { leafHashes.keys }

  /// The leaves of a record, winner first.
  public func side(for key: RecordKey) -> MirrorSide {
    guard let hashes = leafHashes[key], let known = versions[key] else {
      return MirrorSide(leaves: [])
    }
    if hashes.count == 1, let only = known[hashes.first!] { return MirrorSide(leaves: [only]) }
    let leaves = hashes.compactMap { known[$0] }.sorted { $0.beats($1) }
    return MirrorSide(leaves: leaves)
  }

  /// A version by record and hash.
  public func version(_ hash: SnapshotHash, of key: RecordKey) -> MirrorVersion? {
    versions[key]?[hash]
  }

  /// Whether `ancestor` is `descendant` or one of its ancestors in the record's graph.
  public func isAncestor(
    _ ancestor: SnapshotHash, of descendant: SnapshotHash, key: RecordKey
  ) -> Bool {
    guard let known = versions[key] else { return ancestor == descendant }
    var seen: Set<SnapshotHash> = []
    var queue = [descendant]
    while let hash = queue.popLast() {
      if hash == ancestor { return true }
      guard seen.insert(hash).inserted, let version = known[hash] else { continue }
      queue.append(contentsOf: version.parents)
    }
    return false
  }

  /// The generation a new version with these parents gets.
  ///
  /// It saturates instead of overflowing: a generation read from a file is never trusted to
  /// leave room for one more.
  public func nextGeneration(after parents: Set<SnapshotHash>, of key: RecordKey) -> Int64 {
    let highest = parents.compactMap { versions[key]?[$0]?.generation }.max() ?? 0
    return highest == .max ? .max : highest + 1
  }

  /// The versions waiting to be exported, in a stable order.
  public var pendingVersions: [MirrorVersion] {
    pending.sorted().compactMap { versions[$0.key]?[$0.hash] }
  }
}

extension MirrorContent: LogContent {
  public static let format = "stash.mirror"
  public static let version = 1

  public init(header: LogHeader, context: SchemaRegistry) {
    self.storeID = header.storeID
    self.deviceID = header.deviceID
    self.schemas = context
  }

  public func change(from operation: JSONObject) throws(ModelError) -> MirrorChange {
    try MirrorChange(json: operation, schemas: schemas)
  }

  public static func operation(for change: MirrorChange) -> JSONObject { change.json }

  public var changesForCompaction: [MirrorChange] {
    var changes = [MirrorChange]()
    if let zone { changes.append(.bindZone(zone)) }
    for key in versions.keys.sorted() {
      for version in versions[key]!.values.sorted(by: { $0.hash < $1.hash }) {
        changes.append(
          .addVersion(version, pending: pending.contains(VersionRef(key: key, hash: version.hash))))
      }
    }
    changes += readSegments.sorted().map { .markRead(segment: $0) }
    changes += exportedSegments.map { .markExported([], segment: $0) }
    changes += exportIDs.sorted { $0.key < $1.key }.map {
      .markExporting(segment: $0.value, export: $0.key)
    }
    if let lastImport { changes.append(.recordTransfer(.import, at: lastImport)) }
    if let lastExport { changes.append(.recordTransfer(.export, at: lastExport)) }
    return changes
  }

  public var liveChangeCount: Int {
    versionCount + readSegments.count + exportedSegments.count + exportIDs.count + 3
  }
}
