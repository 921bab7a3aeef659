import ArgumentParsing
import Stash

/// `stash restock ITEM N`
enum RestockCommand: StashHandler {
  static let path = ["restock"]

  static func run(_ arguments: ParsedArguments, in session: Session) throws -> Int32 {
    let device = try session.openForReading(
      focus: [("item", arguments.positional("ITEM") ?? "")])
    let count = arguments.integer("N") ?? 0
    let item = try device.restock(arguments.positional("ITEM") ?? "", count: count)
    ItemView.report("Restocked \(count) of", item, device: device, session: session)
    return ExitStatus.done
  }
}
