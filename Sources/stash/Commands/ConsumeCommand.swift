import ArgumentParsing
import Stash

/// `stash consume ITEM [N]`: opens the folder, edits one row, exits.
enum ConsumeCommand: StashHandler {
  static let path = ["consume"]

  static func run(_ arguments: ParsedArguments, in session: Session) throws -> Int32 {
    let device = try session.openForReading(
      focus: [("item", arguments.positional("ITEM") ?? "")])
    let count = arguments.integer("N") ?? 1
    let item = try device.consume(arguments.positional("ITEM") ?? "", count: count)
    ItemView.report("Consumed \(count) of", item, device: device, session: session)
    return ExitStatus.done
  }
}
