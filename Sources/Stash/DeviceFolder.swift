public import JSONLines
public import LocalStore
public import StashFiles
public import StashModel

/// One device's inventory: a ``SyncFolder`` opened with the three inventory schemas, and the
/// typed operations on items, locations and reminders.
///
/// ```swift
/// let device = try DeviceFolder.open(at: DeviceFolder.defaultHome())
/// let item = try device.addItem(Item(name: "Koleston 7/1", quantity: 5, createdAt: .now()))
/// try device.consume(item.id.rawValue, count: 1)
/// ```
/// Everything that is not about the inventory's models (sync, its setup, conflicts and their
/// resolution, the device's settings and identity) is the sync folder's: ``folder``. The most
/// used of those are repeated here so that inventory code reads as before.
public final class DeviceFolder: Sendable {
  /// The generic folder the inventory is built on.
  public let folder: SyncFolder

  /// How to open a device folder (the sync folder's options).
  public typealias Options = SyncFolder.Options
  /// How the stores of a folder are opened (the sync folder's access).
  public typealias Access = SyncFolder.Access

  init(folder: SyncFolder) {
    self.folder = folder
  }

  /// Opens a device folder: a sync folder with ``InventorySchemas``.
  ///
  /// The local store opens (or is created). The mirror opens on first use of ``mirror``, only
  /// when the entitlement saved in the local store is a subscription, and is created then if
  /// missing. Any mirror failure is reported in ``mirror``, never thrown.
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

  /// `options` with what the inventory derives from its store: a sync refreshes the digest
  /// file (``startDigestFile()``) during its export.
  static func inventoryOptions(_ options: Options) -> Options {
    var options = options
    options.refreshDerived = { folder in
      DeviceFolder(folder: folder).startDigestFile().map { job in { job.finish() } }
    }
    return options
  }

  /// The folder's path.
  public var home: String { folder.home }
  /// The inventory, or `nil` when the folder was opened for reading and has no store yet.
  public var local: LocalStore? { folder.local }
  /// The mirror (opened on first use), or why it is not open (see ``SyncFolder/mirror``).
  public var mirror: MirrorStatus { folder.mirror }
  /// The photos.
  public var blobs: BlobStore { folder.blobs }
  /// The folder's lock, shared by both stores.
  public var lock: FolderLock { folder.lock }
  /// The entitlement read when the folder was opened: the one in effect for this process.
  public var entitlementAtOpen: Entitlement { folder.entitlementAtOpen }
  /// The clock (fixed by `STASH_NOW` in scripts and fixtures).
  public var clock: @Sendable () -> Timestamp { folder.clock }
  /// Where the folder's new identifiers come from (device, stores, copies, imports).
  public var newIdentifier: @Sendable () -> RecordID { folder.newIdentifier }
  var fileSystem: any FileSystem { folder.fileSystem }
  var options: Options { folder.options }
  /// Everything the local store holds (empty when there is no store yet).
  public var content: LocalContent? { folder.content }

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
