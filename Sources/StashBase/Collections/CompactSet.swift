/// A set whose members sit side by side in one array (a ``CompactDictionary`` without
/// values): for sets of a store's records or versions, where a `Set` keeps two and a half
/// buckets a member at 100,000 of them.
///
/// Members are visited in the order they were added, except that a removal moves the last
/// member into the removed one's place; they can be read by position, without a copy.
@frozen
public struct CompactSet<Element: Hashable> {
  @usableFromInline var table: CompactDictionary<Element, Void>

  /// An empty set.
  @inlinable
  public init() { table = CompactDictionary() }

  /// An empty set with room for `capacity` members.
  @inlinable
  public init(minimumCapacity capacity: Int) {
    table = CompactDictionary(minimumCapacity: capacity)
  }

  /// The members of `sequence` (each once).
  @inlinable
  public init(_ sequence: some Sequence<Element>) {
    self.init(minimumCapacity: sequence.underestimatedCount)
    for member in sequence { insert(member) }
  }

  /// Adds `member`; returns whether it was not in the set.
  @inlinable
  @discardableResult
  public mutating func insert(_ member: Element) -> Bool {
    table.updateValue((), forKey: member) == nil
  }

  /// Removes `member`; returns whether it was in the set.
  @inlinable
  @discardableResult
  public mutating func remove(_ member: Element) -> Bool {
    table.removeValue(forKey: member) != nil
  }

  /// Removes every member of `members`.
  @inlinable
  public mutating func subtract(_ members: some Sequence<Element>) {
    for member in members { remove(member) }
  }

  /// How many members the array has room for.
  package var capacity: Int { table.entryCapacity }

  /// Makes room for `capacity` members in all.
  @inlinable
  public mutating func reserveCapacity(_ capacity: Int) { table.reserveCapacity(capacity) }
}

extension CompactSet: RandomAccessCollection {
  @inlinable
  public var startIndex: Int { 0 }

  @inlinable
  public var endIndex: Int { table.count }

  @inlinable
  public subscript(position: Int) -> Element { table.entries[position].key }

  /// Whether the set holds `member` (a lookup, not a walk).
  @inlinable
  public func contains(_ member: Element) -> Bool { table[member] != nil }
}

extension CompactSet: ExpressibleByArrayLiteral {
  @inlinable
  public init(arrayLiteral members: Element...) { self.init(members) }
}

extension CompactSet: Equatable {
  /// Whether both hold the same members, in whatever order.
  @inlinable
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.count == rhs.count && lhs.allSatisfy(rhs.contains)
  }
}

extension CompactSet: Sendable where Element: Sendable {}
