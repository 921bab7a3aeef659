import ArgumentParsing
import Foundation
import Stash
import StashBase
import StashModel

/// `stash reminder add --location L [--item ITEM] --message TEXT [--trigger arrive|leave]
/// [--disabled]`
enum ReminderAddCommand: StashHandler {
  static let path = ["reminder", "add"]

  static func run(_ arguments: ParsedArguments, in session: Session) throws -> Int32 {
    let device = try session.openForReading()
    let location = try device.location(arguments[CommandTable.reminderLocation])
    let item = try arguments[CommandTable.reminderItem].map { text throws(StashError) in
      try device.item(text)
    }
    let reminder = Reminder(
      locationID: location.id, itemID: item?.id, message: arguments[CommandTable.message],
      trigger: arguments[CommandTable.trigger].flatMap(ReminderTrigger.init(rawValue:)) ?? .arrive,
      isEnabled: !arguments[CommandTable.disabled], createdAt: device.folder.clock())
    try device.addReminder(reminder)
    ReminderView.report("Added reminder", reminder, device: device, session: session)
    return ExitStatus.done
  }
}

/// `stash reminder list [--json]`
enum ReminderListCommand: StashHandler {
  static let path = ["reminder", "list"]

  static func run(_ arguments: ParsedArguments, in session: Session) throws -> Int32 {
    let device = try session.openForReading()
    let reminders = device.reminders()
    let names = Names(device, items: true)
    if session.wantsJSON {
      session.output.json(.array(reminders.map { RecordJSON.reminder($0, names: names) }))
    } else if reminders.isEmpty {
      session.output.line(
        "No reminders yet; 'stash reminder add --location L --message TEXT' adds one")
    } else {
      session.output.lines(ReminderView.table(reminders, names: names, output: session.output))
    }
    return ExitStatus.done
  }
}

/// `stash reminder delete ID`
enum ReminderDeleteCommand: StashHandler {
  static let path = ["reminder", "delete"]

  static func run(_ arguments: ParsedArguments, in session: Session) throws -> Int32 {
    let device = try session.openForReading()
    let reminder = try device.deleteReminder(arguments[CommandTable.reminderID])
    ReminderView.report("Deleted reminder", reminder, device: device, session: session)
    return ExitStatus.done
  }
}

/// How reminders look on standard output.
enum ReminderView {
  /// The `stash reminder list` table.
  static func table(_ reminders: [Reminder], names: Names, output: Output) -> [String] {
    var table = TextTable(headers: ["ID", "WHEN", "LOCATION", "ITEM", "STATE", "MESSAGE"])
    for reminder in reminders {
      table.rows.append([
        Format.short(reminder.id), reminder.trigger.rawValue,
        Names.text(reminder.locationID, in: names.locations),
        Names.text(reminder.itemID, in: names.items), reminder.isEnabled ? "on" : "off",
        reminder.message.replacingOccurrences(of: "\n", with: " "),
      ])
    }
    let lines = table.render()
    return [output.heading(lines[0])] + lines.dropFirst()
  }

  /// `'Buy hair dye' (9c1e2f3a) on arriving at 'shop', about 'Koleston 7/1'`.
  static func summary(_ reminder: Reminder, names: Names) -> String {
    let when = reminder.trigger == .arrive ? "arriving at" : "leaving"
    var text =
      "'\(reminder.message)' (\(Format.short(reminder.id))) on \(when) "
      + (names.locations[reminder.locationID].map { "'\($0)'" } ?? "a missing location")
    if let itemID = reminder.itemID {
      text += ", about " + (names.items[itemID].map { "'\($0)'" } ?? "a missing item")
    }
    if !reminder.isEnabled { text += " (off)" }
    return text
  }

  /// What a command that changed a reminder prints: a sentence, or the reminder as JSON.
  static func report(
    _ verb: String, _ reminder: Reminder, device: DeviceFolder, session: Session
  ) {
    let names = Names(device, items: true)
    if session.wantsJSON {
      session.output.json(RecordJSON.reminder(reminder, names: names))
    } else {
      session.output.line(verb + " " + summary(reminder, names: names))
    }
  }
}
