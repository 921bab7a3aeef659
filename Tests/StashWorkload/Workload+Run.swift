public import Foundation
public import JSONLines
public import LocalStore
public import MirrorStore
public import Stash
import StashBase
public import StashFiles
import StashModel
import StashTestSupport

extension Workload {
  /// What a step did.
  public enum Outcome: Sendable, Equatable {
    /// It did what it says, and said so.
    case saved
    /// It failed, with this message.
    case failed(String)
    /// There was nothing to do (no conflict to resolve, an item already gone).
    case skipped
  }

  /// One run of the steps through a file system: the two devices' open folders, their
  /// seeded identifiers, and one clock, so that two runs with the same file-system behaviour
  /// make the same calls and the same bytes.
  public final class Run {
    public let workload: Workload
    public let root: URL
    public let fileSystem: any FileSystem
    private let clock = TickingClock(start: Timestamp(secondsSince1970: 1_764_441_600)!)
    private let identifiers: [Device: LockedBox<SeededRandom>]
    private var folders: [Device: DeviceFolder] = [:]

    /// When the stores compact.
    public let compaction: CompactionPolicy
    /// Whether a sync step runs as `stash sync` does (nothing, or a sync of sealed changes,
    /// when the sync state allows it), or always the full sync. Whether the seal matches a
    /// store by its times or by its bytes depends on the clock's granularity, so only the full
    /// sync makes the same calls in every run (what `IOErrorTests` needs); the crash tests
    /// sync as the CLI does.
    public let syncsAsTheCLI: Bool
    /// How many sync steps ran as a sync of sealed changes.
    public private(set) var sealedSyncs = 0
    /// How many syncs ran less than the whole sync (nothing, or a pass over sealed changes).
    public private(set) var lighterSyncs = 0

    /// A run of `workload` in `root` (prepared with ``Workload/prepare(in:)``).
    public init(
      workload: Workload, root: URL, fileSystem: any FileSystem,
      compaction: CompactionPolicy = Workload.compaction, syncsAsTheCLI: Bool = true
    ) {
      self.syncsAsTheCLI = syncsAsTheCLI
      self.workload = workload
      self.root = root
      self.fileSystem = fileSystem
      self.compaction = compaction
      var identifiers: [Device: LockedBox<SeededRandom>] = [:]
      for (offset, device) in Device.allCases.enumerated() {
        identifiers[device] = LockedBox(SeededRandom(seed: workload.seed &* 31 &+ UInt64(offset)))
      }
      self.identifiers = identifiers
    }

    /// Opens a device's folder as the CLI does (for reading; saves take write access).
    public func open(_ device: Device, creating: Bool = false) throws -> DeviceFolder {
      if !creating { try adopt(device) }
      let folder = try DeviceFolder.open(
        at: Workload.home(device, in: root), options: options(device, creating: creating))
      folders[device] = folder
      return folder
    }

    /// A copy of a prepared workload is the same two devices, moved (one save, in every run
    /// alike, with the store's own code): its settings name its own shared folder (they name it
    /// by its absolute path) and its folders where they are now, so that neither is taken for
    /// a copy of a device that takes an identity of its own.
    private func adopt(_ device: Device) throws {
      let home = Workload.home(device, in: root)
      let cloud = Workload.cloud(in: root)
      let here = SyncFolder.folderIdentity(of: home, fileSystem: fileSystem)
      let lock = FolderLock(folder: home, timeout: 10, fileSystem: fileSystem)
      let local = try LocalStore.open(
        folder: home, schemas: InventorySchemas.registry, lock: lock, fileSystem: fileSystem)
      let settings = local.content.settings
      guard settings.cloudFolder != cloud || settings.folderIdentity != here else { return }
      try local.update("the workload's copy") { content, transaction in
        var adopted = content.settings
        adopted.cloudFolder = cloud
        adopted.folderIdentity = here
        transaction.setSettings(adopted)
      }
    }

