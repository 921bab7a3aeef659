import JSONLines
import LocalStore
public import StashModel

/// The live items in the order `stash list` shows them (by name ignoring case, then id), read
/// one at a time: what ``DeviceFolder/itemListing()`` returns.
///
/// From a folder opened for a few records (`list` opens it so), the listing holds only each
/// item's row, id, name and line; iterating it reads, decodes and hands over one item at a
/// time, so a listing's memory follows the number of items, not the records. From a folder
/// read whole it walks ``DeviceFolder/items()``. Both give the same items in the same order.
public struct ItemListing: Sequence, Sendable {
  enum Source: Sendable {
    case items([Item])
    case rows(LocalStore, [LocalStore.ListedRow])
  }

  let source: Source

  /// How many rows the listing walks (items, and rows that do not read as an item and are
  /// skipped).
  public var count: Int {
    switch source {
    case .items(let items): items.count
    case .rows(_, let rows): rows.count
    }
  }

  /// Whether the listing reads its rows one at a time from the store file (`false`: it walks
  /// items already in memory).
  public var readsRowByRow: Bool {
    if case .rows = source { true } else { false }
  }

  /// The items in order, each read when the iteration reaches it.
  public func makeIterator() -> Iterator { Iterator(source: source) }

  /// Reads the items one at a time.
  ///
  /// A row whose line is no longer what the index said (the store changed under the
  /// listing, which the folder's lock rules out) is left out, as a row that does not read as
  /// an item is: every line passed its checksum before the listing was made.
  public struct Iterator: IteratorProtocol {
    let source: Source
    var position = 0

    /// The next item, or `nil` after the last.
    public mutating func next() -> Item? {
      switch source {
      case .items(let items):
        guard position < items.count else { return nil }
        position += 1
        return items[position - 1]
      case .rows(let store, let rows):
        while position < rows.count {
          position += 1
          if let stored = try? store.read(rows[position - 1]),
            let item = try? Item(record: stored.record)
          {
            return item
          }
        }
        return nil
      }
    }
  }
}

extension DeviceFolder {
  /// The live items as `stash list` shows them, to be read one at a time (``ItemListing``).
  ///
  /// A folder opened for a few records lists its items through the local store's index
  /// (``LocalStore/listedRows(of:)``): each item's row, id, name and line, sorted, and no
  /// record read yet. When the index cannot answer (or the open could not use it), the store
  /// is read whole and its index written again, as a query does, and the listing walks
  /// ``items()``.
  ///
  /// - Throws: ``StashError`` when the store must be read whole and cannot be.
  public func itemListing() throws(StashError) -> ItemListing {
    guard let local, let content, !content.isComplete else {
      // Opened for no record but read whole (the index missing, behind or failing a check):
      // write the index again now, so that the next listing reads through it, as a query does.
      if let local, case .ignored = local.openReport.index { local.maintainIndex() }
      return ItemListing(source: .items(items()))
    }
    if var rows = local.listedRows(of: "item") {
      rows.sort { ($0.name, $0.id, $0.row) < ($1.name, $1.id, $1.row) }
      return ItemListing(source: .rows(local, rows))
    }
    do { _ = try local.rows(of: "item", selecting: .all) } catch { throw StashError(error) }
    return ItemListing(source: .items(items()))
  }

  /// Every live location, by name then id, as ``locations()`` gives them for a folder read
  /// whole; a folder opened for a few records reads them through its index (see
  /// ``SyncFolder/records(_:)``).
  ///
  /// - Throws: ``StashError`` when the store must be read whole and cannot be.
  public func everyLocation() throws(StashError) -> [Location] {
    guard let local, let content, !content.isComplete else { return locations() }
    let rows: [StoredRow]
    do { rows = try local.rows(of: "location", selecting: .all) } catch {
      throw StashError(error)
    }
    return rows.sorted { $0.row < $1.row }.compactMap { try? Location(record: $0.record) }
      .sorted { ($0.name.lowercased(), $0.id) < ($1.name.lowercased(), $1.id) }
  }
}
