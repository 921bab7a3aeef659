/// A dictionary whose entries sit side by side in one array, found through a small table of
/// positions: for the per-record tables a store holds for each of its records.
///
/// A `Dictionary` keeps a bucket for every key and value it could hold, and doubles them past
/// three quarters full: at 100,000 records (and at 1,000,000) its buckets are 262,144 (and
/// 2,097,152), two and a half times the records, each as wide as a key and a value. Here the
/// entries take one slot each in an array (grown as an array grows, or reserved exactly), and
/// the table that finds them holds 8 bytes a bucket: the position of an entry and 32 bits of
/// its key's hash (so that growing the table hashes no key again, and a probe compares a key
/// only when those bits match). Buckets are found by linear probing, at most half full;
/// removing an entry moves the last one into its place, so the entries stay side by side.
///
/// Entries are visited in the order they were added, except that a removal moves the last
/// entry into the removed one's place. Equality, like a dictionary's, ignores that order.
@frozen
public struct CompactDictionary<Key: Hashable, Value> {
  /// A key and its value. A struct, not a tuple: a tuple with generic parts was copied through
  /// the runtime's generic tuple copy, which looked up the tuple's type for every copy.
  @usableFromInline
  struct Entry {
    @usableFromInline var key: Key
    @usableFromInline var value: Value

    @inlinable
    init(_ key: Key, _ value: Value) {
      self.key = key
      self.value = value
    }
  }

  /// The entries, side by side.
  @usableFromInline var entries: ContiguousArray<Entry>
  /// The buckets: 0 when empty, else the low 32 bits of the key's hash in the high half and
  /// the entry's position plus one in the low half. Their count is a power of two (or zero).
  @usableFromInline var buckets: ContiguousArray<UInt64>

  /// An empty dictionary.
  @inlinable
  public init() {
    entries = []
    buckets = []
  }

  /// An empty dictionary with room for `capacity` entries.
  @inlinable
  public init(minimumCapacity capacity: Int) {
    self.init()
    reserveCapacity(capacity)
  }

  /// How many entries there are.
  @inlinable
  public var count: Int { entries.count }

  /// Whether there is none.
  @inlinable
  public var isEmpty: Bool { entries.isEmpty }

  /// The value of `key`, if any; setting `nil` removes it.
  @inlinable
  public subscript(key: Key) -> Value? {
    get {
      guard let position = position(of: key) else { return nil }
      return entries[position].value
    }
    set {
      if let newValue { updateValue(newValue, forKey: key) } else { removeValue(forKey: key) }
    }
    _modify {
      // Taken out while modified (and put back unless set to `nil`), so that a value holding
      // storage of its own is modified in place, not copied.
      var value = removeValue(forKey: key)
      defer { if let value { updateValue(value, forKey: key) } }
      yield &value
    }
  }

  /// Where the entry of `key` is among the entries (what ``withValue(at:_:)`` reads), until
  /// an entry is removed; `nil` when `key` has no value.
  @inlinable
  public func position(of key: Key) -> Int? {
    // An empty table answers without hashing the key (a first sync asks the empty mirror and
    // checkpoints about each of its records).
    buckets.isEmpty ? nil : find(key, hash: Self.hash(key)).entry
  }

  /// What `body` reads of the value of the entry at `position` (``position(of:)``), read where
  /// it is (not copied out), without finding its key again.
  @inlinable
  public func withValue<Result>(
    at position: Int, _ body: (borrowing Value) throws -> Result
  ) rethrows -> Result {
    try body(entries[position].value)
  }

  /// The value of `key`, or `defaultValue` added for it when it is modified: modified in
  /// place (a value holding storage of its own is not copied).
  @inlinable
  public subscript(key: Key, default defaultValue: @autoclosure () -> Value) -> Value {
    get { self[key] ?? defaultValue() }
    _modify {
      let position = position(adding: key, defaultValue)
      yield &entries[position].value
    }
  }

  /// Sets the value of `key`.
  ///
  /// - Returns: The value it replaced, if any.
  @inlinable
  @discardableResult
  public mutating func updateValue(_ value: Value, forKey key: Key) -> Value? {
    let hash = Self.hash(key)
    let found = find(key, hash: hash)
    if let position = found.entry {
      let old = entries[position].value
      entries[position].value = value
      return old
    }
    insert(key, value, hash: hash, at: found.bucket)
    return nil
  }

