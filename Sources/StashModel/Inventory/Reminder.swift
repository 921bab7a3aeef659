/// When a reminder fires.
public enum ReminderTrigger: String, CaseIterable, Hashable, Sendable {
  /// On arriving at the location.
  case arrive
  /// On leaving the location.
  case leave
}

/// A message shown on arriving at or leaving a location: the typed view of a `reminder`.
public struct Reminder: Hashable, Sendable {
  public var id: RecordID
  /// The location it is tied to; it may dangle.
  public var locationID: RecordID
  /// The item it is about, if any; it may dangle.
  public var itemID: RecordID?
  public var message: String
  public var trigger: ReminderTrigger
  public var isEnabled: Bool
  /// The notification this device scheduled: device-local, never hashed, never copied.
  public var notificationIdentifier: String?
  public var createdAt: Timestamp
  public var updatedAt: Timestamp

  /// A new reminder with a fresh id, created and updated at `time`.
  public init(
    id: RecordID = .make(), locationID: RecordID, itemID: RecordID? = nil, message: String,
    trigger: ReminderTrigger = .arrive, isEnabled: Bool = true,
    notificationIdentifier: String? = nil, createdAt: Timestamp, updatedAt: Timestamp? = nil
  ) {
    self.id = id
    self.locationID = locationID
    self.itemID = itemID
    self.message = message
    self.trigger = trigger
    self.isEnabled = isEnabled
    self.notificationIdentifier = notificationIdentifier
    self.createdAt = createdAt
    self.updatedAt = updatedAt ?? createdAt
  }

  /// Refuses a reminder a person could not have meant.
  ///
  /// - Throws: ``ModelError`` for an empty or over-long message.
  public func validate() throws(ModelError) {
    guard !message.allSatisfy(\.isWhitespace) else {
      throw ModelError("A reminder needs a message that is not empty")
    }
    try Validate.longText(message, field: "message", of: "reminder")
    if let notificationIdentifier {
      try Validate.shortText(
        notificationIdentifier, field: "notification identifier", of: "reminder")
    }
    try Validate.dates(created: createdAt, updated: updatedAt, of: "reminder")
  }
}

extension Reminder {
  /// Reads the typed view of a `reminder` record.
  ///
  /// - Throws: ``ModelError`` when the record is of another model or its trigger is unknown.
  public init(record: Record) throws(ModelError) {
    guard record.schema == InventorySchemas.reminder else {
      throw ModelError("Record '\(record.id)' is a '\(record.model)', not a reminder")
    }
    var fields = FieldReader(record)
    let locationID = fields.reference()
    let itemID = fields.optionalReference()
    let message = fields.string()
    let triggerText = fields.string()
    guard let trigger = ReminderTrigger(rawValue: triggerText) else {
      throw ModelError("Reminder '\(record.id)' has trigger '\(triggerText)'; use arrive or leave")
    }
    self.init(
      id: record.id, locationID: locationID, itemID: itemID, message: message, trigger: trigger,
      isEnabled: fields.bool(), notificationIdentifier: fields.optionalString(),
      createdAt: fields.date(), updatedAt: fields.date())
  }

  /// The generic record, in ``InventorySchemas/reminder`` order.
  public var record: Record {
    try! Record(
      schema: InventorySchemas.reminder, id: id,
      values: [
        .reference(locationID), .optional(itemID, FieldValue.reference), .string(message),
        .string(trigger.rawValue), .bool(isEnabled),
        .optional(notificationIdentifier, FieldValue.string), .date(createdAt), .date(updatedAt),
      ])
  }
}
