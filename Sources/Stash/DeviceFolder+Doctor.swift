import JSONLines
import LocalStore
import MirrorStore
import StashBase
import StashFiles
import StashModel

extension DeviceFolder {
  /// Checks a device folder and reports what is wrong, without ever failing on damage.
  ///
  /// Opens the inventory and the mirror when there is one (entitled or not) for reading, so
  /// that nothing is changed or created; runs both stores' invariant checks, verifies every
  /// row's hash and every photo referenced by rows, conflicts and mirror versions, and lists
  /// what follows a store's last commit (damage when it is a damaged commit, a warning when it
  /// is an unfinished write), damaged rows, duplicate ids, dangling references, open conflicts
  /// and side files kept aside earlier. ``repair(at:options:)`` sets damage aside.
  ///
  /// - Parameters:
  ///   - home: The device folder.
  ///   - options: The lock wait, clock and file system (`createIfMissing` is ignored).
  ///   - progress: Told after each photo is verified (reading and hashing every photo is
  ///     what takes long) how many of all were (for a progress line on a terminal).
  /// - Returns: The report; ``DoctorReport/isDamaged`` says whether anything is broken.
  /// - Throws: ``StashError``: busy when another process holds the folder's lock; refused
  ///   when the folder is another tool's (its models are not the inventory's), with nothing
  ///   read or changed.
  public static func examine(
    at home: String, options: Options = Options(),
    progress: (_ checked: Int, _ total: Int) -> Void = { _, _ in }
  ) throws(StashError) -> DoctorReport {
    var report = DoctorReport(home: home)
    var options = options
    options.createIfMissing = false
    options.access = .reading
    let files = options.fileSystem
    let storePath = home + "/" + LocalStore.fileName
    let mirrorPath = home + "/" + MirrorStore.fileName
    let store = try? files.identity(atPath: storePath)
    report.hasInventory = store != nil
    let mirrorExists = (try? files.identity(atPath: mirrorPath)) != nil
    guard report.hasInventory || mirrorExists else { return report }
    // Another tool's folder is not damaged: it is not examined at all.
    _ = try SyncFolder.checkModels(
      home: home, registry: InventorySchemas.registry, storeExists: true, fileSystem: files)
    if let store, store.kind != .regular {
      // Nothing to open (and no lock to take, so nothing is created): say what it is.
      report.add(
        .damage, "local store",
        "'\(storePath)' is not a regular file (a folder, a FIFO or a device); move it aside "
          + "and restore the store from a backup, or remove it to start an empty inventory")
      return report
    }

    var device: DeviceFolder?
    if report.hasInventory {
      do {
        device = try DeviceFolder.open(at: home, options: options)
      } catch {
        if error.category == .busy { throw error }
        let hint = "; examine the folder to see what is wrong"
        let message =
          error.message.hasSuffix(hint) ? String(error.message.dropLast(hint.count)) : error.message
        report.add(.damage, "local store", message)
      }
    }
    var blobs = BlobCollector()
    if let device, let local = device.local {
      report.inventoryOpened = true
      examineLocal(local, into: &report, blobs: &blobs)
      if let problem = device.legacyDataProblem() {
        report.add(.warning, "legacy", problem.message)
      } else if device.legacyDataWaits {
        report.add(
          .note, "legacy",
          "The legacy file '\(device.legacyFilePath)' waits to be imported by the next command "
            + "that opens the folder")
      }
      examineMirror(of: device, exists: mirrorExists, into: &report, blobs: &blobs)
      examine(blobs, in: device.blobs, into: &report, progress: progress)
    } else if mirrorExists {
      let lock = FolderLock(folder: home, timeout: options.lockTimeout, fileSystem: files)
      try examineMirrorFile(
        home: home, lock: lock, options: options, into: &report, blobs: &blobs)
      examine(
        blobs, in: BlobStore(deviceFolder: home, fileSystem: files), into: &report,
        progress: progress)
    }
    report.add(contentsOf: sideFiles(in: home, fileSystem: files, except: device?.local))
    report.findings.sort { $0.severity < $1.severity }
    return report
  }

  // MARK: - The local store