    /// How the CLI opens a device's folder, with this run's clock, identifiers and file system.
    /// Every store keeps its index (as a large store's do), so that a sync of sealed changes
    /// opens both stores from them.
    func options(_ device: Device, creating: Bool = false) -> DeviceFolder.Options {
      let ids = identifiers[device]!
      let clock = self.clock
      var options = DeviceFolder.Options(
        createIfMissing: creating, deviceName: "device-\(device.rawValue)", lockTimeout: 10,
        clock: { clock.tick() }, newIdentifier: { ids.withLock { RecordID.random(using: &$0) } },
        fileSystem: fileSystem, access: creating ? .writing : .reading, compaction: compaction)
      options.index = LocalStore.IndexPolicy(minimumRows: 1)
      options.mirrorIndex = MirrorStore.IndexPolicy(minimumVersions: 1)
      return options
    }

    /// A sync as `stash sync` runs it: the folder opened again (as a new process would) as
    /// cheaply as its sync state allows, and synced. The reference runs the full sync every
    /// time.
    func sync(_ device: Device, _ folder: DeviceFolder) throws -> SyncRunReport {
      guard syncsAsTheCLI else {
        // Without a sync state, nothing but the full sync runs.
        try? FileManager.default.removeItem(atPath: Workload.home(device, in: root) + "/sync.state")
        return try folder.folder.sync()
      }
      // The running process catches up with what the other instance wrote, whatever happens.
      defer { try? folder.folder.refresh() }
      let report = try DeviceFolder.sync(
        at: Workload.home(device, in: root), options: options(device))
      if !report.ranWhole { lighterSyncs += 1 }
      if report.ranSealedChanges { sealedSyncs += 1 }
      return report
    }

    /// The device's folder as this run has it open, if it is.
    public func folder(_ device: Device) -> DeviceFolder? { folders[device] }

    /// Forgets the device's open folder: the next step opens it again.
    func forget(_ device: Device) { folders[device] = nil }

    /// Runs every step in order; `observe` hears of each before (`nil`) and after it.
    @discardableResult
    public func run(observe: (Step, Outcome?) -> Void = { _, _ in }) -> [Outcome] {
      workload.steps.map { step in
        observe(step, nil)
        let outcome = perform(step)
        observe(step, outcome)
        return outcome
      }
    }

    /// Runs one step.
    public func perform(_ step: Step) -> Outcome {
      do {
        let folder: DeviceFolder
        if step.action == .restart || folders[step.device] == nil {
          folder = try open(step.device)
          if step.action == .restart { return .saved }
        } else {
          folder = folders[step.device]!
        }
        return try perform(step.action, on: folder, of: step.device)
      } catch {
        return .failed("\(error)")
      }
    }

    private func perform(_ action: Action, on folder: DeviceFolder, of device: Device) throws
      -> Outcome
    {
      switch action {
      case .add(let name, let quantity, let photo):
        let ref = photo ? try folder.storePhoto(at: Workload.photo(name, in: root)) : nil
        try folder.addItem(
          Item(
            id: folder.folder.newIdentifier(), name: name, quantity: quantity, photo: ref,
            createdAt: clock.tick()))
      case .consume(let name, let count):
        guard let item = try? folder.item(name), item.quantity >= count else { return .skipped }
        try folder.consume(name, count: count)
      case .restock(let name, let count):
        guard (try? folder.item(name)) != nil else { return .skipped }
        try folder.restock(name, count: count)
      case .recount(let name, let count):
        guard (try? folder.item(name)) != nil else { return .skipped }
        try folder.recount(name, to: count)
      case .delete(let name):
        guard (try? folder.item(name)) != nil else { return .skipped }
        try folder.deleteItem(name)
      case .sync:
        // A failed pass or export is reported, not thrown (the import is in the mirror): it is
        // this step's failure all the same.
        let report = try sync(device, folder)
        if let failure = report.passError ?? report.exportError { throw failure }
      case .resolve:
        guard let conflict = folder.folder.conflicts().first else { return .skipped }
        try folder.folder.resolveConflict(conflict.id.rawValue, keep: .local)
      case .restart:
        break
      case .edit(let name, let notes):
        guard (try? folder.item(name)) != nil else { return .skipped }
        try folder.editItem(name) { $0.notes = notes }
      case .undo(let name):
        guard (try? folder.item(name)) != nil else { return .skipped }
        try folder.undo(name)
      case .importItems(let count):
        let file = try DeviceFolder.readImport(
          at: Workload.importFile(count, in: root), now: clock.now)
        _ = try folder.importItems(file)
      case .compact, .damageTails, .repair, .newIdentity:
        return try maintain(action, on: folder, of: device)
      }
      return .saved
    }
  }
}

