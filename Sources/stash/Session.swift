import ArgumentParsing
import Foundation
import Stash
import StashModel
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What every command needs besides its own arguments: the device folder, how to open it,
/// and where output goes.
struct Session {
  /// The device folder: `--home`, else `$STASH_HOME`, else `$XDG_DATA_HOME/stash` (when
  /// absolute), else `$HOME/.local/share/stash` (see ``DeviceFolder/defaultHome(environment:)``).
  let home: String
  /// Whether `--json` was given.
  let wantsJSON: Bool
  /// Standard output, with colour only for a terminal without `NO_COLOR`.
  let output: Output
  /// The environment the command runs in (what `TERM` and the like say about the terminal).
  let environment: [String: String]
  /// Whether every folder the command opens is kept until the process exits
  /// (``keepUntilExit(_:)``); off for `sync --watch`, which opens one for every exchange.
  var keepsFolders = true

  /// How long a command waits for another process holding the folder's lock, in seconds.
  static let lockTimeout = 3.0

  /// The session for a parsed command line.
  ///
  /// - Throws: ``ModelError`` for a variable that is not UTF-8 or a `STASH_NOW` that is not a
  ///   usable time (checked first, for every command); ``StashError`` when there is no
  ///   `--home` and the environment names no usable default folder.
  init(arguments: ParsedArguments, environment: RawEnvironment) throws {
    try environment.requireUTF8("STASH_NOW")
    _ = try Timestamp.fixed(environment: environment.values)
    if let home = arguments[CommandTable.home] {
      self.home = home
    } else {
      for name in ["STASH_HOME", "XDG_DATA_HOME", "HOME"] { try environment.requireUTF8(name) }
      home = try DeviceFolder.defaultHome(environment: environment.values)
    }
    wantsJSON = arguments[CommandTable.json]
    output = Output(environment: environment.values)
    self.environment = environment.values
  }

  /// Opens the folder without creating anything: a folder without a store reads as empty.
  ///
  /// - Throws: ``StashError``: busy, damaged, or the home is not a folder.
  ///
  /// - Parameter focus: The records a one-record command needs, as model and typed text (it
  ///   then reads only those, through the store's index); `nil` reads the whole store.
  ///   - migrating: Whether a legacy file waiting to be imported is imported first (every
  ///     command but `init`, which imports it once it created the folder with its name).
  func openForReading(
    focus: [(model: String, text: String)]? = nil, migrating: Bool = true
  ) throws(StashError) -> DeviceFolder {
    try refuseHomeThatIsNotAFolder()
    try refuseBrokenInventoryFile()
    var options = options(creating: false)
    if let focus { options.focus(on: focus) }
    let device = try DeviceFolder.open(at: home, options: options)
    guard migrating, device.legacyDataWaits else { return device }
    // A folder with legacy data and no store yet: the first command creates it to import.
    let target = device.folder.hasInventory ? device : try openForWriting(migrating: false)
    importLegacyData(into: target)
    return target
  }

  /// Imports the device folder's legacy blob once, saying so on standard error. A file that
  /// cannot be imported is reported (on every run, until it is fixed or removed) and blocks
  /// nothing: the command goes on with the folder as it is.
  func importLegacyData(into device: DeviceFolder) {
    do {
      if let imported = try device.importLegacyData() {
        Failure.printError(imported.description)
      }
    } catch {
      Failure.printError(error.message)
    }
  }

  /// The folder for `sync` and `sync verify`, opened for reading: refused when it has no
  /// inventory yet (sync was never set up there).
  ///
  /// - Throws: ``StashError``: refused, busy, damaged.
  func openForSyncing() throws(StashError) -> DeviceFolder {
    let device = try openForReading()
    guard device.folder.hasInventory else {
      throw StashError.refused(
        "Sync is off: '\(home)' has no inventory yet; 'stash sync enable --cloud DIR' sets it up")
    }
    return device
  }

