/// Values by ``RowID``, held in an array indexed by the row's number while the rows are dense.
///
/// A store numbers its rows from 1 as they are added, so its live rows are nearly all the
/// numbers up to its highest: an array indexed by the number finds a row without hashing it,
/// grows without rehashing every row, and takes a slot a row where a dictionary at 100,000
/// rows took 2.6 (its buckets double past three quarters full). A row far beyond the others (a
/// damaged or hand-edited line can name any number) is kept in a dictionary beside the array,
/// and when fewer than a quarter of the array's slots hold a row (most rows removed), every
/// row moves to the dictionary: the map never takes much more than a dictionary would.
///
/// Rows are visited in their order (the rows beyond the array sorted as they are visited).
public struct RowMap<Value: Sendable>: Sendable {
  /// `slots[i]` holds row `i + 1`.
  @usableFromInline var slots: ContiguousArray<Value?> = []
  /// The rows not in `slots`: every one below 1 or beyond `slots.count`.
  @usableFromInline var outliers: [RowID: Value] = [:]
  /// How many rows `slots` holds.
  @usableFromInline var slotted = 0

  /// An empty map.
  public init() {}

  /// How many rows hold a value.
  @inlinable public var count: Int { slotted + outliers.count }

  /// Whether no row holds a value.
  @inlinable public var isEmpty: Bool { count == 0 }

  /// Below this many slots the array is kept however sparse it is.
  private static var smallestSparseArray: Int { 4_096 }

  /// The value of `row`, if any.
  public subscript(row: RowID) -> Value? {
    @inlinable get {
      if let slot = slot(of: row) { return slots[slot] }
      return outliers.isEmpty ? nil : outliers[row]
    }
    set {
      if let newValue { updateValue(newValue, forKey: row) } else { removeValue(forKey: row) }
    }
  }

  /// Sets the value of `row`.
  ///
  /// - Returns: The value it replaced, if any.
  @discardableResult
  public mutating func updateValue(_ value: Value, forKey row: RowID) -> Value? {
    if slot(of: row) == nil, row.rawValue >= 1, row.rawValue <= arrayBound {
      // With rows beside the array, it at least doubles, so that they are looked over (to
      // move those it now covers) a few times, not at every new row; without, it takes
      // exactly the rows it holds.
      let doubled = outliers.isEmpty ? 0 : Swift.min(arrayBound, Int64(2 * slots.count))
      grow(through: Int(Swift.max(row.rawValue, doubled)))
    }
    guard let slot = slot(of: row) else { return outliers.updateValue(value, forKey: row) }
    let old = slots[slot]
    slots[slot] = value
    if old == nil { slotted += 1 }
    return old
  }

  /// Removes the value of `row`.
  ///
  /// - Returns: The value removed, if any.
  @discardableResult
  public mutating func removeValue(forKey row: RowID) -> Value? {
    guard let slot = slot(of: row) else {
      return outliers.isEmpty ? nil : outliers.removeValue(forKey: row)
    }
    guard let old = slots[slot] else { return nil }
    slots[slot] = nil
    slotted -= 1
    if slots.count > Self.smallestSparseArray, slotted < slots.count / 4 { moveSlotsAside() }
    return old
  }

  /// Removes every value.
  public mutating func removeAll() {
    slots = []
    outliers = [:]
    slotted = 0
  }

  /// Makes room in the array for `added` new rows, the highest of them `last` (a large
  /// transaction's), when the array will hold them.
  public mutating func reserveCapacity(adding added: Int, through last: RowID) {
    guard last.rawValue >= 1, last.rawValue <= arrayBound(adding: added) else { return }
    slots.reserveCapacity(Int(last.rawValue))
  }

  /// The rows, in their order.
  public var keys: [RowID] { map(\.key) }

  /// The values, in their rows' order.
  @inlinable public var values: Values { Values(map: self) }

  /// The values of a map, in their rows' order.
  public struct Values: Sequence {
    @usableFromInline let map: RowMap

    @inlinable init(map: RowMap) { self.map = map }

    @inlinable public func makeIterator() -> LazyMapSequence<RowMap, Value>.Iterator {
      map.lazy.map(\.value).makeIterator()
    }

    @inlinable public var underestimatedCount: Int { map.count }

    /// The first row's value.
    public var first: Value? { map.first(where: { _ in true })?.value }
  }

  /// How many rows the array holds (the rest are in the dictionary beside it).
  package var rowsInArray: Int { slotted }

  /// How many times the array grew with rows beside it, and looked them over.
  package private(set) var lookedOver = 0

  // MARK: The array

  /// The slot of `row` when the array holds it.
  @inlinable func slot(of row: RowID) -> Int? {
    row.rawValue >= 1 && row.rawValue <= Int64(slots.count) ? Int(row.rawValue) - 1 : nil
  }

  /// The highest row the array may grow to hold: twice the rows (and at least 4,096).
  private var arrayBound: Int64 { arrayBound(adding: 1) }

  private func arrayBound(adding rows: Int) -> Int64 {
    Int64(Swift.max(Self.smallestSparseArray, 2 * (count + Swift.max(0, rows))))
  }

  /// Grows the array to hold row `number`, and moves into it the rows it now covers.
  private mutating func grow(through number: Int) {
    slots.append(contentsOf: repeatElement(nil, count: number - slots.count))
    guard !outliers.isEmpty else { return }
    lookedOver += 1
    for row in outliers.keys.filter({ slot(of: $0) != nil }) {
      guard let value = outliers.removeValue(forKey: row) else { continue }
      slots[Int(row.rawValue) - 1] = value
      slotted += 1
    }
  }

  /// Moves every row of the array to the dictionary (too few rows are left in it).
  private mutating func moveSlotsAside() {
    outliers.reserveCapacity(count)
    for (index, value) in slots.enumerated() {
      if let value { outliers[RowID(Int64(index) + 1)] = value }
    }
    slots = []
    slotted = 0
  }
}

extension RowMap: Sequence {
  /// Visits the rows in their order.
  public struct Iterator: IteratorProtocol {
    @usableFromInline let slots: ContiguousArray<Value?>
    @usableFromInline var slot = 0
    @usableFromInline var below: IndexingIterator<[(key: RowID, value: Value)]>
    @usableFromInline var above: IndexingIterator<[(key: RowID, value: Value)]>

    @inlinable init(_ map: RowMap) {
      slots = map.slots
      let outliers = map.outliers.sorted { $0.key < $1.key }
      below = outliers.filter { $0.key.rawValue < 1 }.makeIterator()
      above = outliers.filter { $0.key.rawValue >= 1 }.makeIterator()
    }

    @inlinable public mutating func next() -> (key: RowID, value: Value)? {
      if let outlier = below.next() { return outlier }
      while slot < slots.count {
        slot += 1
        if let value = slots[slot - 1] { return (RowID(Int64(slot)), value) }
      }
      return above.next()
    }
  }

  @inlinable public func makeIterator() -> Iterator { Iterator(self) }

  @inlinable public var underestimatedCount: Int { count }
}
