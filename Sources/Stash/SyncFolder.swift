import CloudFolder
import Foundation
public import JSONLines
package import LocalStore
package import MirrorStore
public import StashFiles
public import StashModel
import Synchronization

/// One device's folder of records of any schema: its local store, its mirror (when entitled),
/// its blobs, and one ``sync()``.
///
/// A tool opens it with its own schemas and gets edits (``save(_:)``, ``delete(_:)``),
/// conflicts and their resolution, and sync through a shared folder, whatever its models are.
/// ``DeviceFolder`` is the inventory built on top of it.
///
/// ```swift
/// let folder = try SyncFolder.open(at: path, schemas: [MeterSettings.schema])
/// try folder.save(meter)
/// let report = try folder.sync()
/// ```
/// Opening never fails because of the mirror: a missing, damaged, unreadable or too-new
/// `cloud.store` is reported in ``mirrorProblem`` while the local store opens and accepts
/// edits.
public final class SyncFolder: Sendable {
  /// The folder's path.
  public let home: String
  /// The schemas this folder was opened with: every record of both stores is of one of them.
  public let schemas: SchemaRegistry
  /// The local store, or `nil` when the folder was opened for reading and has no store yet
  /// (the engine's: for this package's tools and tests, never an embedding app's).
  package let local: LocalStore?
  /// The mirror (opened on first use), or why it is not open.
  ///
  /// It opens only when the entitlement saved at launch is a subscription, and is created then
  /// if missing. Its failures are reported here as a value, never thrown, and commands that do
  /// not sync (a consume) never read `cloud.store` at all.
  package var mirror: MirrorStatus {
    mirrorStatus.withLock { status in
      if let status { return status }
      let opened = openMirror()
      status = opened
      return opened
    }
  }
  /// The photos.
  public let blobs: BlobStore
  /// The folder's lock, shared by both stores.
  package let lock: FolderLock
  /// The entitlement read when the folder was opened: the one in effect for this process.
  package let entitlementAtOpen: Entitlement
  /// The clock (fixed by `STASH_NOW` in scripts and fixtures).
  public let clock: @Sendable () -> Timestamp
  /// Where the folder's new identifiers come from (device, stores, copies, imports).
  package let newIdentifier: @Sendable () -> RecordID
  let fileSystem: any FileSystem
  let options: Options
  /// The mirror once opened (or found unavailable).
  private let mirrorStatus: Mutex<MirrorStatus?>
  /// The index summary of a mirror opened focused for `sync status`
  /// (``openMirrorForStatus()``): what it did not load of every version.
  let mirrorSummary = Mutex<MirrorSummary?>(nil)
  /// What `sync status` shows of a local store opened from its index
  /// (``DeviceFolder/openedForStatus()``).
  let indexedLocalStatus = Mutex<IndexedLocalStatus?>(nil)
  /// The device identity this process hands out for a copied folder's first writes, before
  /// the stores are rewritten with it (``writingDevice()``).
  let prospectiveIdentity = Mutex<DeviceID?>(nil)
  /// The sequences of ``changes(polling:)`` handed out, told of this process's saves.
  let changeHub = ChangeHub()

