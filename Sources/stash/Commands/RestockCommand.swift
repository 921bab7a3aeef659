import ArgumentParsing
import Stash

/// `stash restock ITEM N`
enum RestockCommand: StashHandler {
  static let path = ["restock"]

  static func run(_ arguments: ParsedArguments, in session: Session) throws -> Int32 {
    let text = arguments[CommandTable.item]
    let device = try session.openForReading(focus: [("item", text)])
    let count = arguments[CommandTable.restocked]
    let item = try device.restock(text, count: count)
    ItemView.report("Restocked \(count) of", item, device: device, session: session)
    return ExitStatus.done
  }
}
