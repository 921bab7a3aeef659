import CloudFolder
import JSONLines
import LocalStore
import StashFiles
public import StashModel

extension DeviceFolder {
  /// The live items, by name then id.
  public func items() -> [Item] {
    guard let content else { return [] }
    return content.records(of: "item").compactMap { try? Item(record: $0) }.sorted {
      ($0.name.lowercased(), $0.id) < ($1.name.lowercased(), $1.id)
    }
  }

  /// The item `text` names (an id, a unique id prefix, or an exact name).
  ///
  /// - Throws: ``StashError`` when nothing or several items match.
  public func item(_ text: String) throws(StashError) -> Item {
    guard let content else { throw .refused("No item named '\(text)'; the inventory is empty") }
    let row = try find(text, model: "item", in: content)
    do { return try Item(record: row.record) } catch { throw StashError(error) }
  }

  /// Adds a new item (validated; its photo, if any, already stored with ``storePhoto(at:)``).
  ///
  /// - Returns: The saved item.
  /// - Throws: ``StashError`` for an invalid item or a failed save.
  @discardableResult
  public func addItem(_ item: Item) throws(StashError) -> Item {
    do { try item.validate() } catch { throw StashError(error) }
    _ = try save("the new item '\(item.name)'") { _, transaction throws(StashError) in
      try StashError.model(transaction.insert(item.record))
    }
    return item
  }

  /// Copies a photo file into the folder's blobs.
  ///
  /// - Parameter path: The photo file: a regular file (a FIFO or a device is refused at once,
  ///   never waited on).
  /// - Returns: The reference an item stores.
  /// - Throws: ``StashError`` when the file cannot be read or stored.
  public func storePhoto(at path: String) throws(StashError) -> BlobRef {
    let bytes: [UInt8]
    // Larger photos are refused by other devices (CloudLimits), so they are refused here first.
    let limit = min(BlobStore.maximumBlobBytes, CloudLimits.photoBytes)
    do throws(InputFile.Problem) {
      bytes = try InputFile.read(path, fileSystem: fileSystem, maximumBytes: limit)
    } catch {
      if let size = error.tooLarge {
        throw .refused(
          "The photo '\(path)' is \(size >> 20) MiB, more than the \(limit >> 20) MiB a photo may "
            + "be, so that every device can receive it; make it smaller")
      }
      throw .refused("Cannot read the photo '\(path)': \(error.reason); give a photo file")
    }
    do throws(BlobError) {
      return try blobs.store(bytes)
    } catch {
      throw .refused(error.description)
    }
  }

  /// Records that `count` units of an item were used: a move, which merges with moves made
  /// on other devices at the same time (this device's tally of used units grows by `count`).
  ///
  /// - Returns: The item after the change.
  /// - Throws: ``StashError`` when `count` is not positive or more than is left (the message
  ///   says how many are left), or the save fails.
  @discardableResult
  public func consume(_ text: String, count: Int64 = 1) throws(StashError) -> Item {
    guard count > 0 else {
      throw .refused("Consume a positive number of units, not '\(count)'")
    }
    let device = try writingDevice()
    return try editItem(text, action: "consuming \(count)") { item throws(StashError) in
      guard count <= item.quantity, let moved = item.stock.removing(count, by: device) else {
        let unit = item.unit.isEmpty ? "" : " \(item.unit)"
        throw .refused(
          "Cannot consume \(count) of '\(item.name)': only \(item.quantity)\(unit) left")
      }
      item.stock = moved
    }
  }

  /// Records that `count` units of an item were added: a move, like ``consume(_:count:)``.
  ///
  /// - Throws: ``StashError`` when `count` is not positive or the total would be absurd.
  @discardableResult
  public func restock(_ text: String, count: Int64) throws(StashError) -> Item {
    guard count > 0 else {
      throw .refused("Restock a positive number of units, not '\(count)'")
    }
    let device = try writingDevice()
    return try editItem(text, action: "restocking \(count)") { item throws(StashError) in
      let room = Limits.maximumQuantity.subtractingReportingOverflow(item.quantity)
      guard !room.overflow, count <= room.partialValue,
        let moved = item.stock.adding(count, by: device)
      else {
        throw .refused(
          "Restocking \(count) would put '\(item.name)' over \(Limits.maximumQuantity) units")
      }
      item.stock = moved
    }
  }

