import CloudFolder
import JSONLines
import LocalStore
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
    _ = try save("the new item '\(item.name)'") { _, transaction in
      try transaction.insert(item.record)
    }
    return item
  }

  /// Copies a photo file into the folder's blobs.
  ///
  /// - Parameter path: The photo file.
  /// - Returns: The reference an item stores.
  /// - Throws: ``StashError`` when the file cannot be read or stored.
  public func storePhoto(at path: String) throws(StashError) -> BlobRef {
    // Larger photos are refused by other devices, so they are refused here first.
    if let size = try? fileSystem.identity(atPath: path)?.size, size > CloudLimits.photoBytes {
      throw .refused(
        "The photo '\(path)' is \(size >> 20) MiB; a photo may have at most "
          + "\(CloudLimits.photoBytes >> 20) MiB so that every device can receive it")
    }
    do throws(BlobError) {
      return try blobs.store(contentsOf: path)
    } catch {
      if case .unreadable(_, let reason) = error {
        throw .refused("Cannot read the photo '\(path)': \(reason.reason)")
      }
      throw .refused(error.description)
    }
  }

  /// Records that `count` units of an item were used.
  ///
  /// - Returns: The item after the change.
  /// - Throws: ``StashError`` when `count` is not positive or more than is left (the message
  ///   says how many are left), or the save fails.
  @discardableResult
  public func consume(_ text: String, count: Int64 = 1) throws(StashError) -> Item {
    guard count > 0 else {
      throw .refused("Consume a positive number of units, not '\(count)'")
    }
    return try editItem(text, action: "consuming \(count)") { item throws(StashError) in
      // Checked arithmetic: the stored quantity may be anything an older import let in.
      let (left, overflow) = item.quantity.subtractingReportingOverflow(count)
      guard count <= item.quantity, !overflow else {
        let unit = item.unit.isEmpty ? "" : " \(item.unit)"
        throw .refused(
          "Cannot consume \(count) of '\(item.name)': only \(item.quantity)\(unit) left")
      }
      item.quantity = left
    }
  }

  /// Records that `count` units of an item were added.
  ///
  /// - Throws: ``StashError`` when `count` is not positive or the total would be absurd.
  @discardableResult
  public func restock(_ text: String, count: Int64) throws(StashError) -> Item {
    guard count > 0 else {
      throw .refused("Restock a positive number of units, not '\(count)'")
    }
    return try editItem(text, action: "restocking \(count)") { item throws(StashError) in
      // Checked arithmetic: the stored quantity may be anything an older import let in (the
      // result is validated like any edit afterwards).
      let (total, overflow) = item.quantity.addingReportingOverflow(count)
      guard !overflow, total <= Limits.maximumQuantity else {
        throw .refused(
          "Restocking \(count) would put '\(item.name)' over \(Limits.maximumQuantity) units")
      }
      item.quantity = total
    }
  }

  /// Changes an item: `change` edits the freshest copy; `updatedAt` becomes now.
  ///
  /// - Returns: The item after the change.
  /// - Throws: What `change` throws, ``StashError`` for an invalid result or a failed save.
  @discardableResult
  public func editItem(
    _ text: String, action: String = "the edit",
    _ change: (inout Item) throws(StashError) -> Void
  ) throws(StashError) -> Item {
    let now = clock()
    return try save(action) { content, transaction in
      let row = try self.find(text, model: "item", in: content)
      var item = try Item(record: row.record)
      try change(&item)
      item.updatedAt = now
      try item.validate()
      try transaction.replace(row.row, with: item.record)
      return item
    }
  }

  /// Adds a copy of an item with a new id (and optionally a new name).
  ///
  /// - Returns: The new item.
  @discardableResult
  public func duplicateItem(_ text: String, name: String? = nil) throws(StashError) -> Item {
    let now = clock()
    return try save("the copy of '\(text)'") { content, transaction in
      let row = try self.find(text, model: "item", in: content)
      var copy = try Item(record: row.record)
      copy.id = self.newIdentifier()
      if let name { copy.name = name }
      copy.createdAt = now
      copy.updatedAt = now
      try copy.validate()
      try transaction.insert(copy.record)
      return copy
    }
  }

  /// Deletes an item explicitly: a tombstone and the row's removal in one transaction.
  ///
  /// - Returns: The deleted item.
  @discardableResult
  public func deleteItem(_ text: String) throws(StashError) -> Item {
    try delete(text, model: "item") { try Item(record: $0) }
  }

  /// Deletes a record of any inventory model explicitly.
  func delete<T>(
    _ text: String, model: String, as view: (Record) throws -> T
  ) throws(StashError) -> T {
    let now = clock()
    return try save("the delete of '\(text)'") { content, transaction in
      let row = try self.find(text, model: model, in: content)
      transaction.delete(row, at: now)
      return try view(row.record)
    }
  }

  /// Runs one save of the local store, turning every failure into a ``StashError``.
  func save<T>(
    _ action: String, _ body: (LocalContent, inout LocalTransaction) throws -> T
  ) throws(StashError) -> T {
    let store = try writableStore()
    do {
      return try store.update(action, origin: .user, body)
    } catch {
      throw StashError(wrapping: error)
    }
  }
}
