// LocalStore: the inventory, `default.store`.
//
// It owns live rows of every registered schema, local tombstones, checkpoints (bound to one
// mirror), conflicts, diagnostics and the device's own settings. It always opens: it never
// depends on the mirror, the transport or the network. It must never import MirrorStore (the
// Reconciler is the only module that sees both).
//
// Every row is checked when it is read (row number range, schema, the model's checks) and
// when it is saved (the same checks, and the record size); a row read from the file that
// fails is set aside as a DamagedRow, never live. Hashes are verified before a row's content
// leaves the store (verifyHashes), not on open.

public import JSONLines
import StashBase
public import StashFiles
public import StashModel
import Synchronization

/// The inventory of one device folder: the file the screen and the CLI read and write.
///
/// Reads come from memory (``content``). Every save runs under the folder's lock: it first
/// catches up with what other processes committed, then builds its changes against that fresh
/// content, writes them as one transaction, and applies them only once they are durable.
public final class LocalStore: Sendable {
  /// The file name inside a device folder.
  public static let fileName = "default.store"

  /// The device folder.
  public let folder: String
  /// What opening found (a dropped tail, or that the file was created).
  public let openReport: OpenReport
  /// The file and its replayed content.
  public let file: LogStore<LocalContent>
  private let observers = Mutex<[@Sendable (SaveNotice) -> Void]>([])
  /// When this store writes its index.
  let indexPolicy: IndexPolicy
  /// What this process knows of the index.
  let indexState: Mutex<IndexState>
  /// Whether saves defer their index builds, and the one running.
  let indexDeferral = Mutex(IndexDeferral())

  /// What opening the store found.
  public struct OpenReport: Sendable {
    /// Whether the file was created by this open.
    public let created: Bool
    /// What followed the last commit: set aside (opened for writing) or ignored (reading).
    public let tail: TailReport?
    /// Whether the index was used.
    public var index: IndexUse = .notAsked
  }

  /// Which kind of writer saved.
  public enum SaveOrigin: Sendable, Equatable {
    /// A person's edit: the coordinator schedules a pass for the changed keys.
    case user
    /// The reconciler's own writes: they never schedule another pass.
    case reconciler
  }

  /// What a save changed, for observers such as the sync coordinator.
  public struct SaveNotice: Sendable, Equatable {
    /// Who saved.
    public let origin: SaveOrigin
    /// The records whose rows or tombstones changed.
    public let keys: Set<RecordKey>

    /// A notice.
    public init(origin: SaveOrigin, keys: Set<RecordKey>) {
      self.origin = origin
      self.keys = keys
    }
  }

  /// How to create a missing store.
  public struct Creation: Sendable {
    /// The new device's identity.
    public var deviceID: DeviceID
    /// The new device's name.
    public var deviceName: String
    /// The creation time.
    public var time: Timestamp
    /// The new store file's identifier (random unless a fixture fixes it).
    public var storeID: StoreID
    /// Where the device folder is (see ``DeviceSettings/folderIdentity``), when known.
    public var folderIdentity: FolderIdentity?

    /// Describes a new device.
    public init(
      deviceID: DeviceID = .make(), deviceName: String, time: Timestamp,
      storeID: StoreID = .make(), folderIdentity: FolderIdentity? = nil
    ) {
      self.deviceID = deviceID
      self.deviceName = deviceName
      self.time = time
      self.storeID = storeID
      self.folderIdentity = folderIdentity
    }
  }

  private init(
    folder: String, file: LogStore<LocalContent>, openReport: OpenReport,
    indexPolicy: IndexPolicy, indexEnd: Int64?, indexChecked: Bool
  ) {
    self.folder = folder
    self.file = file
    self.openReport = openReport
    self.indexPolicy = indexPolicy
    self.indexState = Mutex(
      IndexState(end: indexEnd, inode: nil, loaded: nil, checked: indexChecked))
  }

  /// Opens the store of a device folder, creating it when `create` is given and the file is
  /// missing.
  ///
  /// - Parameters:
  ///   - folder: The device folder.
  ///   - schemas: The models the store holds.
  ///   - lock: The folder's lock (shared with the mirror store of the same folder).
  ///   - create: How to create a missing store; `nil` to fail with ``LogError/missing(_:)``.
  ///   - access: Writing, or reading: then the file is not changed (nor created) until a
  ///     save has something to write.
  ///   - compaction: When saves compact the file.
  ///   - focus: The records a one-record command needs: the store then opens from its index
  ///     when that index still describes the file, and holds only those records (see
  ///     ``Focus``); `nil` reads the whole store.
  ///   - index: When saves write the index.
  ///   - fileSystem: The file-system seam.
  /// - Returns: The open store.
  /// - Throws: ``LocalStoreError/log(_:)`` when the file is damaged, busy, too new or
  ///   unreadable.
  public static func open(
    folder: String, schemas: SchemaRegistry, lock: FolderLock, create: Creation? = nil,
    access: StoreAccess = .writing, compaction: CompactionPolicy = .standard,
    focus: Focus? = nil, index: IndexPolicy = .standard,
    fileSystem: any FileSystem = POSIXFileSystem()
  ) throws(LocalStoreError) -> LocalStore {
    let path = folder + "/" + fileName
    var ignored: String?
    if let focus {
      do throws(LogError) {
        if let (file, tail, found) = try openFromIndex(
          path: path, focus: focus, schemas: schemas, lock: lock, access: access,
          compaction: compaction, policy: index, fileSystem: fileSystem)
        {
          let tailBytes = file.withLog { log, _ in log.committedEnd - found.prefix.end } ?? 0
          var report = OpenReport(created: false, tail: tail)
          report.index = IndexUse.used(tailBytes: tailBytes)
          let store = LocalStore(
            folder: folder, file: file, openReport: report, indexPolicy: index,
            indexEnd: found.prefix.end, indexChecked: true)
          store.indexState.withLock {
            $0.loaded = found
            $0.inode = found.prefix.inode
          }
          return store
        }
      } catch {
        throw .log(error)
      }
      ignored = "the index is missing or does not describe the store"
    }
    let creation = create.map { create in
      LogStore<LocalContent>.Creation(
        header: LogHeader(
          format: LocalContent.format, version: LocalContent.version, storeID: create.storeID,
          deviceID: create.deviceID, created: create.time),
        initialChanges: [
          .putSettings(
            DeviceSettings(name: create.deviceName, folderIdentity: create.folderIdentity))
        ])
    }
    do throws(LogError) {
      let (file, created, tail) = try LogStore<LocalContent>.openOrCreate(
        path: path, lock: lock, context: schemas, creation: creation, access: access,
        compaction: compaction, fileSystem: fileSystem)
      var report = OpenReport(created: created, tail: tail)
      if let ignored { report.index = .ignored(ignored) }
      return LocalStore(
        folder: folder, file: file, openReport: report, indexPolicy: index, indexEnd: nil,
        indexChecked: focus != nil)
    } catch {
      throw .log(error)
    }
  }