  /// Runs `stash sync`: opens the folder as cheaply as its sync state allows and syncs it
  /// (``DeviceFolder/sync(at:options:progress:)``).
  ///
  /// A folder a command must first create or migrate (no store yet, or a legacy file beside
  /// it) is opened as every command opens it, then synced.
  ///
  /// - Throws: ``StashError``: refused, busy, damaged, or what the sync throws.
  func sync(progress: (_ read: Int, _ total: Int) -> Void) throws(StashError) -> SyncRunReport {
    try refuseHomeThatIsNotAFolder()
    func exists(_ name: String) -> Bool {
      var info = stat()
      return lstat(home + "/" + name, &info) == 0  // one call, no file manager to load
    }
    if !exists(DeviceFolder.inventoryFileName) || exists(DeviceFolder.legacyFileName) {
      return try openForSyncing().folder.sync(progress: progress)
    }
    try refuseBrokenInventoryFile()
    var options = options(creating: false)
    let environment = environment
    options.clock = { .now(environment: environment) }
    return try DeviceFolder.sync(at: home, options: options, progress: progress)
  }

  /// The folder ready for a write that adds something, creating the folder and its store
  /// only now (after the command checked its input), when `reading` has none.
  ///
  /// - Parameters:
  ///   - reading: The folder as opened for reading, reused when it has a store.
  ///   - deviceName: The name a new device gets (default: the host name and the start of its id).
  ///   - announce: Whether to say on standard error that the folder was created.
  /// - Throws: ``StashError`` when the folder cannot be created or opened.
  ///   - migrating: Whether a legacy file waiting to be imported is imported now.
  func openForWriting(
    reusing reading: DeviceFolder? = nil, deviceName: String? = nil, announce: Bool = true,
    migrating: Bool = true
  ) throws(StashError) -> DeviceFolder {
    if let reading, reading.folder.hasInventory { return reading }
    try refuseHomeThatIsNotAFolder()
    try refuseBrokenInventoryFile()
    let device = try DeviceFolder.open(
      at: home, options: options(creating: true, deviceName: deviceName))
    if device.folder.wasCreated && announce {
      Failure.printError("Created the device folder '\(home)'")
    }
    if migrating, device.legacyDataWaits { importLegacyData(into: device) }
    return device
  }

  /// The options every folder of this command opens with; `doctor` starts from them too.
  func options(creating: Bool, deviceName: String? = nil) -> DeviceFolder.Options {
    // Opened for reading, a store file changes only when a save has something to write.
    var options = DeviceFolder.Options(
      createIfMissing: creating, deviceName: deviceName, lockTimeout: Self.lockTimeout,
      access: creating ? .writing : .reading, notices: { Failure.printError($0.forPerson) })
    if keepsFolders { options.opened = Self.keepUntilExit }
    return options
  }

  /// Refuses a home that can never be a folder (a file, a link loop) with a plain message
  /// instead of a system error.
  ///
  /// - Throws: ``StashError`` (refused).
  func refuseHomeThatIsNotAFolder() throws(StashError) {
    try DeviceFolder.checkHome(home)
  }

  /// Refuses a folder whose inventory is there but is not a file or cannot be read, before
  /// anything is opened (so nothing is written).
  ///
  /// - Parameter includingKind: Also refuse one that is a folder or a FIFO (`doctor` lists
  ///   that as damage in its report instead).
  /// - Throws: ``StashError`` (damaged).
  func refuseBrokenInventoryFile(includingKind: Bool = true) throws(StashError) {
    try DeviceFolder.checkInventoryFile(in: home, includingKind: includingKind)
  }
}

extension Session {
  /// The folders this process opened, never released: the process exits right after its one
  /// command, and freeing a folder's content (every record of both stores) object by object
  /// just before `exit` was 2-3% of a first sync of 100,000 items (perf).
  private static let openedFolders = Mutex<[SyncFolder]>([])

  /// Keeps `folder` until the process exits (every folder a command opens, through
  /// ``SyncFolder/Options/opened``, unless ``keepsFolders`` is off).
  @Sendable static func keepUntilExit(_ folder: SyncFolder) {
    openedFolders.withLock { $0.append(folder) }
  }
}
