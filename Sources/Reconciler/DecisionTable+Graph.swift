import LocalStore
import MirrorStore
import StashModel

/// One record's decision over its version graph: the table's rows where both stores may hold
/// something, merges, and conflicts between leaves (see ``DecisionTable``).
struct GraphDecision {
  let situation: KeySituation
  let rules: MergeRules
  let graph: VersionGraph
  /// This device's side: its row's record, its tombstone, or nothing.
  let own: Snapshot?
  /// Its hash (every other hash comes from the graph's versions).
  let ownHash: SnapshotHash?

  init(_ situation: KeySituation, rules: MergeRules) {
    self.situation = situation
    self.rules = rules
    self.graph = VersionGraph(situation.versions)
    // A row's hash as it was written (as the pass's settled check takes it): a pass checks
    // every row it decides on against its record before writing anything (`verifyHashes`).
    switch situation.local {
    case .live(let row): (own, ownHash) = (.record(row.record), row.hash)
    case .deleted(let tombstone): (own, ownHash) = (.tombstone(tombstone), tombstone.hash)
    case .absent: (own, ownHash) = (nil, nil)
    }
  }

  /// The leaves once this device's side is written into the graph (rule 1), its id if it was
  /// written, and the effects of writing it.
  func preparedLeaves() -> (leaves: Set<VersionID>, exported: VersionID?, effects: [Effect]) {
    var effects = [Effect]()
    var leaves = Set(situation.mirror.leaves.map(\.id))
    let exported = writeOwnSide(into: &leaves, effects: &effects)
    return (leaves, exported, effects)
  }

  func decide() -> Decision {
    let (leaves, exported, prepared) = preparedLeaves()
    var effects = prepared
    let distinct = Set(leaves.map { graph.versions[$0]!.hash })
    if distinct.count == 1 || leaves.allSatisfy({ graph.versions[$0]!.snapshot.isTombstone }) {
      return adopt(leaves, exported: exported, after: effects)
    }
    // Several leaves: merge them once their ancestry is here (rule 3), field by field.
    guard graph.hasEveryParent(of: leaves) else {
      return Decision(.waiting, effects + checkpoint(atOwn: exported))
    }
    let fold = LeafFold(graph: graph, rules: rules).fold(Array(leaves))
    let sides = self.sides(of: leaves)
    guard let merged = fold.snapshot else {
      return conflict(
        fold.disagreement, sides: sides, leaves: leaves, exported: exported,
        after: effects)
    }
    let id = graph.add(merged, parents: leaves)
    let node = graph.versions[id]!
    effects.append(.copyToMirror(merged, parents: leaves, version: id))
    effects += write(node)
    effects += DecisionTable.checkpoint(node.checkpoint(id), over: situation.checkpoint)
    effects += [.settleConflicts, .recordMerge(sides, result: node.hash)]
    return Decision(.merged, effects)
  }

  /// Rule 1: writes this device's side into the graph as a child of what it derives from,
  /// unless it is what it derives from or the leaves already hold its state (a leaf with the
  /// same snapshot that has seen everything this side derives from, or, for a deletion,
  /// deletions only); returns its id when written.
  private func writeOwnSide(
    into leaves: inout Set<VersionID>, effects: inout [Effect]
  ) -> VersionID? {
    let c = situation.checkpoint
    // A side is unchanged only against a version the mirror holds: a checkpoint whose version
    // the mirror lost (a damaged last transaction set aside) says nothing about the leaves, and
    // taking them would silently revert this device's row.
    let unchanged = ownHash == c?.hash && !situation.derivation.isEmpty
    // A leaf with an equal snapshot that has not seen what this side derives from (two
    // devices' clocks gave the same time) is no substitute: taking it would forget what this
    // side changed on the way, such as a field set back to the base's value (rule 5).
    let current = leaves
    func held(_ hash: SnapshotHash) -> Bool {
      current.contains { leaf in
        graph.versions[leaf]!.hash == hash
          && situation.derivation.isSubset(of: graph.ancestors(of: leaf))
      }
    }
    guard let own, let ownHash, !unchanged, !held(ownHash),
      !(own.isTombstone && !leaves.isEmpty
        && leaves.allSatisfy { graph.versions[$0]!.snapshot.isTombstone })
    else { return nil }
    // Only the version it derives from: a leaf holding an equal snapshot may be a later
    // version (a set-back on another device) that this device never saw.
    let parents = situation.derivation
    let id = VersionID.derive(snapshot: ownHash, parents: parents)
    if graph.versions[id] == nil {
      effects.append(.copyToMirror(own, parents: parents, version: id))
    }
    graph.add(own, hash: ownHash, parents: parents, id: id)
    leaves.subtract(parents)
    if !graph.isReplaced(id) { leaves.insert(id) }
    return id
  }