  /// How to open a device folder.
  public struct Options: Sendable {
    /// Create the folder and its store when missing (a command that writes); otherwise a
    /// missing store reads as empty and nothing is created.
    public var createIfMissing: Bool
    /// The name a new device gets (default: ``DeviceSettings/defaultName(host:device:)``, the
    /// host name and the start of the device id).
    public var deviceName: String?
    /// How long to wait for another process holding the folder's lock, in seconds.
    public var lockTimeout: Double
    /// The clock.
    public var clock: @Sendable () -> Timestamp
    /// Where new identifiers come from: random UUIDs, unless a test needs them repeatable.
    public var newIdentifier: @Sendable () -> RecordID
    /// The file-system seam.
    public var fileSystem: any FileSystem
    /// How the stores are opened. ``Access/reading`` (what reading commands use) never
    /// changes a store file: what follows a last commit is only reported, a missing mirror is
    /// not created, and only a save that has something to write takes write access (and then
    /// sets aside what followed the last commit, saying so through `notices`).
    public var access: Access
    /// When saves compact the store files (tests and crash workloads lower the threshold).
    public var compaction: CompactionPolicy
    /// Receives what a person should know about the stores as it happens: a damaged last
    /// commit, damaged rows set aside, a damaged tail moved to a side file.
    public var notices: @Sendable (StoreNotice) -> Void
    /// Called with every folder opened with these options, as it opens (also by the calls that
    /// open a folder themselves: ``SyncFolder/sync(at:registry:options:progress:)``,
    /// ``DeviceFolder/examine(at:options:progress:)``). The `stash` tool keeps each one until
    /// it exits: freeing a folder's content (every record of both stores) object by object
    /// just before the process ends is work for nothing (2-3% of a first sync's CPU).
    package var opened: (@Sendable (SyncFolder) -> Void)? = nil
    /// The records a one-record command needs (`stash consume ITEM`): the local store then
    /// opens from its index and holds only those (``LocalStore/Focus``); `nil` (the default)
    /// reads the whole store. Commands that list, sync or check never give one.
    package var focus: LocalStore.Focus? = nil
    /// The records a sync of sealed changes covers (set by ``SyncFolder/sync(at:registry:options:progress:)``
    /// only): both stores then open from their indexes holding only those records; `nil`
    /// (the default) reads them whole.
    var syncKeys: Set<RecordKey>? = nil
    /// Starts refreshing what the folder type derives from the local store (the inventory's
    /// digest), once a sync's pass is done; returns what finishes it before the sync ends.
    /// Set by the folder type (``DeviceFolder/open(at:options:)``), never by an app.
    var refreshDerived: (@Sendable (SyncFolder) -> (() -> Void)?)? = nil
    /// When saves write the local store's index.
    package var index: LocalStore.IndexPolicy = .standard
    /// When the mirror writes and uses its index.
    package var mirrorIndex: MirrorStore.IndexPolicy = .standard
    /// The legacy data file the folder type imports once (``DeviceFolder/importLegacyData()``,
    /// `MeterFolder.importLegacyData()`): a name in the folder or an absolute path; `nil` (the
    /// default) is the type's fixed name in the folder (`legacy-items.json` for the inventory).
    public var legacyFile: String? = nil

    /// Focuses the local store on the records `lookups` name (a model, and an id, id prefix
    /// or name as a person typed it), and on the records those refer to; see ``focus``.
    public mutating func focus(on lookups: [(model: String, text: String)]) {
      focus = LocalStore.Focus(
        lookups.map { LocalStore.Focus.Lookup(model: $0.model, text: $0.text) })
    }

    /// Options with the given values.
    public init(
      createIfMissing: Bool = true, deviceName: String? = nil, lockTimeout: Double = 3,
      clock: @escaping @Sendable () -> Timestamp = { Timestamp.now() },
      newIdentifier: @escaping @Sendable () -> RecordID = { RecordID.make() },
      fileSystem: any FileSystem = POSIXFileSystem(), access: Access = .writing,
      compaction: CompactionPolicy = .standard,
      notices: @escaping @Sendable (StoreNotice) -> Void = { _ in }
    ) {
      self.createIfMissing = createIfMissing
      self.deviceName = deviceName
      self.lockTimeout = lockTimeout
      self.clock = clock
      self.newIdentifier = newIdentifier
      self.fileSystem = fileSystem
      self.access = access
      self.compaction = compaction
      self.notices = notices
    }
  }

  /// How the stores of a folder are opened (see ``Options/access``).
  public enum Access: Hashable, Sendable {
    /// Nothing is changed until a save has something to write.
    case reading
    /// The stores are opened for writing at once.
    case writing

    var store: StoreAccess { self == .reading ? .reading : .writing }
  }

  private init(
    home: String, schemas: SchemaRegistry, local: LocalStore?, mirror: MirrorStatus?,
    lock: FolderLock,
    entitlementAtOpen: Entitlement, options: Options
  ) {
    self.home = home
    self.schemas = schemas
    self.local = local
    self.mirrorStatus = Mutex(mirror)
    self.options = options
    self.blobs = BlobStore(deviceFolder: home, fileSystem: options.fileSystem)
    self.lock = lock
    self.entitlementAtOpen = entitlementAtOpen
    self.clock = options.clock
    self.newIdentifier = options.newIdentifier
    self.fileSystem = options.fileSystem
    options.opened?(self)
  }