  /// Sets an item's quantity: a recount ("there are N now"), which starts a new epoch of its
  /// stock. A move made elsewhere at the same time cannot be ordered against it, so it never
  /// merges with one: the two are kept as a conflict.
  ///
  /// - Returns: The item after the change.
  @discardableResult
  public func recount(_ text: String, to quantity: Int64) throws(StashError) -> Item {
    try editItem(text, action: "the recount") { item throws(StashError) in
      item.stock = .recount(to: quantity, epoch: self.newEpoch())
    }
  }

  /// A new counter epoch, from the folder's source of identifiers (repeatable in tests).
  package func newEpoch() -> CounterEpoch { CounterEpoch(newIdentifier()) }

  /// Changes an item: `change` edits the freshest copy; `updatedAt` becomes now.
  ///
  /// - Returns: The item after the change.
  /// - Throws: What `change` throws, ``StashError`` for an invalid result or a failed save.
  @discardableResult
  public func editItem(
    _ text: String, action: String = "the edit",
    _ change: (inout Item) throws(StashError) -> Void
  ) throws(StashError) -> Item {
    try editItem(action: action, change) { content throws(StashError) in
      try self.find(text, model: "item", in: content)
    }
  }

  /// Changes an item the caller already resolved with ``item(_:)``: the save takes the
  /// freshest copy of that record by its key, without looking its name up again.
  ///
  /// - Returns: The item after the change.
  /// - Throws: What `change` throws, ``StashError`` for an invalid result, an item deleted
  ///   meanwhile, or a failed save.
  @discardableResult
  public func editItem(
    _ resolved: Item, action: String = "the edit",
    _ change: (inout Item) throws(StashError) -> Void
  ) throws(StashError) -> Item {
    try editItem(action: action, change) { content throws(StashError) in
      try self.row(resolved: RecordKey(model: "item", id: resolved.id), in: content)
    }
  }

  private func editItem(
    action: String, _ change: (inout Item) throws(StashError) -> Void,
    row: (LocalContent) throws(StashError) -> StoredRow
  ) throws(StashError) -> Item {
    let now = clock()
    return try save(action) { content, transaction throws(StashError) in
      let row = try row(content)
      var item = try StashError.model(Item(record: row.record))
      try change(&item)
      item.updatedAt = now
      try StashError.model(item.validate())
      try StashError.model(transaction.replace(row.row, with: item.record))
      return item
    }
  }

  /// Adds a copy of an item with a new id (and optionally a new name).
  ///
  /// - Returns: The new item.
  @discardableResult
  public func duplicateItem(_ text: String, name: String? = nil) throws(StashError) -> Item {
    let now = clock()
    return try save("the copy of '\(text)'") { content, transaction throws(StashError) in
      let row = try self.find(text, model: "item", in: content)
      var copy = try StashError.model(Item(record: row.record))
      copy.id = self.newIdentifier()
      // Creating a record is a recount (DESIGN, "Counters"): the copy starts at the count
      // shown, with no moves of its own yet (the original's tallies are not the copy's).
      copy.stock = Counter(base: copy.quantity)
      if let name { copy.name = name }
      copy.createdAt = now
      copy.updatedAt = now
      try StashError.model(copy.validate())
      try StashError.model(transaction.insert(copy.record))
      return copy
    }
  }

  /// Deletes an item explicitly: a tombstone and the row's removal in one transaction.
  ///
  /// - Returns: The deleted item.
  @discardableResult
  public func deleteItem(_ text: String) throws(StashError) -> Item {
    try delete(text, model: "item") { (record) throws(ModelError) in try Item(record: record) }
  }

  /// Deletes a record of any inventory model explicitly.
  func delete<T>(
    _ text: String, model: String, as view: (Record) throws(ModelError) -> T
  ) throws(StashError) -> T {
    let now = clock()
    return try save("the delete of '\(text)'") { content, transaction throws(StashError) in
      let row = try self.find(text, model: model, in: content)
      transaction.delete(row, at: now)
      return try StashError.model(view(row.record))
    }
  }
}