  /// Removes the value of `key`.
  ///
  /// - Returns: The value removed, if any.
  @inlinable
  @discardableResult
  public mutating func removeValue(forKey key: Key) -> Value? {
    guard !buckets.isEmpty else { return nil }
    let found = find(key, hash: Self.hash(key))
    guard let position = found.entry else { return nil }
    emptyBucket(found.bucket)
    let last = entries.count - 1
    if position != last {
      // The last entry moves into the removed one's place: its bucket follows it.
      let moved = bucket(of: entries[last].key, at: last)
      buckets[moved] = buckets[moved] & ~0xFFFF_FFFF | UInt64(position + 1)
      entries.swapAt(position, last)
    }
    return entries.removeLast().value
  }

  /// Removes every entry, and the room they took unless `keepingCapacity`.
  @inlinable
  public mutating func removeAll(keepingCapacity: Bool = false) {
    guard keepingCapacity else {
      entries = []
      buckets = []
      return
    }
    entries.removeAll(keepingCapacity: true)
    for bucket in buckets.indices { buckets[bucket] = 0 }
  }

  /// Makes room for `capacity` entries in all, so that adding them grows nothing.
  @inlinable
  public mutating func reserveCapacity(_ capacity: Int) {
    entries.reserveCapacity(capacity)
    if Self.bucketCount(for: capacity) > buckets.count { rebuild(Self.bucketCount(for: capacity)) }
  }

  /// The keys, in the entries' order.
  @inlinable
  public var keys: Keys { Keys(base: self) }

  /// The keys of a dictionary, in its entries' order; `contains` looks the key up.
  @frozen
  public struct Keys: RandomAccessCollection {
    @usableFromInline let base: CompactDictionary

    @inlinable
    init(base: CompactDictionary) { self.base = base }

    @inlinable
    public var startIndex: Int { 0 }

    @inlinable
    public var endIndex: Int { base.entries.count }

    @inlinable
    public subscript(position: Int) -> Key { base.entries[position].key }

    /// Whether the dictionary holds `key` (a lookup, not a walk).
    @inlinable
    public func contains(_ key: Key) -> Bool {
      base.position(of: key) != nil
    }
  }

  /// The values, in the entries' order.
  @inlinable
  public var values: Values { Values(base: self) }

  /// The values of a dictionary, in its entries' order.
  @frozen
  public struct Values: RandomAccessCollection {
    @usableFromInline let base: CompactDictionary

    @inlinable
    init(base: CompactDictionary) { self.base = base }

    @inlinable
    public var startIndex: Int { 0 }

    @inlinable
    public var endIndex: Int { base.entries.count }

    @inlinable
    public subscript(position: Int) -> Value { base.entries[position].value }
  }

  /// How many entries the array has room for.
  package var entryCapacity: Int { entries.capacity }

  /// How many buckets there are.
  package var bucketCount: Int { buckets.count }

  // MARK: Buckets

  /// The hash of a key, as the buckets hold it.
  @inlinable
  static func hash(_ key: Key) -> UInt32 {
    UInt32(truncatingIfNeeded: key.hashValue)
  }

  /// How many buckets `count` entries need: a power of two at least twice as many.
  @inlinable
  static func bucketCount(for count: Int) -> Int {
    count == 0 ? 0 : Swift.max(8, 1 << (Int.bitWidth - (2 * count - 1).leadingZeroBitCount))
  }

  /// Where `key` is: its entry's position if it has one, and its bucket (else the empty
  /// bucket where it would go; `-1` when there are no buckets).
  @inlinable
  func find(_ key: Key, hash: UInt32) -> (entry: Int?, bucket: Int) {
    guard !buckets.isEmpty else { return (nil, -1) }
    let mask = buckets.count - 1
    var bucket = Int(hash) & mask
    while true {
      let held = buckets[bucket]
      if held == 0 { return (nil, bucket) }
      if UInt32(truncatingIfNeeded: held >> 32) == hash {
        let position = Int(truncatingIfNeeded: held & 0xFFFF_FFFF) - 1
        if entries[position].key == key { return (position, bucket) }
      }
      bucket = (bucket + 1) & mask
    }
  }

