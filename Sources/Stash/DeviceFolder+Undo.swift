import LocalStore
public import StashModel

/// What `stash undo` did.
public struct UndoOutcome: Sendable {
  /// The change that was reverted (this device's last change to the item).
  public let undone: HistoryEvent
  /// The item after the undo; `nil` when the undo deleted it (it reverted its creation).
  public let item: Item?
  /// Whether the undo brought a deleted item back, as a new item (the deletion itself stays:
  /// other devices may have acted on it).
  public let restoredAsCopy: Bool
}

extension DeviceFolder {
  /// Reverts the last change this device made to an item, as a new change that travels like
  /// any edit: a consume is undone by a restock of as many units (a move, which merges with
  /// moves made elsewhere), a recount by a recount to the earlier value, an edit by setting
  /// the fields it changed back, a creation by a deletion, and a deletion by adding the
  /// deleted item again as a new item.
  ///
  /// A field another device changed since (its value is no longer what this device set) is
  /// not overwritten: the undo is refused, naming the field. Undoing again reverts the undo.
  ///
  /// - Parameter text: An id, id prefix or name of the item (the id of a deleted one).
  /// - Returns: What was undone, and the item after.
  /// - Throws: ``StashError`` when this device never changed the item, a field changed since,
  ///   there is not enough stock to undo a restock, or the save fails.
  @discardableResult
  public func undo(_ text: String) throws(StashError) -> UndoOutcome {
    let (key, events) = try history(of: text, model: "item")
    guard let device = deviceID,
      let index = events.lastIndex(where: { $0.author == device })
    else {
      throw StashError(
        .refused,
        "This device made no change to '\(text)' to undo; its history shows who changed it",
        hint: .showHistory(item: text))
    }
    let event = events[index]
    let id = key.id.rawValue
    switch event.kind {
    case .created where content?.row(for: key) != nil:
      guard index == events.count - 1 else {
        throw .refused(
          "'\(text)' was changed on another device after this device created it; undoing the "
            + "creation would delete those changes: delete the item if that is meant")
      }
      try deleteItem(id)
      return UndoOutcome(undone: event, item: nil, restoredAsCopy: false)
    case .deleted:
      let before = events[..<index].last { $0.record != nil }?.record
      guard let before, var copy = try? Item(record: before) else {
        throw .refused("The deleted version of '\(text)' is not known here; nothing to restore")
      }
      copy.id = newIdentifier()
      copy.createdAt = clock()
      copy.updatedAt = copy.createdAt
      return UndoOutcome(undone: event, item: try addItem(copy), restoredAsCopy: true)
    default:
      // Its moves go under the identity the write is saved as (a copy's own, once it wrote).
      let writer = try writingDevice()
      let item = try editItem(id, action: "the undo") { item throws(StashError) in
        try self.revert(event.changes, of: &item, by: writer)
      }
      return UndoOutcome(undone: event, item: item, restoredAsCopy: false)
    }
  }

  /// Sets each changed field back, when it still holds what the change set.
  private func revert(
    _ changes: [FieldChange], of item: inout Item, by device: DeviceID
  ) throws(StashError) {
    var record = item.record
    for change in changes where change.field != "quantity" {
      guard record[field: change.field] == change.after else {
        throw .refused(
          "'\(change.field)' of '\(item.name)' changed since this device set it; edit it "
            + "instead")
      }
      do { try record.set(change.field, to: change.before ?? .none) } catch {
        throw StashError(error)
      }
    }
    do { item = try Item(record: record) } catch { throw StashError(error) }
    guard let change = changes.first(where: { $0.field == "quantity" }),
      case .counter(let before)? = change.before, case .counter(let after)? = change.after,
      let old = before.value, let new = after.value
    else { return }
    if !after.isSameEpoch(as: before) {
      item.stock = .recount(to: old, epoch: newEpoch())
      return
    }
    let moved =
      new < old
      ? item.stock.adding(old - new, by: device) : item.stock.removing(new - old, by: device)
    guard let moved, (moved.value ?? -1) >= 0 else {
      throw .refused(
        "Undoing would take \(new - old) of '\(item.name)' away, and only \(item.quantity) "
          + "are left")
    }
    item.stock = moved
  }
}
