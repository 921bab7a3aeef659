import ArgumentParsing
import Stash

/// `stash consume ITEM [N]`: opens the folder, edits one row, exits.
enum ConsumeCommand: StashHandler {
  static let path = ["consume"]

  static func run(_ arguments: ParsedArguments, in session: Session) throws -> Int32 {
    let text = arguments[CommandTable.item]
    let device = try session.openForReading(focus: [("item", text)])
    let count = arguments[CommandTable.consumed] ?? 1
    let item = try device.consume(text, count: count)
    ItemView.report("Consumed \(count) of", item, device: device, session: session)
    return ExitStatus.done
  }
}
