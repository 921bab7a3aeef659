import LocalStore
import MirrorStore
import StashModel

extension Plan {
  /// Turns the decisions' local effects into changes of one local transaction, and counts
  /// them; then lets the decisions go (a plan is applied once, and the store is about to take
  /// the changes while the plan is still alive).
  mutating func applyLocal(to transaction: inout LocalTransaction) throws(ModelError) {
    transaction.reserveCapacity(localEffects.count + staleDiagnostics.count + 1)
    if rebind { transaction.bindCheckpoints(to: mirrorID) }
    var openByKey = openConflicts
    for key in staleDiagnostics { transaction.removeDiagnostic(key, store: .local) }
    var start = 0
    for decided in decided {
      let key = decided.key
      let write = decided.localWrite < 0 ? nil : localWrites[Int(decided.localWrite)]
      for effect in localEffects[start..<decided.effectsEnd] {
        switch effect {
        case .setCheckpoint(let checkpoint):
          transaction.setCheckpoint(key, to: checkpoint)
        case .writeLocal(let record):
          let copy = record.copied(keepingDeviceLocalFieldsOf: write?.kept)
          if let row = write?.row {
            try transaction.replace(row, with: copy, hash: write?.hash)
          } else {
            try transaction.insert(copy, hash: write?.hash)
          }
          report.appliedLocally += 1
        case .removeLocalTombstone:
          transaction.removeTombstone(key)
        case .deleteLocal(let tombstone):
          transaction.putTombstone(tombstone)
          if let row = write?.row { transaction.removeRow(row) }
          report.appliedLocally += 1
        case .putLocalTombstone(let tombstone):
          transaction.putTombstone(tombstone)
          report.appliedLocally += 1
        case .copyToMirror:
          break  // in mirrorWrites, written to the mirror before this transaction
        case .recordConflict(let kind, let sides, let fields):
          let conflict = SyncConflict(
            key: key, kind: kind, sides: sides, fields: fields, noticedAt: now)
          let open = openByKey[key] ?? []
          guard !open.contains(where: { $0.id == conflict.id }) else { continue }
          for var older in open {
            older.state = .superseded
            transaction.put(older)
          }
          transaction.put(conflict)
          openByKey[key] = [conflict]
          report.newConflicts.append(conflict.id)
        case .settleConflicts:
          for var conflict in openByKey[key] ?? [] {
            conflict.state = .resolved
            conflict.resolution = ConflictResolution(
              choice: "agreed", at: now, by: device, result: nil)
            transaction.put(conflict)
            report.settledConflicts += 1
          }
          openByKey[key] = nil
        case .recordMerge(let sides, let result):
          var audit = SyncConflict(key: key, kind: .merged, sides: sides, noticedAt: now)
          audit.state = .resolved
          audit.resolution = ConflictResolution(
            choice: "merged", at: now, by: device, result: result)
          transaction.put(audit)  // once: after the merge, C and the mirror agree (row 1)
          report.merged += 1
        case .recordDuplicate(let rows):
          report.duplicates += 1
          if diagnostics[key]?.rows != rows {
            transaction.put(Diagnostic(key: key, store: .local, rows: rows, noticedAt: now))
          }
        }
      }
      start = decided.effectsEnd
    }
    decisionsApplied()
  }
}
