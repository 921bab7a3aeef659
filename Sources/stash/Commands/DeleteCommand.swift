import ArgumentParsing
import Stash

/// `stash delete ITEM`: a tombstone and the row's removal, in one transaction.
enum DeleteCommand: StashHandler {
  static let path = ["delete"]

  static func run(_ arguments: ParsedArguments, in session: Session) throws -> Int32 {
    let device = try session.openForReading(
      focus: [("item", arguments.positional("ITEM") ?? "")])
    let item = try device.deleteItem(arguments.positional("ITEM") ?? "")
    ItemView.report("Deleted", item, device: device, session: session)
    return ExitStatus.done
  }
}
