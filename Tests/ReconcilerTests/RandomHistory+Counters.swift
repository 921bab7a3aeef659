import Foundation
import LocalStore
import MirrorStore
import Reconciler
import StashModel
import StashTestSupport

/// Stock moves in the random histories, and DESIGN's invariant 9 (no lost move) checked against
/// a model of every move each device made, as `sync_model.py` does.
extension History {
  /// A consume or a restock of a random item on `device` (a consume of more than is left is
  /// refused, as the facade refuses it).
  mutating func move(on device: Device) throws {
    guard let row = pickMoved(on: device),
      case .counter(let stock)? = row.record[field: "quantity"]
    else { return }
    let isRestock = Bool.random(using: &random)
    let units = Int64.random(in: 1...3, using: &random)
    let id = device.stores.local.deviceID
    guard let moved = isRestock ? stock.adding(units, by: id) : stock.removing(units, by: id),
      let value = moved.value, (0...Limits.maximumQuantity).contains(value)
    else { return }
    let edited = try device.stores.editLocally(row.record.id) { $0.stock = moved }
    replacedByPerson.insert(row.hash)
    written.insert(edited.record.snapshotHash)
    ledger.record(key: row.record.key, from: stock, to: moved, by: id)
    coverage.moves += 1
  }

  /// "There are N now": a new epoch (seeded, so that the seed replays).
  mutating func recount(on device: Device) throws {
    guard let row = pickMoved(on: device) else { return }
    look(at: row.record.key, on: device)
    let epoch = CounterEpoch(RecordID.random(using: &random))
    let quantity = Int64.random(in: 0...9, using: &random)
    let edited = try device.stores.editLocally(row.record.id) {
      $0.stock = .recount(to: quantity, epoch: epoch)
    }
    replacedByPerson.insert(row.hash)
    written.insert(edited.record.snapshotHash)
    coverage.recounts += 1
  }

  /// Mostly one of the shared items, else any item.
  mutating func pickMoved(on device: Device) -> StoredRow? {
    let local = device.stores.local.content
    let here = shared.compactMap { local.row(for: $0) }
    if !here.isEmpty && Int.random(in: 0..<4, using: &random) > 0 {
      return here.randomElement(using: &random)
    }
    return pickRow(on: device)
  }

  /// A recount, deletion or drop on `device` replaces what the device shows: the moves its
  /// row holds were looked at. Moves it has not seen must survive (as a conflict side).
  mutating func look(at key: RecordKey, on device: Device) {
    ledger.look(at: device.stores.local.content.rows(for: key).map(\.record))
  }

  /// Invariant 9 at quiescence: every move is live somewhere, in a conflict, or was looked at
  /// by what replaced it; and a record live on both devices with no open conflict holds its
  /// epoch's base plus every move made in that epoch. Also no cycles (checked by the mirror's
  /// invariants after every pass).
  mutating func checkMoves() {
    for move in ledger.lost(shown: shownRecords()) { problems.append("lost move: \(move)") }
    // A row that vanished without a tombstone (a drop) takes its unexported moves with it:
    // that loss is the drop's, which invariant 3 covers, so such records are not counted here.
    let open = Set(devices.flatMap { $0.stores.openConflicts.map(\.key) })
    let keys = Set(ledger.moves.map(\.key)).subtracting(open).subtracting(everDropped)
    for key in keys.sorted() {
      let rows = devices.compactMap { $0.stores.local.content.row(for: key)?.record }
      guard rows.count == devices.count else { continue }
      for record in rows {
        coverage.checkedCounts += 1
        if let problem = ledger.accountingProblem(of: record) { problems.append(problem) }
      }
    }
  }

  /// Every record a device shows: its rows, and every side of its open conflicts.
  func shownRecords() -> [Record] {
    devices.flatMap { device in
      let local = device.stores.local.content
      return local.rows.values.map(\.record)
        + local.conflicts.values.filter { $0.state == .open }.flatMap {
          $0.sides.compactMap(\.snapshot?.record)
        }
    }
  }

  /// The model's `maxq` variant: the merged counter is the side with the largest value, not
  /// each device's larger tally.
  static let largestValueMerge = MergeRules(
    combineCounters: { counters in counters.max { ($0.value ?? 0) < ($1.value ?? 0) }! },
    setBackIsChange: true)
}
