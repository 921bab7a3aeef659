import StashBase

/// The identity of one counter epoch: a lowercase UUID, fresh for every recount.
///
/// A counter's moves merge across devices only within one epoch; a recount ("there are N
/// now") starts a new one, which no concurrent move shares.
public struct CounterEpoch: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// A lowercase UUID.
  public let rawValue: String

  /// Accepts a lowercase UUID.
  ///
  /// - Returns: `nil` for anything else.
  public init?(_ text: String) {
    guard RecordID.isCanonical(text) else { return nil }
    self.rawValue = text
  }

  /// The epoch named by an identifier (from the folder's source of new identifiers, which tests
  /// make repeatable).
  public init(_ id: RecordID) {
    self.rawValue = id.rawValue
  }

  /// A new random epoch.
  public static func make() -> CounterEpoch { CounterEpoch(RecordID.make()) }

  /// An epoch derived from `parts`, for an epoch that every device must compute alike (a
  /// resolution made at a given time on a given device): the first 16 bytes of SHA-256 over
  /// the parts joined by NUL, in UUID form.
  public static func derived(from parts: [String]) -> CounterEpoch {
    let hex = SHA256.hash(parts.joined(separator: "\u{0}")).hex
    var text = ""
    for (index, digit) in hex.prefix(32).enumerated() {
      if [8, 12, 16, 20].contains(index) { text.append("-") }
      text.append(digit)
    }
    return CounterEpoch(text)!
  }

  public var description: String { rawValue }

  public static func < (lhs: CounterEpoch, rhs: CounterEpoch) -> Bool {
    lhs.rawValue < rhs.rawValue
  }
}

/// A count that several devices change at once without losing a move: the stock of an item.
///
/// Its value is `base + Σ increments − Σ decrements`. Within one epoch each device's tally only
/// grows: `restock k` adds `k` to this device's increments, `consume k` to its decrements.
/// Concurrent moves merge by taking each device's larger tally, so every device that merges the
/// same sides gets the same counter, in any order. A recount (`edit --quantity N`, an import
/// of an absolute number) starts a new epoch with base `N` and no tallies.
///
/// A record's first epoch (its creation, and every plain integer written before counters
/// existed) has no epoch id: a counter with no epoch id and no tallies is encoded, hashed and
/// written exactly like the plain integer, so every existing store, hash and segment stays
/// valid. Two counters are in the same epoch when they have the same epoch id and the same
/// base (for the first epoch, the base is what tells them apart).
public struct Counter: Hashable, Sendable, CustomStringConvertible {
  /// What the epoch started from.
  public let base: Int64
  /// The epoch and the moves, out of line; `nil` for a plain counter (the first epoch, no
  /// moves): an item's stock until it is first moved, and every imported item's, is then held
  /// in the record's values without an allocation of its own (a box per counter was 5.6 MB of
  /// a whole read of 100,000 items).
  private let moves: Moves?

  /// A counter's epoch and tallies, shared by its copies and never changed.
  private final class Moves: Sendable {
    let epoch: CounterEpoch?
    let increments: [DeviceID: Int64]
    let decrements: [DeviceID: Int64]

    init(epoch: CounterEpoch?, increments: [DeviceID: Int64], decrements: [DeviceID: Int64]) {
      self.epoch = epoch
      self.increments = increments
      self.decrements = decrements
    }
  }

  /// The epoch's id; `nil` for a record's first epoch.
  public var epoch: CounterEpoch? { moves?.epoch }
  /// Units added per device in this epoch (never zero entries).
  public var increments: [DeviceID: Int64] { moves?.increments ?? [:] }
  /// Units removed per device in this epoch (never zero entries).
  public var decrements: [DeviceID: Int64] { moves?.decrements ?? [:] }

  /// A counter; zero tallies are dropped (a device that moved nothing has no entry).
  ///
  /// Tallies must not be negative: a negative one is dropped too (the model's own rules refuse
  /// such a counter before it is ever built from a file).
  public init(
    base: Int64, epoch: CounterEpoch? = nil, increments: [DeviceID: Int64] = [:],
    decrements: [DeviceID: Int64] = [:]
  ) {
    self.base = base
    let increments = increments.filter { $0.value > 0 }
    let decrements = decrements.filter { $0.value > 0 }
    moves =
      epoch == nil && increments.isEmpty && decrements.isEmpty
      ? nil : Moves(epoch: epoch, increments: increments, decrements: decrements)
  }

  public static func == (lhs: Counter, rhs: Counter) -> Bool {
    lhs.base == rhs.base && lhs.epoch == rhs.epoch && lhs.increments == rhs.increments
      && lhs.decrements == rhs.decrements
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(base)
    hasher.combine(epoch)
    hasher.combine(increments)
    hasher.combine(decrements)
  }

  /// A recount: a new epoch starting at `value`.
  public static func recount(to value: Int64, epoch: CounterEpoch) -> Counter {
    Counter(base: value, epoch: epoch)
  }

  /// `base + Σ increments − Σ decrements`, or `nil` if that overflows.
  public var value: Int64? {
    var total = base
    for tally in increments.values {
      let (sum, overflow) = total.addingReportingOverflow(tally)
      if overflow { return nil }
      total = sum
    }
    for tally in decrements.values {
      let (difference, overflow) = total.subtractingReportingOverflow(tally)
      if overflow { return nil }
      total = difference
    }
    return total
  }

  /// Whether this counter is written as a plain integer (first epoch, no moves).
  public var isPlain: Bool { moves == nil }

  /// Whether `other` is in the same epoch (same epoch id and same base), so the two merge.
  public func isSameEpoch(as other: Counter) -> Bool {
    epoch == other.epoch && base == other.base
  }

  /// This counter with `units` more added by `device` (a restock), or `nil` on overflow.
  public func adding(_ units: Int64, by device: DeviceID) -> Counter? {
    var increments = self.increments
    let (tally, overflow) = (increments[device] ?? 0).addingReportingOverflow(units)
    guard units >= 0, !overflow else { return nil }
    increments[device] = tally
    let moved = Counter(
      base: base, epoch: epoch, increments: increments, decrements: decrements)
    return moved.value == nil ? nil : moved
  }

  /// This counter with `units` more removed by `device` (a consume), or `nil` on overflow.
  public func removing(_ units: Int64, by device: DeviceID) -> Counter? {
    var decrements = self.decrements
    let (tally, overflow) = (decrements[device] ?? 0).addingReportingOverflow(units)
    guard units >= 0, !overflow else { return nil }
    decrements[device] = tally
    let moved = Counter(
      base: base, epoch: epoch, increments: increments, decrements: decrements)
    return moved.value == nil ? nil : moved
  }

  /// The merge of counters of one epoch: each device's larger tally.
  ///
  /// - Precondition: every counter is in the same epoch as this one.
  public func merged(with others: [Counter]) -> Counter {
    var increments = self.increments
    var decrements = self.decrements
    for other in others {
      increments.merge(other.increments, uniquingKeysWith: max)
      decrements.merge(other.decrements, uniquingKeysWith: max)
    }
    return Counter(base: base, epoch: epoch, increments: increments, decrements: decrements)
  }

  public var description: String {
    guard !isPlain else { return "\(base)" }
    let moves =
      increments.sorted { $0.key < $1.key }.map { "+\($0.value)" }
      + decrements.sorted { $0.key < $1.key }.map { "-\($0.value)" }
    let value = self.value.map { "\($0)" } ?? "overflow"
    return "\(value) (\(base) \(moves.joined(separator: " ")))"
  }
}
