public import StashModel

/// Every stock move people made in a randomized test, and DESIGN's invariant 9 checked
/// against it, as `sync_model.py` does: no move is lost, and a settled count is its epoch's
/// base plus every move made in that epoch.
///
/// A move is held by a counter when the counter is in the move's epoch and the moving device's
/// tally there is at least the tally right after the move. A recount, a deletion or a
/// resolution replaces what a device shows; the moves that device's row held are then "seen"
/// and may legitimately disappear. Every other move must stay live somewhere or inside an open
/// conflict.
public struct MoveLedger: Sendable {
  /// One move: units added or removed by a device in one epoch, and its tally after.
  public struct Move: Hashable, Sendable, CustomStringConvertible {
    public let key: RecordKey
    public let epoch: CounterEpoch?
    public let base: Int64
    public let device: DeviceID
    public let isRestock: Bool
    public let units: Int64
    public let tally: Int64

    /// Whether `counter` holds this move.
    public func isIn(_ counter: Counter) -> Bool {
      counter.epoch == epoch && counter.base == base
        && ((isRestock ? counter.increments : counter.decrements)[device] ?? 0) >= tally
    }

    public var description: String {
      "\(isRestock ? "+" : "-")\(units) by \(device.rawValue.suffix(4)) on \(key)"
    }
  }

  /// The moves, in the order they were made.
  public private(set) var moves: [Move] = []
  /// The indices of the moves a recount, deletion or resolution looked at.
  public private(set) var seen = Set<Int>()

  /// An empty ledger.
  public init() {}

  /// Records the move that turned `before` into `after` on `device`, if it was one.
  ///
  /// - Parameters:
  ///   - key: The record.
  ///   - before: The counter before the change.
  ///   - after: The counter after it.
  ///   - device: The device that moved.
  public mutating func record(
    key: RecordKey, from before: Counter, to after: Counter, by device: DeviceID
  ) {
    guard before.isSameEpoch(as: after) else { return }
    for isRestock in [true, false] {
      let was = (isRestock ? before.increments : before.decrements)[device] ?? 0
      let now = (isRestock ? after.increments : after.decrements)[device] ?? 0
      guard now > was else { continue }
      moves.append(
        Move(
          key: key, epoch: after.epoch, base: after.base, device: device, isRestock: isRestock,
          units: now - was, tally: now))
    }
  }

  /// Files the move at `index` under another device's tally: what `stash sync new-identity`
  /// does to the moves a copy of a device folder made under the shared id and never exported.
  ///
  /// - Parameters:
  ///   - index: The move's index in ``moves``.
  ///   - device: The device whose tally holds it now.
  ///   - tally: That tally right after the move, as the re-keyed counter counts it.
  public mutating func reassign(_ index: Int, to device: DeviceID, tally: Int64) {
    let move = moves[index]
    moves[index] = Move(
      key: move.key, epoch: move.epoch, base: move.base, device: device,
      isRestock: move.isRestock, units: move.units, tally: tally)
  }

  /// The moves held by any of `records`' counters (in the field named `field`).
  public func held(by records: [Record], field: String = "quantity") -> Set<Int> {
    var found = Set<Int>()
    for (index, move) in moves.enumerated() {
      for record in records where record.key == move.key {
        if case .counter(let counter)? = record[field: field], move.isIn(counter) {
          found.insert(index)
        }
      }
    }
    return found
  }

  /// Marks the moves `records` hold as looked at by what replaces them.
  public mutating func look(at records: [Record], field: String = "quantity") {
    seen.formUnion(held(by: records, field: field))
  }

  /// The moves neither held by `shown` (live rows and open conflicts' sides) nor seen.
  public func lost(shown: [Record], field: String = "quantity") -> [Move] {
    let held = held(by: shown, field: field)
    return moves.indices.filter { !seen.contains($0) && !held.contains($0) }.map { moves[$0] }
  }

  /// Why `record`'s count is not its epoch's base plus every move of that epoch, if it is not.
  public func accountingProblem(of record: Record, field: String = "quantity") -> String? {
    guard case .counter(let counter)? = record[field: field] else { return nil }
    let inEpoch = moves.filter {
      $0.key == record.key && $0.epoch == counter.epoch && $0.base == counter.base
    }
    let expected = inEpoch.reduce(counter.base) { $0 + ($1.isRestock ? $1.units : -$1.units) }
    guard counter.value != expected else { return nil }
    return
      "epoch accounting: \(record.key) shows \(counter.value.map(String.init) ?? "an overflow"), "
      + "its epoch's moves make \(expected)"
  }
}