  /// The bucket of the entry at `position`, whose key is `key`.
  @inlinable
  func bucket(of key: Key, at position: Int) -> Int {
    let mask = buckets.count - 1
    var bucket = Int(Self.hash(key)) & mask
    while Int(truncatingIfNeeded: buckets[bucket] & 0xFFFF_FFFF) != position + 1 {
      bucket = (bucket + 1) & mask
    }
    return bucket
  }

  /// The position of `key`'s entry, added with `defaultValue` when it has none.
  @inlinable
  mutating func position(adding key: Key, _ defaultValue: () -> Value) -> Int {
    let hash = Self.hash(key)
    let found = find(key, hash: hash)
    if let position = found.entry { return position }
    insert(key, defaultValue(), hash: hash, at: found.bucket)
    return entries.count - 1
  }

  /// Adds an entry for a key that has none; `bucket` is the empty one `find` gave.
  @inlinable
  mutating func insert(_ key: Key, _ value: Value, hash: UInt32, at bucket: Int) {
    entries.append(Entry(key, value))
    var bucket = bucket
    if Self.bucketCount(for: entries.count) > buckets.count {
      // From the count, not the array's room: an array's room is what malloc rounds up to,
      // and just past a power of two it would take twice the buckets.
      rebuild(Self.bucketCount(for: entries.count))
      bucket = emptyBucket(for: hash)
    }
    buckets[bucket] = UInt64(hash) << 32 | UInt64(entries.count)
  }

  /// The first empty bucket from `hash`'s own.
  @inlinable
  func emptyBucket(for hash: UInt32) -> Int {
    let mask = buckets.count - 1
    var bucket = Int(hash) & mask
    while buckets[bucket] != 0 { bucket = (bucket + 1) & mask }
    return bucket
  }

  /// Spreads the entries over `count` buckets, from the hashes the buckets hold.
  @inlinable
  mutating func rebuild(_ count: Int) {
    let old = buckets
    buckets = ContiguousArray(repeating: 0, count: count)
    for held in old where held != 0 {
      buckets[emptyBucket(for: UInt32(truncatingIfNeeded: held >> 32))] = held
    }
  }

  /// Empties a bucket, and moves back into it the entries after it that probed past it
  /// (linear probing's deletion: no bucket is marked as removed).
  @inlinable
  mutating func emptyBucket(_ bucket: Int) {
    let mask = buckets.count - 1
    var hole = bucket
    var next = (bucket + 1) & mask
    while buckets[next] != 0 {
      let home = Int(truncatingIfNeeded: buckets[next] >> 32) & mask
      // The entry stays unless its own bucket is cyclically outside (hole, next].
      let stays = hole <= next ? (hole < home && home <= next) : (hole < home || home <= next)
      if !stays {
        buckets[hole] = buckets[next]
        hole = next
      }
      next = (next + 1) & mask
    }
    buckets[hole] = 0
  }
}

extension CompactDictionary: Sequence {
  public typealias Element = (key: Key, value: Value)

  @inlinable
  public func makeIterator() -> Iterator { Iterator(entries: entries) }

  /// Visits the entries in order.
  @frozen
  public struct Iterator: IteratorProtocol {
    @usableFromInline let entries: ContiguousArray<Entry>
    @usableFromInline var position = 0

    @inlinable
    init(entries: ContiguousArray<Entry>) { self.entries = entries }

    @inlinable
    public mutating func next() -> Element? {
      guard position < entries.count else { return nil }
      defer { position += 1 }
      return (entries[position].key, entries[position].value)
    }
  }

  @inlinable
  public var underestimatedCount: Int { entries.count }
}

extension CompactDictionary: ExpressibleByDictionaryLiteral {
  /// The entries given (a key given twice keeps the last value).
  @inlinable
  public init(dictionaryLiteral elements: (Key, Value)...) {
    self.init(minimumCapacity: elements.count)
    for (key, value) in elements { updateValue(value, forKey: key) }
  }
}

extension CompactDictionary: Equatable where Value: Equatable {
  /// Whether both hold the same keys with equal values, in whatever order.
  @inlinable
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.count == rhs.count && lhs.entries.allSatisfy { rhs[$0.key] == $0.value }
  }
}

extension CompactDictionary: Sendable where Key: Sendable, Value: Sendable {}
extension CompactDictionary.Keys: Sendable where Key: Sendable, Value: Sendable {}
extension CompactDictionary.Values: Sendable where Key: Sendable, Value: Sendable {}
extension CompactDictionary.Entry: Sendable where Key: Sendable, Value: Sendable {}