  private static func examineLocal(
    _ local: LocalStore, into report: inout DoctorReport, blobs: inout BlobCollector
  ) {
    let content = local.content
    if let tail = local.openReport.tail {
      report.add(tail.kind == .damaged ? .damage : .warning, "local store", tail.description)
    }
    for problem in content.checkInvariants(verifyingHashes: false) {
      report.add(.damage, "local store", "The inventory breaks an invariant: \(problem)")
    }
    for row in local.untrustedRows {
      let place = row.line > 0 ? " at line \(row.line)" : ""
      let record = row.key.map { " (\($0.model) '\($0.id)')" } ?? ""
      report.add(
        .damage, "local store",
        "Row \(row.row)\(record)\(place) of '\(local.path)' cannot be trusted: \(row.reason); "
          + "it is not shown or synced; repair the folder to move it to a side file",
        hint: .repair)
    }
    var counts = [String: Int]()
    for stored in content.rows.values {  // in row order
      let record = stored.record
      counts[record.model, default: 0] += 1
      blobs.collect(record, from: "\(record.model) \(label(of: record))")
      if let problem = typedViewProblem(of: record) {
        report.add(.warning, "local store", problem)
      }
    }
    report.items = counts["item"] ?? 0
    report.locations = counts["location"] ?? 0
    report.reminders = counts["reminder"] ?? 0

    var diagnosed = Set<RecordKey>()
    for diagnostic in content.diagnostics.values.sorted(by: { $0.key < $1.key }) {
      diagnosed.insert(diagnostic.key)
      report.add(
        .warning, "duplicates",
        "\(diagnostic.rows) rows in the \(diagnostic.store.rawValue) store share the id "
          + "'\(diagnostic.key.id)' (\(diagnostic.key.model)); edit or delete one by its name")
    }
    for (key, rows) in content.rowsByKey.sorted(by: { $0.key < $1.key })
    where rows.count > 1 && !diagnosed.contains(key) {
      report.add(
        .warning, "duplicates",
        "\(rows.count) rows in the local store share the id '\(key.id)' (\(key.model)); edit "
          + "or delete one by its name")
    }
    for reference in content.danglingReferences() {
      let from =
        content.row(for: reference.from).map { label(of: $0.record) }
        ?? "'\(reference.from.id)'"
      let state = reference.targetDeleted ? "was deleted here" : "is not here (not synced yet?)"
      report.add(
        .note, "references",
        "The \(reference.from.model) \(from) names \(reference.to.model) "
          + "'\(reference.to.id.rawValue.prefix(8))' in '\(reference.field)', which \(state)")
    }
    let open = content.openConflicts
    report.openConflicts = open.count
    for conflict in content.conflicts.values.sorted(by: { $0.id < $1.id }) {
      for side in conflict.sides {
        if let record = side.snapshot?.record {
          blobs.collect(record, from: "conflict '\(conflict.id.short)'")
        }
      }
    }
    for conflict in open {
      report.add(
        .note, "conflicts",
        "Conflict '\(conflict.id.short)' on \(conflict.key.model) "
          + "'\(conflict.key.id.rawValue.prefix(8))' (\(conflict.kind.rawValue)) waits for a "
          + "decision; show the conflict to see its sides",
        hint: .showConflict(id: conflict.id.short))
    }
  }

  /// Why a row does not read as its typed model (a reminder's unknown trigger), if it does not.
  private static func typedViewProblem(of record: Record) -> String? {
    do {
      switch record.model {
      case "item": _ = try Item(record: record)
      case "location": _ = try Location(record: record)
      case "reminder": _ = try Reminder(record: record)
      default: return nil
      }
      return nil
    } catch {
      return "The \(record.model) '\(record.id)' cannot be shown: \(error.message)"
    }
  }

  // MARK: - The mirror

  private static func examineMirror(
    of device: DeviceFolder, exists: Bool, into report: inout DoctorReport,
    blobs: inout BlobCollector
  ) {
    switch device.mirror {
    case .available(let store):
      report.mirror = "open"
      examine(store, into: &report, blobs: &blobs)
      if let local = device.local, local.deviceID != store.content.deviceID {
        report.add(
          .damage, "sync",
          "An earlier change of this device's identity did not finish (the local store and the "
            + "mirror name different devices), so sync stops until it does; repair the folder to "
            + "finish it", hint: .repair)
      }
      // A copy of this folder syncing as this device (see `stash sync new-identity`).
      if let stop = device.folder.sharedFolderProblem() {
        report.add(.damage, "sync", stop.message, hint: stop.hint)
      }
      report.findings += device.sharedFolderFindings()
    case .unavailable(let reason):
      report.mirror = "unavailable"
      report.add(.damage, "mirror", reason)
    case .notEntitled:
      guard exists else {
        report.mirror = "off"
        return
      }
      report.mirror = "off"
      let options = device.options
      // The lock is this process's own (reentrant), so this cannot be busy.
      try? examineMirrorFile(
        home: device.home, lock: device.lock, options: options, into: &report, blobs: &blobs)
    }
  }

  /// Opens `cloud.store` directly (sync not entitled, or no readable inventory) and checks it.
  private static func examineMirrorFile(
    home: String, lock: FolderLock, options: Options, into report: inout DoctorReport,
    blobs: inout BlobCollector
  ) throws(StashError) {
    do {
      let store = try MirrorStore.open(
        folder: home, schemas: InventorySchemas.registry, lock: lock, access: .reading,
        fileSystem: options.fileSystem)
      StoreNotice.watch(store.file, openedWith: store.droppedTail, tell: options.notices)
      examine(store, into: &report, blobs: &blobs)
    } catch {
      if case .busy = error { throw StashError(error) }
      report.add(
        .damage, "mirror",
        "The mirror '\(home)/\(MirrorStore.fileName)' could not be opened (\(error)); the "
          + "inventory works as usual and sync is off until it is fixed")
    }
  }

