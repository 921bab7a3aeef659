import JSONLines
import LocalStore
import MirrorStore
import StashFiles
import StashModel

extension DeviceFolder {
  /// Sets aside what `stash doctor` reports as damage it can set aside, then checks the folder
  /// again: `stash doctor --repair`.
  ///
  /// - A damaged (or unfinished) last transaction of either store is moved to a side file
  ///   (`<store>.damaged-<ms>-<offset>`, `<store>.torn-<ms>-<offset>`) and cut from the store.
  /// - Rows that cannot be trusted (set aside when read, or whose hash does not match) are
  ///   written to `default.store.damaged-rows-<ms>` and removed, in one transaction.
  ///
  /// - Duplicates are merged in place, once per repair version
  ///   (``SyncFolder/repairDuplicates()``): the winner is updated, only the others are deleted.
  /// - A change of the device's identity that a crash or a power cut interrupted (the mirror
  ///   rewritten, the local store not yet) is finished, with the identity the mirror names
  ///   (``SyncFolder/takeNewIdentity()``).
  ///
  /// Nothing else is deleted: every byte set aside is in a side file the report names. Damage
  /// before a store's last commit is not repaired here (it would mean dropping committed
  /// transactions): the report says so, and the store stays as it is.
  ///
  /// - Parameters:
  ///   - home: The device folder.
  ///   - options: The lock wait, clock and file system (`createIfMissing` and `access` are
  ///     ignored).
  /// - Returns: The report of the folder after the repair, with ``DoctorReport/repairs``
  ///   saying what was set aside and where.
  /// - Throws: ``StashError``: busy when another process holds the folder's lock; refused
  ///   when the folder is another tool's, with nothing changed (a record of a model this
  ///   tool does not know is not damage).
  public static func repair(
    at home: String, options: Options = Options(),
    progress: (_ checked: Int, _ total: Int) -> Void = { _, _ in }
  ) throws(StashError) -> DoctorReport {
    var writing = options
    writing.createIfMissing = false
    writing.access = .writing
    writing.notices = { _ in }
    let files = options.fileSystem
    var repairs: [String] = []
    let storePath = home + "/" + LocalStore.fileName
    let mirrorPath = home + "/" + MirrorStore.fileName
    // Another tool's folder is not damaged: nothing of it is set aside.
    if (try? files.identity(atPath: storePath)) != nil
      || (try? files.identity(atPath: mirrorPath)) != nil
    {
      _ = try SyncFolder.checkModels(
        home: home, registry: InventorySchemas.registry, storeExists: true, fileSystem: files)
    }
    let lock = FolderLock(folder: home, timeout: options.lockTimeout, fileSystem: files)
    // The device each store names: they differ when a change of identity was interrupted.
    var devices: (local: DeviceID?, mirror: DeviceID?) = (nil, nil)
    if (try? files.identity(atPath: storePath)) != nil {
      do {
        let local = try LocalStore.open(
          folder: home, schemas: InventorySchemas.registry, lock: lock, fileSystem: files)
        if let tail = local.openReport.tail { repairs.append(tail.description) }
        devices.local = local.deviceID
        if let aside = try local.setAsideDamagedRows(at: options.clock()) {
          let count = aside.rows.count == 1 ? "1 damaged row" : "\(aside.rows.count) damaged rows"
          repairs.append(
            "Set aside \(count) of '\(local.path)' in '\(aside.keptAt)'; add again what you "
              + "still need")
        }
      } catch {
        let failure = StashError(error)
        if failure.category == .busy { throw failure }
      }
    }
    if (try? files.identity(atPath: mirrorPath)) != nil {
      do {
        let mirror = try MirrorStore.open(
          folder: home, schemas: InventorySchemas.registry, lock: lock, fileSystem: files)
        if let tail = mirror.droppedTail { repairs.append(tail.message(true)) }
        devices.mirror = mirror.content.deviceID
      } catch {
        if case .busy = error { throw StashError(error) }
      }
    }
    if (try? files.identity(atPath: storePath)) != nil,
      let device = try? DeviceFolder.open(at: home, options: writing)
    {
      if let local = devices.local, let mirror = devices.mirror, local != mirror {
        do {
          let finished = try device.folder.takeNewIdentity()
          repairs.append(
            "Finished the change of this device's identity to '\(finished.current)' that was "
              + "interrupted; the next sync exports \(finished.versionsToExport) versions under it")
        } catch {
          if error.category == .busy { throw error }
          repairs.append("The change of this device's identity was not finished: \(error.message)")
        }
      }
      do {
        repairs += try device.folder.repairDuplicates().summary
      } catch {
        if error.category == .busy { throw error }
        repairs.append("Duplicates were not merged: \(error.message)")
      }
    }
    var report = try examine(at: home, options: options, progress: progress)
    report.repairs = repairs
    return report
  }
}