  /// Opens a folder of records of the given schemas.
  ///
  /// The local store opens (or is created). The mirror opens on first use (a sync, or
  /// ``SyncFolder/mirrorProblem``), only when the entitlement saved in the local store is a
  /// subscription, and is created then if missing. Any mirror failure is reported in
  /// ``SyncFolder/mirrorProblem``, never thrown.
  ///
  /// - Parameters:
  ///   - home: The folder.
  ///   - schemas: The tool's models. A folder records the models it holds (`schemas.json`):
  ///     one whose models are not all among these (another tool's, or this tool's opened with
  ///     some of its models only), or are newer versions, is refused with nothing changed; a
  ///     tool with more models than the folder records (a release adding one) opens it and
  ///     records them.
  ///   - options: Creation, naming, lock wait, clock and file system.
  /// - Returns: The open folder.
  /// - Throws: ``StashError`` when the local store cannot be opened: busy (another process),
  ///   damaged or too new, or the folder cannot be created; refused when two schemas share a
  ///   model name, or the folder holds models these do not include (see the README's "A folder knows whose it is").
  public static func open(
    at home: String, schemas: [Schema], options: Options = Options()
  ) throws(StashError) -> SyncFolder {
    let registry: SchemaRegistry
    do { registry = try SchemaRegistry(schemas) } catch { throw StashError(error) }
    return try open(at: home, registry: registry, options: options)
  }

  /// Opens a folder with a registry of schemas (see ``open(at:schemas:options:)``).
  ///
  /// - Throws: ``StashError`` as ``open(at:schemas:options:)`` does.
  public static func open(
    at home: String, registry schemas: SchemaRegistry, options: Options = Options()
  ) throws(StashError) -> SyncFolder {
    try open(
      at: home, registry: schemas, options: options,
      lock: FolderLock(folder: home, timeout: options.lockTimeout, fileSystem: options.fileSystem))
  }

  /// Opens a folder with `lock` as its lock (a sync that holds it while it opens the folder).
  static func open(
    at home: String, registry schemas: SchemaRegistry, options: Options, lock: FolderLock
  ) throws(StashError) -> SyncFolder {
    let storePath = home + "/" + LocalStore.fileName
    let exists: Bool
    do {
      exists = try options.fileSystem.identity(atPath: storePath) != nil
    } catch {
      throw StashError(LogError.io(error))
    }
    let record = try checkModels(
      home: home, registry: schemas, storeExists: exists, fileSystem: options.fileSystem)
    guard exists || options.createIfMissing else {
      return SyncFolder(
        home: home, schemas: schemas, local: nil, mirror: .notEntitled(.none), lock: lock,
        entitlementAtOpen: .none, options: options)
    }
    // A new folder records where it is in its first transaction: a copy taken before its
    // first write is then a copy too.
    var identity: FolderIdentity?
    if !exists {
      do { try options.fileSystem.makeDirectory(home) } catch {
        throw StashError(LogError.io(error))
      }
      identity = folderIdentity(of: home, fileSystem: options.fileSystem)
    }
    let local: LocalStore
    do {
      // Only a store that is created takes identifiers and a time: an open that creates
      // nothing leaves the folder's sequence of identifiers as it was.
      var creation: LocalStore.Creation?
      if !exists {
        let device = DeviceID(options.newIdentifier().rawValue)!
        creation = LocalStore.Creation(
          deviceID: device,
          deviceName: options.deviceName
            ?? DeviceSettings.defaultName(host: ProcessInfo.processInfo.hostName, device: device),
          time: options.clock(), storeID: StoreID(options.newIdentifier().rawValue)!,
          folderIdentity: identity)
      }
      local = try LocalStore.open(
        folder: home, schemas: schemas, lock: lock, create: creation,
        access: exists ? options.access.store : .writing, compaction: options.compaction,
        focus: exists ? localFocus(options) : nil, index: options.index,
        fileSystem: options.fileSystem)
    } catch {
      throw StashError(error)
    }
    record?.write(home: home, lock: lock, fileSystem: options.fileSystem)
    StoreNotice.watch(local.file, openedWith: local.openReport.tail, tell: options.notices)
    let entitlement = local.content.settings.entitlement
    let folder = SyncFolder(
      home: home, schemas: schemas, local: local, mirror: nil, lock: lock,
      entitlementAtOpen: entitlement,
      options: options)
    return folder
  }

  /// The local store's focus: every record a sync of sealed changes covers, or the records a
  /// one-record command names.
  private static func localFocus(_ options: Options) -> LocalStore.Focus? {
    guard let keys = options.syncKeys else { return options.focus }
    return LocalStore.Focus(keys: keys)
  }

