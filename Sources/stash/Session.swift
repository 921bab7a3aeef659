import ArgumentParsing
import Foundation
import Stash
import StashModel

/// What every command needs besides its own arguments: the device folder, how to open it,
/// and where output goes.
struct Session {
  /// The device folder: `--home`, else `$STASH_HOME`, else `$XDG_DATA_HOME/stash`, else
  /// `~/.local/share/stash`.
  let home: String
  /// Whether `--json` was given.
  let wantsJSON: Bool
  /// Standard output, with colour only for a terminal without `NO_COLOR`.
  let output: Output

  /// How long a command waits for another process holding the folder's lock, in seconds.
  static let lockTimeout = 3.0

  init(arguments: ParsedArguments, environment: [String: String]) {
    home = arguments.string("home") ?? DeviceFolder.defaultHome(environment: environment)
    wantsJSON = arguments.flag("json")
    output = Output(environment: environment)
  }

  /// Opens the folder without creating anything: a folder without a store reads as empty.
  ///
  /// - Throws: ``StashError``: busy, damaged, or the home is not a folder.
  func openForReading() throws(StashError) -> DeviceFolder {
    try refuseHomeThatIsNotAFolder()
    return try DeviceFolder.open(at: home, options: options(creating: false))
  }

  /// The folder ready for a write that adds something, creating the folder and its store
  /// only now (after the command checked its input), when `reading` has none.
  ///
  /// - Parameters:
  ///   - reading: The folder as opened for reading, reused when it has a store.
  ///   - deviceName: The name a new device gets (default: the host name).
  ///   - announce: Whether to say on standard error that the folder was created.
  /// - Throws: ``StashError`` when the folder cannot be created or opened.
  func openForWriting(
    reusing reading: DeviceFolder? = nil, deviceName: String? = nil, announce: Bool = true
  ) throws(StashError) -> DeviceFolder {
    if let reading, reading.hasInventory { return reading }
    try refuseHomeThatIsNotAFolder()
    let device = try DeviceFolder.open(
      at: home, options: options(creating: true, deviceName: deviceName))
    if device.wasCreated && announce {
      Failure.printError("Created the device folder '\(home)'")
    }
    return device
  }

  private func options(creating: Bool, deviceName: String? = nil) -> DeviceFolder.Options {
    // Opened for reading, a store file changes only when a save has something to write.
    DeviceFolder.Options(
      createIfMissing: creating, deviceName: deviceName, lockTimeout: Self.lockTimeout,
      access: creating ? .writing : .reading, notices: { Failure.printError($0.message) })
  }

  /// A file (or anything but a folder) where the device folder or one of its parents should
  /// be means the folder can never be created: say so plainly instead of a system error.
  private func refuseHomeThatIsNotAFolder() throws(StashError) {
    var path = home
    while !path.isEmpty {
      var isFolder: ObjCBool = false
      if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) {
        guard !isFolder.boolValue else { return }
        let what = path == home ? "is a file" : "cannot be created: '\(path)' is a file"
        throw .refused(
          "The device folder '\(home)' \(what), not a folder; choose another with "
            + "'--home DIR' or STASH_HOME")
      }
      let parent = (path as NSString).deletingLastPathComponent
      if parent == path { return }
      path = parent
    }
  }
}
