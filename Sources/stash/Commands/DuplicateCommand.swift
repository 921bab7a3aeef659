import ArgumentParsing
import Stash

/// `stash duplicate ITEM [--name NEW]`: a copy with a new id.
enum DuplicateCommand: StashHandler {
  static let path = ["duplicate"]

  static func run(_ arguments: ParsedArguments, in session: Session) throws -> Int32 {
    let name = arguments[CommandTable.copyName]
    if let name, name.allSatisfy(\.isWhitespace) {
      throw StashError.refused("An item needs a name that is not empty")
    }
    let device = try session.openForReading()
    let copy = try device.duplicateItem(arguments[CommandTable.item], name: name)
    ItemView.report("Added the copy", copy, device: device, session: session)
    return ExitStatus.done
  }
}
