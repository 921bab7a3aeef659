import MirrorStore
import StashModel
import Testing

@testable import LocalStore
@testable import Reconciler

/// `DecisionTable.oneSideOnly`: a record only one side has ever held, with no checkpoint, is
/// decided without building its version graph (issue 26, item 5: a first sync's and a second
/// device's import's every record). It must decide exactly what the graph decides, and leave
/// every other situation to the graph.
@Suite struct OneSideDecisionTests {
  let other = DeviceID.make()

  func row(_ record: Record, _ number: Int64 = 1) -> StoredRow {
    StoredRow(row: RowID(number), record: record, hash: record.snapshotHash)
  }

  func version(_ snapshot: Snapshot, over parents: Set<VersionID> = []) -> MirrorVersion {
    MirrorVersion(
      snapshot: snapshot, parents: parents, generation: 1, author: other, authoredAt: epoch)
  }

  func situation(
    _ key: RecordKey, rows: [StoredRow] = [], tombstone: Tombstone? = nil,
    leaves: [MirrorVersion] = [], checkpoint: Checkpoint? = nil, versions: RecordVersions = [:]
  ) -> KeySituation {
    KeySituation(
      key: key, localRows: rows, localTombstone: tombstone, mirror: MirrorSide(leaves: leaves),
      checkpoint: checkpoint, versions: versions)
  }

  /// Both ways of deciding, for a situation the shortcut takes.
  func expectTheGraphAgrees(_ situation: KeySituation, _ row: TableRow) {
    let shortcut = DecisionTable.oneSideOnly(situation)
    #expect(shortcut != nil, "\(situation.key)")
    #expect(shortcut == GraphDecision(situation, rules: .design).decide())
    #expect(shortcut?.row == row)
    #expect(DecisionTable.decide(situation) == shortcut)
  }

  @Test func decidesAsTheGraphForEveryRecordOneSideHolds() {
    for index in 0..<200 {
      let record = tube("tube \(index)", quantity: Int64(index)).record
      let key = record.key
      // Row 5: this device's row, nothing in the mirror.
      expectTheGraphAgrees(situation(key, rows: [row(record)]), .localOnlyInsert)
      // Row 6: one version from another device, nothing here, with or without parents that
      // have not arrived.
      let before = VersionID(naming: tube("before \(index)").record.snapshotHash)
      let parents: Set<VersionID> = index.isMultiple(of: 3) ? [] : [before]
      expectTheGraphAgrees(
        situation(key, leaves: [version(.record(record), over: parents)]), .cloudOnlyInsert)
      // Row 15: one tombstone from another device, nothing here.
      let tombstone = Tombstone(deleting: record, at: epoch)
      expectTheGraphAgrees(
        situation(key, leaves: [version(.tombstone(tombstone), over: parents)]),
        .keepMirrorTombstone)
    }
  }

  @Test func leavesEveryOtherSituationToTheGraph() {
    let record = tube("tube").record
    let edited = tube("tube", quantity: 9).record
    let key = record.key
    let mine = row(record)
    let theirs = version(.record(record))
    let later = version(.record(edited), over: [theirs.id])
    let tombstone = Tombstone(deleting: record, at: epoch)
    let checkpoint = Checkpoint(hash: record.snapshotHash, isTombstone: false, version: theirs.id)
    var both = RecordVersions()
    both.add(theirs)
    both.add(later)
    let others: [(String, KeySituation)] = [
      ("a checkpoint", situation(key, rows: [mine], checkpoint: checkpoint)),
      ("a tombstone beside the row", situation(key, rows: [mine], tombstone: tombstone)),
      ("two rows", situation(key, rows: [mine, row(record, 2)])),
      ("a row and a leaf", situation(key, rows: [mine], leaves: [theirs])),
      ("a local tombstone", situation(key, tombstone: tombstone)),
      ("a tombstone and a leaf", situation(key, tombstone: tombstone, leaves: [later])),
      ("a leaf over a version here", situation(key, leaves: [later], versions: both)),
      ("two leaves", situation(key, leaves: [later, version(.record(tube("other").record))])),
      ("a leaf and a checkpoint", situation(key, leaves: [theirs], checkpoint: checkpoint)),
      ("nothing", situation(key)),
    ]
    for (name, situation) in others {
      #expect(DecisionTable.oneSideOnly(situation) == nil, "\(name)")
    }
  }
}