  private static func examine(
    _ store: MirrorStore, into report: inout DoctorReport, blobs: inout BlobCollector
  ) {
    if let tail = store.droppedTail {
      report.add(tail.kind == .damaged ? .damage : .warning, "mirror", tail.message(true))
    }
    let content = store.content
    for problem in content.checkInvariants() {
      report.add(.damage, "mirror", "The mirror breaks an invariant: \(problem)")
    }
    for (key, versions) in content.versions.sorted(by: { $0.key < $1.key }) {
      for version in versions.values.sorted(by: { $0.id < $1.id }) {
        if let record = version.snapshot.record {
          blobs.collect(record, from: "mirror version '\(version.hash.short)' of \(key.model)")
        }
      }
    }
  }

  // MARK: - Photos and side files

  private static func examine(
    _ collector: BlobCollector, in store: BlobStore, into report: inout DoctorReport,
    progress: (Int, Int) -> Void
  ) {
    report.photosChecked = collector.order.count
    for (index, digest) in collector.order.enumerated() {
      defer { progress(index + 1, collector.order.count) }
      guard let (ref, owner) = collector.found[digest] else { continue }
      switch store.check(ref) {
      case .present:
        continue
      case .missing:
        report.add(
          .damage, "photos",
          "The photo '\(digest.hex.prefix(12))' of \(owner) is missing from "
            + "'\(store.folder)'; copy it back or attach the photo again")
      case .corrupt(let reason):
        report.add(
          .damage, "photos",
          "The photo '\(digest.hex.prefix(12))' of \(owner) is damaged (\(reason)); attach "
            + "the photo again")
      }
    }
  }

  /// Side files that earlier opens and repairs kept beside the stores: unfinished writes
  /// (`<store>.torn-*`), damaged last transactions (`<store>.damaged-*`) and damaged rows
  /// (`<store>.damaged-rows-*`).
  private static func sideFiles(
    in home: String, fileSystem: any FileSystem, except local: LocalStore?
  ) -> [DoctorReport.Finding] {
    let names = (try? fileSystem.contentsOfDirectory(home)) ?? []
    let current = local?.openReport.tail?.keptAt
    return names.sorted().compactMap { name in
      guard let kind = SideFile(name: name), home + "/" + name != current else { return nil }
      let path = "'\(home)/\(name)'"
      switch kind {
      case .torn:
        return DoctorReport.Finding(
          .note, kind.area,
          "\(path) holds an unfinished write dropped earlier (never reported saved); it is "
            + "kept for you to inspect and can be removed")
      case .damagedTail where name.hasPrefix(MirrorStore.fileName + "."):
        return DoctorReport.Finding(
          .note, kind.area,
          "\(path) holds a damaged last transaction of the mirror set aside earlier; the "
            + "mirror holds copies only, which a sync reads again from the shared folder and "
            + "the inventory; it can be removed")
      case .damagedTail:
        return DoctorReport.Finding(
          .warning, kind.area,
          "\(path) holds a damaged last transaction set aside earlier; it may hold a change "
            + "that was reported saved: look at it, make that change again if it is missing, "
            + "then remove the file")
      case .damagedRows:
        return DoctorReport.Finding(
          .warning, kind.area,
          "\(path) holds damaged rows set aside earlier, one JSON object per line; add again "
            + "what you still need, then remove the file")
      }
    }
  }
}

/// The side files kept beside a store, by their names.
enum SideFile {
  case torn, damagedTail, damagedRows

  init?(name: String) {
    for store in [LocalStore.fileName, MirrorStore.fileName] {
      guard name.hasPrefix(store + "."), !TemporaryName.isTemporary(name) else { continue }
      let rest = name.dropFirst(store.count + 1)
      if rest.hasPrefix("damaged-rows-") {
        self = .damagedRows
      } else if rest.hasPrefix("damaged-") {
        self = .damagedTail
      } else if rest.hasPrefix("torn-") {
        self = .torn
      } else {
        continue
      }
      return
    }
    return nil
  }

  var area: String { "side files" }
}

/// The distinct photos referenced anywhere, each with the first record that named it.
private struct BlobCollector {
  var order: [SHA256Digest] = []
  var found: [SHA256Digest: (BlobRef, String)] = [:]

  mutating func collect(_ record: Record, from owner: String) {
    for value in record.values {
      guard case .blob(let ref) = value, found[ref.digest] == nil else { continue }
      found[ref.digest] = (ref, owner)
      order.append(ref.digest)
    }
  }
}

extension DoctorReport {
  fileprivate mutating func add(contentsOf more: [Finding]) {
    findings.append(contentsOf: more)
  }
}
