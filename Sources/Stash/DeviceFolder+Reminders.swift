import LocalStore
public import StashModel

extension DeviceFolder {
  /// The live reminders, oldest first (then by id).
  public func reminders() -> [Reminder] {
    guard let content else { return [] }
    return content.records(of: "reminder").compactMap { try? Reminder(record: $0) }.sorted {
      ($0.createdAt, $0.id) < ($1.createdAt, $1.id)
    }
  }

  /// The reminder `text` names: an id, a unique id prefix, or its exact message.
  ///
  /// - Throws: ``StashError`` when nothing or several reminders match.
  public func reminder(_ text: String) throws(StashError) -> Reminder {
    guard let content else {
      throw .refused("No reminder named '\(text)'; there are no reminders yet")
    }
    let row = try find(text, model: "reminder", in: content)
    do { return try Reminder(record: row.record) } catch { throw StashError(error) }
  }

  /// Adds a new reminder (validated). Its location (and item) are ids the caller resolved;
  /// like every reference they may dangle later.
  ///
  /// - Returns: The saved reminder.
  /// - Throws: ``StashError`` for an invalid reminder or a failed save.
  @discardableResult
  public func addReminder(_ reminder: Reminder) throws(StashError) -> Reminder {
    do { try reminder.validate() } catch { throw StashError(error) }
    _ = try save("the new reminder '\(reminder.message)'") { _, transaction throws(StashError) in
      try StashError.model(transaction.insert(reminder.record))
    }
    return reminder
  }

  /// Deletes a reminder explicitly: a tombstone and the row's removal in one transaction.
  ///
  /// - Returns: The deleted reminder.
  @discardableResult
  public func deleteReminder(_ text: String) throws(StashError) -> Reminder {
    try delete(text, model: "reminder") { (record) throws(ModelError) in
      try Reminder(record: record)
    }
  }
}
