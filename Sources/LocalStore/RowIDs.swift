/// The rows that carry one record key, in the order they were filed (``LocalContent/rowsByKey``).
///
/// A key almost always has one row (more is a duplicate id): it is held inline, with no array.
/// An array per key cost every whole-store read an allocation per record, 48 bytes of heap
/// each (4.8 MB at 100,000 records, 48 MB at a million). Several rows, or none, are held in an
/// array, which is empty without an allocation.
public struct RowIDs: RandomAccessCollection, Hashable, Sendable, ExpressibleByArrayLiteral {
  private enum Storage: Hashable, Sendable {
    case one(RowID)
    /// None, or two and more.
    case many([RowID])
  }

  private var storage: Storage

  /// No rows.
  public init() { storage = .many([]) }

  /// The rows given, in order.
  public init(arrayLiteral rows: RowID...) { self.init(rows) }

  /// The rows of a sequence, in order.
  public init(_ rows: some Sequence<RowID>) {
    let all = Array(rows)
    storage = all.count == 1 ? .one(all[0]) : .many(all)
  }

  public var startIndex: Int { 0 }

  public var endIndex: Int {
    switch storage {
    case .one: 1
    case .many(let rows): rows.count
    }
  }

  public subscript(position: Int) -> RowID {
    switch storage {
    case .one(let row):
      precondition(position == 0, "Index out of range")
      return row
    case .many(let rows): return rows[position]
    }
  }

  /// Files one more row after the others.
  public mutating func append(_ row: RowID) {
    switch storage {
    case .one(let only): storage = .many([only, row])
    case .many(var rows):
      guard !rows.isEmpty else {
        storage = .one(row)
        return
      }
      storage = .many([])  // the array is uniquely referenced while it grows
      rows.append(row)
      storage = .many(rows)
    }
  }

  /// Removes the rows that satisfy `shouldBeRemoved`, keeping the others in order.
  public mutating func removeAll(where shouldBeRemoved: (RowID) throws -> Bool) rethrows {
    let kept = try filter { try !shouldBeRemoved($0) }
    storage = kept.count == 1 ? .one(kept[0]) : .many(kept)
  }
}

extension RowIDs {
  /// Whether the rows are held in an allocated array (two and more: a duplicate id).
  package var holdsArray: Bool {
    if case .many(let rows) = storage { rows.capacity > 0 } else { false }
  }
}
