import ArgumentParsing
import Stash
import StashModel

/// `stash show ITEM [--json]`: every field; `--json` gives the record exactly as stored and
/// its snapshot hash.
enum ShowCommand: StashHandler {
  static let path = ["show"]

  static func run(_ arguments: ParsedArguments, in session: Session) throws -> Int32 {
    let text = arguments[CommandTable.item]
    let device = try session.openForReading(focus: [("item", text)])
    let stored = try device.storedRecord(text, model: "item")
    let item = try Item(record: stored.record)
    let names = Names(device, locationOf: item)
    if session.wantsJSON {
      session.output.json(RecordJSON.item(item, names: names, stored: stored))
    } else {
      session.output.lines(ItemView.details(item, hash: stored.hash, names: names))
    }
    return ExitStatus.done
  }
}