  /// One state among the leaves: this device takes it (rows 1, 2, 3, 5, 6, 9, 9b, 11, 12b,
  /// 13, 14, 15).
  private func adopt(
    _ leaves: Set<VersionID>, exported: VersionID?, after effects: [Effect]
  ) -> Decision {
    let c = situation.checkpoint
    let winnerID = graph.winner(of: leaves)!
    let winnerNode = graph.versions[winnerID]!
    let winner = winnerNode.snapshot
    var effects = effects
    let row: TableRow
    if ownHash == winnerNode.hash {
      switch (exported != nil, own!) {
      case (true, .tombstone):
        row = situation.mirror.leaves.isEmpty ? .deletionTravels : .deletionToMirror
      case (true, .record):
        row = c == nil ? .localOnlyInsert : c!.isTombstone ? .recreatedHere : .copyLocalEdit
      case (false, .tombstone): row = .bothDeleted
      case (false, .record): row = .agree
      }
    } else {
      switch (own, winner) {
      case (nil, .record): row = .cloudOnlyInsert
      case (nil, .tombstone): row = .keepMirrorTombstone
      case (.record?, .record): row = .applyMirrorEdit
      case (.record?, .tombstone): row = .deletionToLocal
      case (.tombstone?, .record): row = .restoredInMirror
      case (.tombstone?, .tombstone): row = .bothDeleted
      }
      effects += write(winnerNode)
    }
    // Several leaves may hold the state: a checkpoint at any of them stays.
    let agreed =
      c.map { c in
        c.hash == winnerNode.hash && c.version.map { leaves.contains($0) } == true
      } ?? false
    if !agreed {
      effects += DecisionTable.checkpoint(winnerNode.checkpoint(winnerID), over: c)
    }
    return Decision(row, effects + [.settleConflicts])
  }

  /// Leaves that do not merge: one conflict holding every one of them; this device keeps its
  /// row (a device that never had the record shows the winner).
  private func conflict(
    _ disagreement: Disagreement, sides: [ConflictSide], leaves: Set<VersionID>,
    exported: VersionID?, after effects: [Effect]
  ) -> Decision {
    let isOwnLeaf = sides.contains { $0.origin == .local }
    let leafDeletion = sides.contains { $0.snapshot?.isTombstone == true }
    let row: TableRow
    let kind: ConflictKind
    switch own {
    case .tombstone? where disagreement.deletion:
      (row, kind) = (.deletedHereEditedThere, .deletedHereEditedThere)
    case .record? where disagreement.deletion && leafDeletion && isOwnLeaf:
      (row, kind) = (.editedHereDeletedThere, .editedHereDeletedThere)
    default:
      row = isOwnLeaf && exported != nil ? .bothEdited : .concurrentVersions
      kind =
        !disagreement.belowZero.isEmpty ? .belowZero : isOwnLeaf ? .bothEdited : .concurrentVersions
    }
    let schema = sides.lazy.compactMap(\.snapshot?.record?.schema).first
    var effects = effects + checkpoint(atOwn: exported)
    effects.append(
      .recordConflict(kind, sides, fields: schema.map { disagreement.fields(of: $0) } ?? []))
    if own == nil && situation.checkpoint == nil, let winnerID = graph.winner(of: leaves) {
      // New here: show the winner meanwhile, as row 6 would.
      let winner = graph.versions[winnerID]!
      effects += write(winner)
      effects.append(.setCheckpoint(winner.checkpoint(winnerID)))
    }
    return Decision(row, effects)
  }

  /// The checkpoint at this device's own side once written into the graph.
  private func checkpoint(atOwn exported: VersionID?) -> [Effect] {
    guard let exported, let own, let ownHash else { return [] }
    return DecisionTable.checkpoint(
      Checkpoint(hash: ownHash, isTombstone: own.isTombstone, version: exported),
      over: situation.checkpoint)
  }

  /// What makes the local store hold `version`'s snapshot instead of this device's side.
  private func write(_ version: VersionGraph.Node) -> [Effect] {
    guard ownHash != version.hash else { return [] }
    switch (own, version.snapshot) {
    case (.tombstone?, .record(let record)): return [.removeLocalTombstone, .writeLocal(record)]
    case (_, .record(let record)): return [.writeLocal(record)]
    case (.record?, .tombstone(let tombstone)): return [.deleteLocal(tombstone)]
    case (_, .tombstone(let tombstone)): return [.putLocalTombstone(tombstone)]
    }
  }

  /// One side per distinct snapshot among the leaves: this device's first, then in the order
  /// every device shows them (the winner first).
  private func sides(of leaves: Set<VersionID>) -> [ConflictSide] {
    var remaining = leaves
    var ordered = [VersionID]()
    while let next = graph.winner(of: remaining) {
      ordered.append(next)
      remaining.remove(next)
    }
    var seen = Set<SnapshotHash>()
    var sides = [ConflictSide]()
    for id in ordered {
      let version = graph.versions[id]!
      guard seen.insert(version.hash).inserted else { continue }
      let isOwn = version.hash == ownHash
      let side = ConflictSide(
        origin: isOwn ? .local : .mirror, snapshot: version.snapshot,
        author: isOwn ? nil : situation.versions[id]?.author)
      if side.origin == .local { sides.insert(side, at: 0) } else { sides.append(side) }
    }
    return sides
  }
}

extension VersionGraph.Node {
  /// The checkpoint at this version, known as `id`.
  func checkpoint(_ id: VersionID) -> Checkpoint {
    Checkpoint(hash: hash, isTombstone: snapshot.isTombstone, version: id)
  }
}