  /// The store file's path.
  public var path: String { file.path }

  /// The folder's lock.
  public var lock: FolderLock { file.lock }

  /// The schemas whose records this store holds.
  public var schemas: SchemaRegistry { file.context }

  /// A copy of everything the store holds (cheap: the collections are shared until changed).
  public var content: LocalContent { file.content }

  /// This device's identity.
  public var deviceID: DeviceID { file.header.deviceID }

  /// The store file's identifier.
  public var storeID: StoreID { file.header.storeID }

  /// Adds a function called after every successful save (outside the store's locks).
  public func observeSaves(_ observer: @escaping @Sendable (SaveNotice) -> Void) {
    observers.withLock { $0.append(observer) }
  }

  /// Saves one transaction built against the freshest content.
  ///
  /// Under the folder's lock: catches up with other processes' commits, calls `body` with the
  /// fresh content and an empty transaction, writes what `body` added as one transaction
  /// (returning only after it is on stable storage), applies it in memory, and then tells the
  /// save observers. If `body` throws, nothing is written. If the write fails, nothing changes.
  ///
  /// - Parameters:
  ///   - action: Names the change in an error message, e.g. `"the delete of 'Koleston 7/1'"`.
  ///   - origin: Who is saving; the reconciler's saves never schedule another pass.
  ///   - body: Reads the content and adds changes (it may read ``content``, which is the same).
  /// - Returns: What `body` returns.
  /// - Throws: ``SaveError/refused(_:)`` with what `body` threw, or ``SaveError/store(_:)``
  ///   with ``LocalStoreError/notSaved(action:_:)`` when the write fails or
  ///   ``LocalStoreError/log(_:)`` when catching up fails.
  @discardableResult
  public func update<T, E: Error>(
    _ action: String, origin: SaveOrigin = .user,
    _ body: (LocalContent, inout LocalTransaction) throws(E) -> T
  ) throws(SaveError<LocalStoreError, E>) -> T {
    let result: T
    let changes: [LocalChange]
    do {
      (result, changes) = try file.update { content throws(E) in
        var transaction = LocalTransaction(nextRow: content.nextRow, schemas: content.schemas)
        let result = try body(content, &transaction)
        return (result, transaction.changes)
      }
    } catch {
      switch error {
      case .refused(let refusal): throw .refused(refusal)
      case .store(.write(let error)): throw .store(.notSaved(action: action, error))
      case .store(.read(let error)): throw .store(.log(error))
      }
    }
    if !changes.isEmpty { maintainIndex() }
    // The keys only when someone listens: a command's save has no observer, and the set of a
    // 100,000-row import's keys (12.6 MB with the list it was made from) was its peak.
    let observers = self.observers.withLock { $0 }
    guard !observers.isEmpty else { return result }
    let keys = LocalTransaction.changedKeys(of: changes)
    if !keys.isEmpty {
      let notice = SaveNotice(origin: origin, keys: keys)
      for observer in observers { observer(notice) }
    }
    return result
  }

  /// Catches up with what other processes committed since this store was read.
  ///
  /// - Throws: ``LocalStoreError/log(_:)``.
  public func refresh() throws(LocalStoreError) {
    do { try file.refresh() } catch { throw .log(error.logError) }
  }

  /// Rewrites the file to hold only the live state.
  ///
  /// - Throws: ``LocalStoreError/log(_:)``; the old file is then untouched.
  public func compact() throws(LocalStoreError) {
    do { try file.compact() } catch { throw .log(error.logError) }
  }

  /// Checks that each row's stored hash matches its record.
  ///
  /// Opening does not hash every row (it stays cheap); this is called before a row's content
  /// leaves the store (a reconcile pass copying it to the mirror, a resolution), so that a row
  /// edited in the file without its hash never travels.
  ///
  /// - Throws: ``LocalStoreError/staleHash(path:row:key:)`` for the first row that fails.
  public func verifyHashes(of rows: some Sequence<StoredRow>) throws(LocalStoreError) {
    let rows = Array(rows)
    let stale = Parallel.firstProblem(count: rows.count) { index in
      rows[index].record.snapshotHash != rows[index].hash ? true : nil
    }
    if let (index, _) = stale {
      throw .staleHash(path: path, row: rows[index].row, key: rows[index].record.key)
    }
  }
}
