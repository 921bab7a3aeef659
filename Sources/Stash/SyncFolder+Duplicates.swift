import LocalStore
import StashBase
public import StashModel

/// What a duplicate repair did.
public struct DuplicateRepair: Hashable, Sendable {
  /// The repair's version: a folder is repaired once per version.
  public var version: Int
  /// Whether this version had already run here (then nothing was changed).
  public var alreadyDone = false
  /// Extra rows of one record id removed (their id stays live in the winner: no tombstone).
  public var rowsRemoved = 0
  /// Records deleted, with tombstones, because another record of the same candidate key won.
  public var recordsDeleted: [RecordKey] = []
  /// The winners, each updated in place (it keeps its id).
  public var winners: [RecordKey] = []

  /// Lines for a person: what was merged, or that nothing was.
  public var summary: [String] {
    if alreadyDone { return ["Duplicates: repair \(version) already ran on this device"] }
    if rowsRemoved == 0 && recordsDeleted.isEmpty {
      return ["Duplicates: none found (repair \(version))"]
    }
    var lines = [String]()
    if rowsRemoved > 0 {
      lines.append("Duplicates: removed \(rowsRemoved) extra row(s) sharing a record id")
    }
    if !recordsDeleted.isEmpty {
      lines.append(
        "Duplicates: merged \(recordsDeleted.count) record(s) into \(winners.count) "
          + "(same candidate key), deleted with tombstones: "
          + recordsDeleted.map { "\($0.model) \($0.id.rawValue.prefix(8))" }.joined(
            separator: ", "))
    }
    return lines
  }
}

extension SyncFolder {
  /// The version of the duplicate repair: raise it when the rule changes, so that it runs
  /// once more on every device.
  package static let duplicateRepairVersion = 1

  /// Merges duplicates in place, once per ``duplicateRepairVersion`` (seed 000's lesson: never
  /// delete everything and insert it again, which other devices see as a storm of deletions).
  ///
  /// - Rows sharing one record id: the winner stays, the other rows are removed (no
  ///   tombstone, since the id lives on).
  /// - Records of different ids sharing a value of their schema's candidate key (an item's
  ///   barcode, a meter's MAC): the winner is updated in place (empty optional fields filled
  ///   from the others, its change time untouched, so two devices repairing the same records
  ///   write the same version), and only the others are deleted, with tombstones.
  ///
  /// The winner is the row that matches this device's checkpoint, else the most recently
  /// changed, else the one with the most fields filled, else the smallest id (so every
  /// device picks the same one). Everything is one transaction, with the mark that this
  /// version ran; a repair that finds nothing writes nothing.
  ///
  /// - Returns: What was done.
  /// - Throws: ``StashError`` when the save fails.
  @discardableResult
  public func repairDuplicates() throws(StashError) -> DuplicateRepair {
    let version = Self.duplicateRepairVersion
    let step = "duplicates-\(version)"
    var repair = DuplicateRepair(version: version)
    if settings.stepsDone.contains(step) {
      repair.alreadyDone = true
      return repair
    }
    return try save("the duplicate repair") { content, transaction throws(StashError) in
      var result = DuplicateRepair(version: version)
      guard !content.settings.stepsDone.contains(step) else {
        result.alreadyDone = true
        return result
      }
      var live = [StoredRow]()
      for rows in content.rowsByKey.values {
        let stored = rows.compactMap { content.rows[$0] }
        let ranked = Self.ranked(stored, content: content)
        guard let winner = ranked.first else { continue }
        live.append(winner)
        for extra in ranked.dropFirst() {
          transaction.removeRow(extra.row)
          result.rowsRemoved += 1
        }
      }
      var groups = [String: [StoredRow]]()
      for row in live {
        let schema = row.record.schema
        guard let index = schema.candidateKeyIndex else { continue }
        let value = row.record.values[index]
        if case .none = value { continue }
        if case .string(let text) = value, text.isEmpty { continue }
        groups["\(schema.model)\u{0}\(value)", default: []].append(row)
      }
      for key in groups.keys.sorted() {
        let ranked = Self.ranked(groups[key]!, content: content)
        guard ranked.count > 1 else { continue }
        var merged = ranked[0].record
        for other in ranked.dropFirst() {
          for (index, value) in merged.values.enumerated() {
            guard case .none = value, !merged.schema.fields[index].isDeviceLocal else { continue }
            try StashError.model(
              merged.set(merged.schema.fields[index].name, to: other.record.values[index]))
          }
        }
        if merged != ranked[0].record {
          try self.check(merged)
          try StashError.model(transaction.replace(ranked[0].row, with: merged))
        }
        result.winners.append(merged.key)
        for other in ranked.dropFirst() {
          transaction.delete(other, at: self.clock())
          result.recordsDeleted.append(other.record.key)
        }
      }
      // Nothing found: nothing is written (not even the mark), so a repair with nothing to
      // do changes no byte; the next one looks again.
      if result.rowsRemoved == 0 && result.recordsDeleted.isEmpty { return result }
      var settings = content.settings
      settings.stepsDone.insert(step)
      transaction.setSettings(settings)
      return result
    }
  }

  /// Rows best first: the checkpoint's version, the latest change, the most fields filled,
  /// then the smallest id and hash (the same order on every device).
  static func ranked(_ rows: [StoredRow], content: LocalContent) -> [StoredRow] {
    func matchesCheckpoint(_ row: StoredRow) -> Bool {
      guard let checkpoint = content.checkpoints[row.record.key] else { return false }
      return !checkpoint.isTombstone && checkpoint.hash == row.hash
    }
    func changed(_ row: StoredRow) -> Double {
      guard let index = row.record.schema.changeTimeIndex,
        case .date(let time) = row.record.values[index]
      else { return -.infinity }
      return time.secondsSince1970
    }
    func filled(_ row: StoredRow) -> Int {
      row.record.values.filter { if case .none = $0 { false } else { true } }.count
    }
    return rows.sorted { a, b in
      let (ca, cb) = (matchesCheckpoint(a), matchesCheckpoint(b))
      if ca != cb { return ca }
      if changed(a) != changed(b) { return changed(a) > changed(b) }
      if filled(a) != filled(b) { return filled(a) > filled(b) }
      if a.record.id != b.record.id { return a.record.id < b.record.id }
      return a.hash.hex < b.hash.hex
    }
  }
}
