import ArgumentParsing
import Stash
import StashBase
import StashModel

/// `stash history ITEM [--json]`: every version of an item, who made it, when, and what
/// changed.
enum HistoryCommand: StashHandler {
  static let path = ["history"]

  static func run(_ arguments: ParsedArguments, in session: Session) throws -> Int32 {
    // Opened as `show` opens it: the one record through the indexes (the whole folder only
    // when they cannot answer).
    let text = arguments[CommandTable.historyItem]
    let focused = try session.openForReading(focus: [("item", text)])
    let (device, key, events) = try focused.focusedHistory(of: text)
    if session.wantsJSON {
      session.output.json(HistoryView.json(key: key, events: events, device: device))
    } else {
      session.output.lines(
        HistoryView.lines(key: key, events: events, device: device, output: session.output))
    }
    return ExitStatus.done
  }
}

/// `stash undo ITEM [--json]`: revert this device's last change to an item, as a new change.
enum UndoCommand: StashHandler {
  static let path = ["undo"]

  static func run(_ arguments: ParsedArguments, in session: Session) throws -> Int32 {
    let device = try session.openForReading()
    let text = arguments[CommandTable.historyItem]
    guard device.folder.hasInventory else {
      throw StashError.refused("No item named '\(text)'; the inventory is empty")
    }
    let outcome = try device.undo(text)
    let undone = HistoryView.describe(outcome.undone, names: Names(device))
    if session.wantsJSON {
      var object: JSONObject = [
        "undone": .string(outcome.undone.kind.rawValue),
        "restoredAsCopy": .bool(outcome.restoredAsCopy),
      ]
      object.append(
        "item", outcome.item.map { RecordJSON.item($0, names: Names(device)) } ?? .null)
      session.output.json(object)
      return ExitStatus.done
    }
    guard let item = outcome.item else {
      session.output.line("Undid the creation (\(undone)): the item is deleted")
      return ExitStatus.done
    }
    let names = Names(device, locationOf: item)
    let verb = outcome.restoredAsCopy ? "Undid the deletion: restored as" : "Undid '\(undone)':"
    session.output.line(verb + " " + ItemView.summary(item, names: names))
    return ExitStatus.done
  }
}
