import StashBase
import StashModel

extension LocalContent {
  /// Checks what must always hold of the local store; returns the problems found.
  ///
  /// Every row's stored hash matches its record, the key index matches the rows, checkpoints
  /// are bound to a mirror, conflicts are well formed (their
  /// id derives from their key and sides, at most one is open per key), and diagnostics name
  /// real duplicates. It recomputes every hash, so it costs a full pass over the store.
  ///
  /// - Parameter verifyingHashes: Whether to recompute every row's hash (`stash doctor` checks
  ///   them itself, to name the rows it can set aside).
  /// - Returns: One sentence per problem; empty when all is well.
  public func checkInvariants(verifyingHashes: Bool = true) -> [String] {
    var problems = [String]()
    for (row, stored) in rows {
      if stored.row != row { problems.append("\(row) is stored as \(stored.row)") }
      if verifyingHashes && stored.record.snapshotHash != stored.hash {
        problems.append("\(row) (\(stored.record.key)) has a stale hash")
      }
      if rowsByKey[stored.record.key]?.filter({ $0 == row }).count != 1 {
        problems.append("\(row) is not indexed exactly once under \(stored.record.key)")
      }
      if row >= nextRow { problems.append("\(row) is not below the next row id \(nextRow)") }
      if damagedRows[row.rawValue] != nil { problems.append("\(row) is both live and damaged") }
    }
    for (key, ids) in rowsByKey {
      if ids.isEmpty { problems.append("\(key) has an empty index entry") }
      for id in ids where rows[id]?.record.key != key {
        problems.append("the index of \(key) names \(id), which holds something else")
      }
    }
    for (key, tombstone) in tombstones where tombstone.key != key {
      problems.append("the tombstone filed under \(key) is for \(tombstone.key)")
    }
    if !checkpoints.isEmpty && checkpointMirror == nil {
      problems.append("checkpoints exist without a mirror they are bound to")
    }
    var openPerKey = [RecordKey: Int]()
    for (id, conflict) in conflicts {
      if id != conflict.id || ConflictID(key: conflict.key, sides: conflict.sides) != id {
        problems.append("\(conflict) has an id that does not derive from its key and sides")
      }
      for side in conflict.sides where side.snapshot.map({ $0.key != conflict.key }) ?? false {
        problems.append("\(conflict) holds a side of another record")
      }
      if conflict.state == .resolved && conflict.resolution == nil {
        problems.append("\(conflict) is resolved without a resolution")
      }
      if conflict.state == .open { openPerKey[conflict.key, default: 0] += 1 }
    }
    for (key, count) in openPerKey where count > 1 {
      problems.append("\(key) has \(count) open conflicts")
    }
    for diagnostic in diagnostics.values where diagnostic.rows < 2 {
      problems.append("a duplicate diagnostic for \(diagnostic.key) counts \(diagnostic.rows) rows")
    }
    return problems
  }
}
