import ArgumentParsing
import Stash

/// `stash delete ITEM`: a tombstone and the row's removal, in one transaction.
enum DeleteCommand: StashHandler {
  static let path = ["delete"]

  static func run(_ arguments: ParsedArguments, in session: Session) throws -> Int32 {
    let text = arguments[CommandTable.item]
    let device = try session.openForReading(focus: [("item", text)])
    let item = try device.deleteItem(text)
    ItemView.report("Deleted", item, device: device, session: session)
    return ExitStatus.done
  }
}
