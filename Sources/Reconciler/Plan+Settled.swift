import LocalStore
import MirrorStore
import StashBase
import StashModel

extension Plan {
  /// Sorts every record both stores know into those that need the table and those already
  /// settled.
  ///
  /// A record is settled when its one local row (or tombstone), every leaf of the mirror and
  /// the checkpoint all carry the same snapshot hash, and it has no open conflict and no diagnostic: the
  /// table would say row 1 (or 13) and write nothing. Recognizing that from the stored hashes
  /// alone keeps a pass over a large store that agrees cheap; in debug builds an assertion
  /// checks the table agrees for every settled record.
  ///
  /// - Parameter tableAgrees: Whether the table writes nothing for a record (checked in debug
  ///   builds only, for every record found settled).
  /// - Returns: The records that need a decision, each once and in key order, and how many
  ///   are settled as rows 1 and 13.
  static func keysNeedingADecision(
    local: LocalContent, mirror: MirrorContent,
    checkpoints: CompactDictionary<RecordKey, Checkpoint>,
    openConflicts: [RecordKey: [SyncConflict]], diagnostics: [RecordKey: Diagnostic],
    tableAgrees: (RecordKey) -> Bool
  ) -> (pending: [Candidate], agreed: Int, deleted: Int) {
    func isSettled(_ key: RecordKey, at hash: SnapshotHash) -> Bool {
      guard let checkpoint = checkpoints[key], checkpoint.hash == hash,
        let version = checkpoint.version,
        openConflicts.isEmpty || openConflicts[key] == nil,
        diagnostics.isEmpty || diagnostics[key] == nil
      else { return false }
      return mirror.leafSnapshot(of: key) == hash && mirror.isLeaf(version, of: key)
    }
    // The keys with a local row, then those with only a tombstone, are each met once, so they
    // are listed as they come (a first sync's 100,000 keys went through a set, hashed and
    // rehashed as it grew).
    var pending = [Candidate]()
    var agreed = 0
    var deleted = 0
    for (position, (key, rows)) in local.rowsByKey.enumerated() {
      if rows.count == 1, let row = local.rows[rows[0]], isSettled(key, at: row.hash) {
        assert(tableAgrees(key), "the table disagrees that \(key) is settled")
        agreed += 1
      } else {
        pending.append(Candidate(key: key, rowsAt: position))
      }
    }
    for (key, tombstone) in local.tombstones where local.rowsByKey[key] == nil {
      if isSettled(key, at: tombstone.hash) {
        assert(tableAgrees(key), "the table disagrees that \(key) is settled")
        deleted += 1
      } else {
        pending.append(Candidate(key: key))
      }
    }
    func isAbsentHere(_ key: RecordKey) -> Bool {
      local.rowsByKey[key] == nil && (local.tombstones.isEmpty || local.tombstones[key] == nil)
    }
    // A key present here with an open conflict or a diagnostic is not settled: it is listed.
    // A key absent here is listed from the first table that names it (each table names a key
    // once), so no set of them is built: a second device's import names a million, all from
    // the mirror.
    for key in checkpoints.keys where isAbsentHere(key) {
      pending.append(Candidate(key: key))
    }
    for key in mirror.keys where isAbsentHere(key) && checkpoints[key] == nil {
      pending.append(Candidate(key: key))
    }
    func namedBefore(_ key: RecordKey) -> Bool {
      checkpoints[key] != nil || mirror.keys.contains(key)
    }
    for key in openConflicts.keys where isAbsentHere(key) && !namedBefore(key) {
      pending.append(Candidate(key: key))
    }
    for key in diagnostics.keys
    where isAbsentHere(key) && !namedBefore(key) && openConflicts[key] == nil {
      pending.append(Candidate(key: key))
    }
    pending.sort { $0.key < $1.key }
    return (pending, agreed, deleted)
  }
}
