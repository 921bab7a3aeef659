import ArgumentParsing
import Stash
import StashBase
import StashModel

/// `stash init [--name DEVICE]`: creates the device folder and its store.
///
/// On a folder that already has a store it changes nothing (not even the name) and says so,
/// with exit status 0, so scripts can run it every time.
enum InitCommand: StashHandler {
  static let path = ["init"]

  static func run(_ arguments: ParsedArguments, in session: Session) throws -> Int32 {
    let name = arguments[CommandTable.deviceName]
    if let name, name.allSatisfy(\.isWhitespace) {
      throw StashError.refused(
        "A device needs a name that is not empty; leave out '--name' "
          + "to use the host name and the start of the device id")
    }
    if let name { try Validate.name(name, of: "device") }
    let existing = try session.openForReading(migrating: false)
    let device = try session.openForWriting(
      reusing: existing, deviceName: name, announce: false)
    let id = device.folder.deviceID?.rawValue ?? ""
    let deviceName = device.folder.settings.name
    if session.wantsJSON {
      session.output.json([
        "home": .string(session.home), "device": .string(id), "name": .string(deviceName),
        "created": .bool(device.folder.wasCreated),
      ])
    } else if device.folder.wasCreated {
      session.output.line(
        "Created the device folder '\(session.home)' for device '\(deviceName)' (\(id))")
    } else {
      var text =
        "The device folder '\(session.home)' already exists, for device "
        + "'\(deviceName)' (\(id)); nothing was changed"
      if let name, name != deviceName { text += " ('stash init' never renames a device)" }
      session.output.line(text)
    }
    return ExitStatus.done
  }
}
