public import StashModel

/// The versions the mirror holds of one record, by id, and which of them are leaves (no
/// version of the record names them as a parent).
///
/// Most records have one version (every record, after a first sync): it is held inline, with
/// no dictionary and no set beside it. A whole mirror keeps one of these per record, so what
/// one costs is most of what a mirror of a million records costs in memory.
public struct RecordVersions: Equatable, Sendable, ExpressibleByDictionaryLiteral {
  private enum Storage: Sendable {
    case none
    case one(MirrorVersion)
    case many(Graph)
  }

  /// Several versions: by id, the ids named as parents, and the leaves.
  private struct Graph: Sendable {
    var byID: [VersionID: MirrorVersion]
    /// Every id a version here names as a parent (known here or not).
    var named: Set<VersionID>
    var leaves: Set<VersionID>

    mutating func add(_ version: MirrorVersion) {
      byID[version.id] = version
      named.formUnion(version.parents)
      leaves.subtract(version.parents)
      if !named.contains(version.id) { leaves.insert(version.id) }
    }
  }

  private var storage: Storage

  /// No versions.
  public init() { storage = .none }

  /// The versions given, added in order as ``MirrorContent`` adds them (an id given twice
  /// keeps the last).
  public init(dictionaryLiteral elements: (VersionID, MirrorVersion)...) {
    self.init()
    for (_, version) in elements { add(version) }
  }

  /// How many versions there are.
  public var count: Int {
    switch storage {
    case .none: 0
    case .one: 1
    case .many(let graph): graph.byID.count
    }
  }

  /// Whether there are none.
  public var isEmpty: Bool { count == 0 }

  /// The version with this id.
  public subscript(id: VersionID) -> MirrorVersion? {
    switch storage {
    case .none: nil
    case .one(let version): version.id == id ? version : nil
    case .many(let graph): graph.byID[id]
    }
  }

  /// Whether a version has this id.
  public func contains(_ id: VersionID) -> Bool {
    switch storage {
    case .none: false
    case .one(let version): version.id == id
    case .many(let graph): graph.byID[id] != nil
    }
  }

  /// Every version, in no particular order.
  public var values: [MirrorVersion] {
    switch storage {
    case .none: []
    case .one(let version): [version]
    case .many(let graph): Array(graph.byID.values)
    }
  }

  /// Every version's id.
  public var keys: Set<VersionID> {
    switch storage {
    case .none: []
    case .one(let version): [version.id]
    case .many(let graph): Set(graph.byID.keys)
    }
  }

  /// The leaves' ids.
  public var leafIDs: Set<VersionID> {
    switch storage {
    case .none: []
    case .one(let version): [version.id]
    case .many(let graph): graph.leaves
    }
  }

  /// How many leaves there are, read without copying any of them.
  public var leafCount: Int {
    switch storage {
    case .none: 0
    case .one: 1
    case .many(let graph): graph.leaves.count
    }
  }

  /// The leaves, in no particular order.
  public var leaves: [MirrorVersion] {
    switch storage {
    case .none: []
    case .one(let version): [version]
    case .many(let graph): graph.leaves.compactMap { graph.byID[$0] }
    }
  }

  /// The one snapshot every leaf holds, or `nil` when there are none or they hold different
  /// snapshots.
  public var leafSnapshot: SnapshotHash? {
    switch storage {
    case .none: return nil
    case .one(let version): return version.hash
    case .many(let graph):
      var found: SnapshotHash?
      for id in graph.leaves {
        guard let hash = graph.byID[id]?.hash, found == nil || found == hash else { return nil }
        found = hash
      }
      return found
    }
  }

  /// Whether `id` is a leaf.
  public func isLeaf(_ id: VersionID) -> Bool {
    switch storage {
    case .none: false
    case .one(let version): version.id == id
    case .many(let graph): graph.leaves.contains(id)
    }
  }

  /// Files `version` under its id (a new one, or one known with what is new merged in), and
  /// keeps the leaves current: the ids it names stop being leaves, and it is one unless a
  /// version here names it. A version never names itself (``MirrorContent`` removes such a
  /// parent before it gets here).
  public mutating func add(_ version: MirrorVersion) {
    switch storage {
    case .none:
      storage = .one(version)
    case .one(let only) where only.id == version.id:
      storage = .one(version)
    case .one(let only):
      var graph = Graph(byID: [only.id: only], named: only.parents, leaves: [only.id])
      graph.add(version)
      storage = .many(graph)
    case .many(var graph):
      storage = .none  // the graph's storage is uniquely referenced while it changes
      graph.add(version)
      storage = .many(graph)
    }
  }

  /// Rebuilds the leaves from the versions' parents (after edges were dropped).
  mutating func rebuildLeaves() {
    guard case .many(var graph) = storage else { return }
    storage = .none
    graph.named = graph.byID.values.reduce(into: Set<VersionID>()) { $0.formUnion($1.parents) }
    graph.leaves = Set(graph.byID.keys).subtracting(graph.named)
    storage = .many(graph)
  }

  /// Whether both hold the same versions (the leaves follow from them).
  public static func == (lhs: RecordVersions, rhs: RecordVersions) -> Bool {
    lhs.count == rhs.count && lhs.values.allSatisfy { rhs[$0.id] == $0 }
  }
}
