/// An import file's entries, in file order, held in blocks of ``blockSize``.
///
/// An import makes each entry's record and lets the entry go, a block at a time
/// (``removeAll(inOrder:)``). Held in one array until the last record was made, every entry
/// sat beside every record: 30 MB of entries beside 35 MB of records at the end of a
/// 100,000-row CSV import, which was its peak (issue 26, item 4).
public struct ImportEntries: Sequence, Hashable, Sendable {
  /// How many entries a block holds: about 75 KB of them, so that what is let go at once is
  /// small, and the blocks' list is short (391 blocks at 100,000 entries).
  static let blockSize = 256

  private var blocks: [[ImportEntry]] = []
  /// How many entries there are.
  public private(set) var count = 0

  /// Whether there are none.
  public var isEmpty: Bool { count == 0 }

  /// Adds an entry after the others.
  mutating func append(_ entry: ImportEntry) {
    if blocks.isEmpty || blocks[blocks.count - 1].count == Self.blockSize { blocks.append([]) }
    blocks[blocks.count - 1].append(entry)
    count += 1
  }

  public func makeIterator() -> FlattenSequence<[[ImportEntry]]>.Iterator {
    blocks.joined().makeIterator()
  }

  /// Hands every entry to `body` in order, letting each block go once its entries were
  /// handed on; leaves no entry, even when `body` throws.
  mutating func removeAll<Failure: Error>(
    inOrder body: (ImportEntry) throws(Failure) -> Void
  ) throws(Failure) {
    var blocks: [[ImportEntry]] = []
    swap(&blocks, &self.blocks)
    count = 0
    for index in blocks.indices {
      var block: [ImportEntry] = []
      swap(&block, &blocks[index])
      for entry in block { try body(entry) }
    }
  }
}
