import Foundation
import LocalStore
import Stash
import StashModel
import StashTestSupport

/// Stock moves on the simulated devices, and DESIGN's invariant 9 (no lost move) checked
/// against the ledger of every move each device made, as `sync_model.py` does.
extension Simulation {
  /// A consume or a restock of a shared item (mostly), through the facade as `stash consume`
  /// and `stash restock` run it.
  mutating func move(on device: SimulatedDevice) throws {
    let folder = try open(device)
    guard let item = pick(folder) else { return }
    let isRestock = item.quantity == 0 || Bool.random(using: &random)
    let units = isRestock ? Int64.random(in: 1...5, using: &random) : 1
    let after =
      isRestock
      ? try folder.restock(item.id.rawValue, count: units)
      : try folder.consume(item.id.rawValue, count: units)
    // The id the move was tallied under: a copied folder's own, taken with its first write.
    guard let id = folder.folder.deviceID else { return }
    // The facade moves the freshest row of the item; the move is what its tally grew by.
    var tallies = isRestock ? after.stock.increments : after.stock.decrements
    tallies[id, default: 0] -= units
    let before = Counter(
      base: after.stock.base, epoch: after.stock.epoch,
      increments: isRestock ? tallies : after.stock.increments,
      decrements: isRestock ? after.stock.decrements : tallies)
    ledger.record(key: after.record.key, from: before, to: after.stock, by: id)
    replaced.insert(item.record.snapshotHash)
    written.insert(after.record.snapshotHash)
    totals.moves += 1
  }

  /// "There are N now" (`stash edit --quantity`): a new epoch; the moves the device's rows
  /// held were looked at.
  mutating func recount(on device: SimulatedDevice) throws {
    let folder = try open(device)
    guard let item = pick(folder) else { return }
    look(at: item.record.key, on: folder)
    let after = try folder.recount(item.id.rawValue, to: Int64.random(in: 0...9, using: &random))
    replaced.insert(item.record.snapshotHash)
    written.insert(after.record.snapshotHash)
    totals.recounts += 1
  }

  /// A recount, deletion or resolution replaces what `folder` shows for `key`: the moves its
  /// rows hold were looked at (and may disappear). Moves it has not seen must survive.
  mutating func look(at key: RecordKey, on folder: DeviceFolder) {
    ledger.look(at: folder.folder.content?.rows(for: key).map(\.record) ?? [])
  }

  /// Invariant 9 at quiescence: every move is live somewhere, in an open conflict, or was
  /// looked at by what replaced it; and a record live on every device with no open conflict
  /// anywhere shows its epoch's base plus every move made in that epoch.
  mutating func checkMoves(_ folders: [DeviceFolder]) {
    var shown = [Record]()
    for content in folders.compactMap(\.folder.content) {
      shown += content.rows.values.map(\.record)
      shown += content.conflicts.values.filter { $0.state == .open }.flatMap {
        $0.sides.compactMap(\.snapshot?.record)
      }
    }
    for move in ledger.lost(shown: shown) { problems.append("9: lost move: \(move)") }
    let open = Set(folders.flatMap { $0.folder.conflicts().map(\.key) })
    for key in Set(ledger.moves.map(\.key)).subtracting(open).sorted() {
      let rows = folders.compactMap { $0.folder.content?.row(for: key)?.record }
      guard rows.count == folders.count else { continue }
      for record in rows {
        totals.checkedCounts += 1
        if let problem = ledger.accountingProblem(of: record) { problems.append("9: \(problem)") }
      }
    }
  }
}
