import JSONLines
import LocalStore
import StashFiles
import StashModel

/// One device's inventory: a ``SyncFolder`` opened with the three inventory schemas, and the
/// typed operations on items, locations and reminders.
///
/// ```swift
/// let device = try DeviceFolder.open(at: DeviceFolder.defaultHome())
/// let item = try device.addItem(Item(name: "Koleston 7/1", quantity: 5, createdAt: .now()))
/// try device.consume(item.id.rawValue, count: 1)
/// ```
/// Everything that is not about the inventory's models (records, sync and its setup, keys,
/// conflicts and their resolution, the device's settings and identity) is the sync folder's,
/// reached through ``folder`` and not repeated here:
///
/// ```swift
/// try device.folder.enableSync(cloud: "/path/to/shared/folder")
/// let report = try device.folder.sync()
/// ```
public final class DeviceFolder: Sendable {
  /// The generic folder the inventory is built on.
  public let folder: SyncFolder

  /// How to open a device folder (the sync folder's options).
  public typealias Options = SyncFolder.Options

  init(folder: SyncFolder) {
    self.folder = folder
  }

  /// Opens a device folder: a sync folder with ``InventorySchemas``.
  ///
  /// The local store opens (or is created). The mirror opens on first use (a sync, or
  /// ``SyncFolder/mirrorProblem``), only when the entitlement saved in the local store is a
  /// subscription, and is created then if missing. Any mirror failure is reported in
  /// ``SyncFolder/mirrorProblem``, never thrown.
  ///
  /// - Parameters:
  ///   - home: The folder.
  ///   - options: Creation, naming, lock wait, clock and file system.
  /// - Returns: The open folder.
  /// - Throws: ``StashError`` when the local store cannot be opened: busy (another process),
  ///   damaged or too new, or the folder cannot be created.
  public static func open(at home: String, options: Options = Options()) throws(StashError)
    -> DeviceFolder
  {
    DeviceFolder(
      folder: try SyncFolder.open(
        at: home, registry: InventorySchemas.registry, options: inventoryOptions(options)))
  }

  /// Opens the device folder at `home` as cheaply as its sync state allows and syncs it: a
  /// sync folder with ``InventorySchemas`` (see ``SyncFolder/sync(at:registry:options:progress:)``),
  /// refreshing the local index's digest section as it goes.
  ///
  /// - Throws: ``StashError`` as ``open(at:options:)`` and ``SyncFolder/sync(progress:)`` do.
  public static func sync(
    at home: String, options: Options = Options(),
    progress: (_ read: Int, _ total: Int) -> Void = { _, _ in }
  ) throws(StashError) -> SyncRunReport {
    try SyncFolder.sync(
      at: home, registry: InventorySchemas.registry, options: inventoryOptions(options),
      progress: progress)
  }

  /// `options` with what the inventory derives from its store: a sync refreshes the local
  /// index's digest section (``startDigestSection()``) during its export.
  static func inventoryOptions(_ options: Options) -> Options {
    var options = options
    options.refreshDerived = { folder in
      DeviceFolder(folder: folder).startDigestSection().map { job in { job.finish() } }
    }
    return options
  }

  // Shorthands for the inventory's own code, not public: a caller reaches the sync folder's
  // members through ``folder`` (`device.folder.sync()`), never through a copy here.
  var home: String { folder.home }
  var local: LocalStore? { folder.local }
  var mirror: MirrorStatus { folder.mirror }
  var blobs: BlobStore { folder.blobs }
  var lock: FolderLock { folder.lock }
  var clock: @Sendable () -> Timestamp { folder.clock }
  var newIdentifier: @Sendable () -> RecordID { folder.newIdentifier }
  var fileSystem: any FileSystem { folder.fileSystem }
  var options: Options { folder.options }
  var content: LocalContent? { folder.content }
  var deviceID: DeviceID? { folder.deviceID }
  var settings: DeviceSettings { folder.settings }

  /// The inventory, for an operation that writes (through ``SyncFolder``'s one funnel, where
  /// a copied folder takes its own identity before anything, its tallies included, is
  /// written).
  ///
  /// - Throws: ``StashError`` when the folder was opened for reading and has no store yet.
  func writableStore() throws(StashError) -> LocalStore {
    guard local != nil else {
      throw StashError(
        .refused, "The folder '\(home)' has no inventory yet; create it first", hint: .initialize)
    }
    return try folder.writableStore()
  }

  /// The device this write tallies its stock moves under (see ``SyncFolder/writingDevice()``).
  func writingDevice() throws(StashError) -> DeviceID {
    _ = try writableStore()
    return try folder.writingDevice()
  }
}

extension DeviceFolder {
  /// Runs one save of the local store (see ``SyncFolder/save(_:_:)``).
  func save<T>(
    _ action: String, _ body: (LocalContent, inout LocalTransaction) throws(StashError) -> T
  ) throws(StashError) -> T {
    _ = try writableStore()
    return try folder.save(action, body)
  }
}