extension Workload.Run {
  /// The steps that look after a folder rather than edit it.
  fileprivate func maintain(
    _ action: Workload.Action, on folder: DeviceFolder, of device: Workload.Device
  ) throws -> Workload.Outcome {
    let home = Workload.home(device, in: root)
    switch action {
    case .compact:
      try folder.folder.local?.compact()
      try folder.folder.mirror.store?.file.compact()
    case .damageTails:
      for (name, tail) in [
        ("default.store", #"{"crc":"00000000","tx":1,"commit":1}"# + "\n"),
        ("cloud.store", #"{"crc":"00000000","tx":1,"op":{"rem"#),
      ] {
        let file = try fileSystem.open(home + "/" + name, .readWrite)
        defer { fileSystem.close(file) }
        try fileSystem.write(file, Array(tail.utf8), at: try fileSystem.identity(of: file).size)
        try fileSystem.synchronize(file)
      }
      forget(device)
    case .repair:
      let report = try DeviceFolder.repair(at: home, options: options(device))
      forget(device)
      if report.isDamaged { throw ModelError("the repair left damage: \(report.findings)") }
    case .newIdentity:
      _ = try folder.folder.takeNewIdentity()
    default:
      break
    }
    return .saved
  }
}

/// What a store holds, in a form two runs can compare.
public enum StoreDigest {
  /// The local store's content, as the SHA-256 of the changes that rebuild it (but the
  /// settings, which name the folder a copy of a workload lives in).
  public static func local(_ content: LocalContent) -> String {
    var bytes = [UInt8]()
    for change in content.changesForCompaction {
      if case .putSettings = change { continue }
      JSONWriter.write(.object(LocalContent.operation(for: change)), into: &bytes)
      bytes.append(UInt8(ascii: "\n"))
    }
    return SHA256.hash(bytes).hex
  }

  /// Every version the mirror holds, as `model/id/hash`.
  public static func versions(_ content: MirrorContent) -> Set<String> {
    var found = Set<String>()
    for (key, versions) in content.versions {
      for hash in versions.keys { found.insert("\(key.model)/\(key.id)/\(hash.hex)") }
    }
    return found
  }

  /// Both stores of a device folder, read from disk with the real file system for writing
  /// (so that a torn tail is set aside, as the next command would), and their problems.
  public static func read(_ home: String) throws -> (
    local: LocalContent, mirror: MirrorContent?, problems: [String]
  ) {
    let lock = FolderLock(folder: home, timeout: 10)
    let local = try LocalStore.open(folder: home, schemas: InventorySchemas.registry, lock: lock)
    var problems = local.content.checkInvariants()
    var mirror: MirrorContent?
    if FileManager.default.fileExists(atPath: home + "/" + MirrorStore.fileName) {
      let store = try MirrorStore.open(
        folder: home, schemas: InventorySchemas.registry, lock: lock)
      mirror = store.content
      problems += store.content.checkInvariants()
    }
    let blobs = BlobStore(deviceFolder: home)
    for row in local.content.rows.values {
      for case .blob(let ref) in row.record.values where blobs.check(ref) != .present {
        problems.append("\(row.row) names the photo '\(ref.digest.hex.prefix(12))', not stored")
      }
    }
    return (local.content, mirror, problems)
  }
}
