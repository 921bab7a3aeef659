public import MirrorStore
public import StashModel

/// One record's versions as this device holds them, with the ancestry a merge asks about.
///
/// Built for one decision (it remembers the ancestor sets it computed), from the mirror's
/// versions of the record and the local row or tombstone written into the graph first
/// (DESIGN, "Merging concurrent versions", rule 1). A parent that is not here (one still
/// arriving, or a local side an older program named by its hash and never exported) is no
/// ancestor of anything.
public final class VersionGraph {
  /// What the graph knows of one version.
  public struct Node: Sendable {
    /// Its record or tombstone.
    public let snapshot: Snapshot
    /// The snapshot's hash, as its version carries it (checked when the version was read
    /// from a segment), so that a decision never hashes a record again.
    public let hash: SnapshotHash
    /// The versions it replaces.
    public let parents: Set<VersionID>
    /// One more than its highest parent's generation when it was written.
    public let generation: Int64
  }

  /// Every version, by id.
  public private(set) var versions: [VersionID: Node]
  private var ancestorSets: [VersionID: Set<VersionID>] = [:]

  /// The graph of the mirror's versions of one record.
  public init(_ versions: RecordVersions) {
    var nodes = [VersionID: Node](minimumCapacity: versions.count)
    for version in versions.values {
      nodes[version.id] = Node(
        snapshot: version.snapshot, hash: version.hash, parents: version.parents,
        generation: version.generation)
    }
    self.versions = nodes
  }

  /// Adds the version of `snapshot` over `parents` (a local side written into the graph
  /// before a merge), as the mirror would write it; returns its id. `hash` is the snapshot's
  /// hash when the caller knows it, and `id` the version's id when the caller derived it
  /// from that hash and `parents` (``VersionID/derive(snapshot:parents:)``).
  @discardableResult
  public func add(
    _ snapshot: Snapshot, hash: SnapshotHash? = nil, parents: Set<VersionID>,
    id: VersionID? = nil
  ) -> VersionID {
    let hash = hash ?? snapshot.hash
    let id = id ?? VersionID.derive(snapshot: hash, parents: parents)
    guard versions[id] == nil else { return id }
    let highest = parents.compactMap { versions[$0]?.generation }.max() ?? 0
    versions[id] = Node(
      snapshot: snapshot, hash: hash, parents: parents,
      generation: highest == .max ? .max : highest + 1)
    ancestorSets.removeAll()
    return id
  }

  /// Whether some version here names `id` as a parent (it is then no leaf).
  public func isReplaced(_ id: VersionID) -> Bool {
    versions.values.contains { $0.parents.contains(id) }
  }

  /// The leaf every device shows as the record's row when leaves disagree: a live record over
  /// a tombstone, then the higher generation, then the larger snapshot hash, then the larger
  /// id (as ``MirrorVersion/beats(_:)`` orders them).
  public func winner(of leaves: some Sequence<VersionID>) -> VersionID? {
    leaves.max { a, b in
      let x = versions[a]!
      let y = versions[b]!
      return (x.snapshot.isTombstone ? 0 : 1, x.generation, x.hash, a)
        < (y.snapshot.isTombstone ? 0 : 1, y.generation, y.hash, b)
    }
  }

  /// `id` and every version it descends from that is here.
  public func ancestors(of id: VersionID) -> Set<VersionID> {
    if let known = ancestorSets[id] { return known }
    var seen: Set<VersionID> = versions[id] == nil ? [] : [id]
    var queue = Array(versions[id]?.parents ?? [])
    while let next = queue.popLast() {
      guard versions[next] != nil, seen.insert(next).inserted else { continue }
      queue.append(contentsOf: versions[next]!.parents)
    }
    ancestorSets[id] = seen
    return seen
  }

  /// Every version any of `ids` descends from (or is).
  public func ancestors(ofAll ids: some Sequence<VersionID>) -> Set<VersionID> {
    ids.reduce(into: Set<VersionID>()) { $0.formUnion(ancestors(of: $1)) }
  }

  /// The lowest of some common ancestors: those that no other one of them descends from, in
  /// id order. Several are a criss-cross (two devices merged overlapping sets of versions).
  public func lowest(of common: Set<VersionID>) -> [VersionID] {
    common.filter { candidate in
      !common.contains { other in other != candidate && ancestors(of: other).contains(candidate) }
    }.sorted()
  }

  /// Whether the ancestry of `leaves` is all here, as far as generations tell: a version's
  /// generation is one more than its highest parent's when written, so a larger gap means a
  /// parent has not arrived yet, and a merge waits for it (rule 3).
  ///
  /// A parent named by its snapshot hash (a local side an older program never exported)
  /// never raised a generation, so it is never waited for.
  public func hasEveryParent(of leaves: some Sequence<VersionID>) -> Bool {
    ancestors(ofAll: leaves).allSatisfy { id in
      let version = versions[id]!
      let highest = version.parents.compactMap { versions[$0]?.generation }.max() ?? 0
      return version.generation <= highest + 1 || highest == .max
    }
  }
}
