public import StashBase
public import StashModel

/// What one reconcile pass did, for `stash sync`, the coordinator and the golden fixtures.
public struct PassReport: Hashable, Sendable {
  /// How many records were examined.
  public var examined = 0
  /// How many records each table row applied to (rows that applied to none are left out).
  public var rows: [TableRow: Int] = [:]
  /// Records written to the local store from the mirror (applied edits, inserts, arrived
  /// deletions, adopted tombstones).
  public var appliedLocally = 0
  /// Versions written to the mirror (edits, inserts, deletions).
  public var copiedToMirror = 0
  /// Conflicts recorded for the first time in this pass.
  public var newConflicts: [ConflictID] = []
  /// Records whose concurrent counter moves merged.
  public var merged = 0
  /// Open conflicts settled because their sides came to agree.
  public var settledConflicts = 0
  /// Records with duplicate rows (left alone).
  public var duplicates = 0
  /// Whether the checkpoints belonged to another mirror and were forgotten first.
  public var reboundCheckpoints = false

  /// An empty report.
  public init() {}

  /// Whether the pass wrote anything.
  public var changedAnything: Bool {
    appliedLocally + copiedToMirror + newConflicts.count + settledConflicts + merged > 0
      || reboundCheckpoints
  }

  /// The report as JSON, with keys in a fixed order.
  public var json: JSONObject {
    var rowCounts = JSONObject()
    for row in rows.keys.sorted() { rowCounts.append(row.rawValue, .integer(Int64(rows[row]!))) }
    return [
      "examined": .integer(Int64(examined)),
      "rows": .object(rowCounts),
      "appliedLocally": .integer(Int64(appliedLocally)),
      "copiedToMirror": .integer(Int64(copiedToMirror)),
      "newConflicts": .array(newConflicts.map { .string($0.rawValue) }),
      "merged": .integer(Int64(merged)),
      "settledConflicts": .integer(Int64(settledConflicts)),
      "duplicates": .integer(Int64(duplicates)),
      "reboundCheckpoints": .bool(reboundCheckpoints),
    ]
  }
}