  /// The mirror's focus: the records of a sync of sealed changes, when the local store holds
  /// only those too (a local store read whole runs the ordinary full pass, over a whole mirror).
  private func mirrorFocus(_ local: LocalStore) -> Set<RecordKey>? {
    local.content.isComplete ? nil : options.syncKeys
  }

  /// Opens the mirror holding only what it has of `keys` (through its index; the whole
  /// mirror when the index cannot be used), for a one-record command that reads it
  /// (`stash history`); nothing happens when the mirror is already open.
  package func openMirror(focusedOn keys: Set<RecordKey>) {
    mirrorStatus.withLock { status in
      if status == nil { status = openMirror(focus: keys) }
    }
  }

  /// Opens the mirror for `sync status`, for a process that only reads: through its index
  /// holding no record's versions (its state by value, and the index's summary of every
  /// version), when the shared folder holds nothing the mirror has not seen (what the
  /// status surveys then comes from the mirror's state alone); else, or when the index
  /// cannot be used, whole. Nothing happens when the mirror is already open.
  package func openMirrorForStatus() {
    mirrorStatus.withLock { status in
      guard status == nil else { return }
      let focused = openMirror(focus: [])
      guard case .available(let store) = focused, !store.content.isComplete else {
        status = focused
        return
      }
      if let summary = store.indexedSummary(), holdsNothingUnseen(store) {
        mirrorSummary.withLock { $0 = summary }
        status = focused
      } else {
        status = openMirror()
      }
    }
  }

  /// Whether the shared folder holds nothing `store` has not read or exported (also when
  /// there is none, or it cannot be used: status then surveys nothing).
  private func holdsNothingUnseen(_ store: MirrorStore) -> Bool {
    guard let folder = settings.cloudFolder, let cloud = try? cloudFolder(folder) else {
      return true
    }
    return cloud.holdsNothingUnseen(by: store.content)
  }

  private func openMirror(focus: Set<RecordKey>? = nil) -> MirrorStatus {
    guard let local, entitlementAtOpen.opensMirror else { return .notEntitled(entitlementAtOpen) }
    // As for the local store: only a mirror that is created takes an identifier and a time.
    let exists =
      (try? options.fileSystem.identity(atPath: home + "/" + MirrorStore.fileName)) ?? nil != nil
    // The mirror's versions share the local rows' records where they are equal (most are),
    // instead of holding every record a second time.
    let sharing = RecordSharing { [content = local.content] key in content.row(for: key)?.record }
    defer { sharing.end() }
    do {
      let store = try MirrorStore.open(
        folder: home, schemas: local.schemas, lock: lock,
        create: exists
          ? nil : (local.deviceID, options.clock(), StoreID(options.newIdentifier().rawValue)!),
        access: options.access.store, compaction: options.compaction,
        focus: focus ?? mirrorFocus(local), indexPolicy: options.mirrorIndex, sharing: sharing,
        fileSystem: options.fileSystem)
      StoreNotice.watch(store.file, openedWith: store.droppedTail, tell: options.notices)
      return .available(store)
    } catch {
      return .unavailable(
        "The mirror '\(home)/\(MirrorStore.fileName)' could not be opened (\(error)); the "
          + "inventory works as usual and sync is off until it is fixed")
    }
  }

  /// The local store, for an operation that writes.
  ///
  /// - Throws: ``StashError`` when the folder was opened for reading and has no store yet.
  func writableStore() throws(StashError) -> LocalStore {
    try existingStore()
  }

  /// The local store, or why there is none.
  func existingStore() throws(StashError) -> LocalStore {
    guard let local else {
      throw StashError(
        .refused, "The folder '\(home)' has no store yet; create it first", hint: .initialize)
    }
    return local
  }

  /// Everything the local store holds (empty when there is no store yet).
  package var content: LocalContent? { local?.content }
}

/// Whether the mirror is open, and why not (the engine's view: ``SyncFolder/mirrorProblem``
/// is what an embedding app reads).
package enum MirrorStatus: Sendable {
  /// The saved entitlement does not open the mirror (only a subscription does).
  case notEntitled(Entitlement)
  /// The mirror is open.
  case available(MirrorStore)
  /// The mirror could not be opened; the reason is for a person. The inventory works anyway.
  case unavailable(String)

  /// The open mirror, if there is one.
  package var store: MirrorStore? {
    if case .available(let store) = self { return store }
    return nil
  }
}
