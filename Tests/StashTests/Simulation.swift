import Foundation
import JSONLines
import LocalStore
import MirrorStore
import StashModel
import StashTestSupport

@testable import Stash

/// One random multi-device history (see ``MultiDeviceSimulationTests``).
struct Simulation {
  var random: SeededRandom
  let folder: URL
  var devices: [SimulatedDevice] = []
  var clock = 1_764_441_600.0
  var written = Set<SnapshotHash>()
  var replaced = Set<SnapshotHash>()
  var deletedOnPurpose = Set<RecordKey>()
  var problems = [String]()
  var totals = Totals()
  /// While quiescing, people make no decisions: only delivery and syncing.
  var quiescing = false
  /// Every stock move people made (invariant 9).
  var ledger = MoveLedger()
  /// Odd seeds freeze every device's clock: equal edits at equal times make equal snapshots,
  /// the case version identity (DESIGN §"Version identity") exists for.
  let frozenClocks: Bool
  /// Most seeds have a device that drops invalid files into the shared folder at every step.
  var hostile: HostileWriter?
  /// Backups people's tools took of device folders, and where.
  var backups: [(device: SimulatedDevice, path: String)] = []
  /// Every edit of an item's plain field, by record and field (``checkLoneEdits(_:)``).
  var fieldEdits: [FieldEditKey: [String?]] = [:]
  /// Every coordinate group a location was given, by record.
  var placesWritten: [RecordKey: Set<[Double?]>] = [:]
  /// Copies of device folders that took an identity of their own (told by a notice).
  let incarnations = LockedBox(0)
  /// The steps taken (the roll that chose each, and the device), for a failure's message.
  var trace = [String]()
  /// A zone race (some seeds): a device made a zone of its own before the folder reached it.
  var race: ZoneRace?

  struct Totals: CustomStringConvertible {
    var steps = 0
    var syncs = 0
    var failedSyncs = 0
    var conflicts = 0
    var resolutions = 0
    var deletes = 0
    var conflictedCopies = 0
    var places = 0
    var refusedResolutions = 0
    var moves = 0
    var recounts = 0
    var checkedCounts = 0
    var parallelSyncs = 0
    var clones = 0
    var restoredCopies = 0
    var restores = 0
    var incarnations = 0
    var fieldEdits = 0
    var reverts = 0
    var groupEdits = 0
    var merges = 0
    var crissCrossMerges = 0
    var fieldConflicts = 0
    var loneEditsChecked = 0
    var hostileFiles = 0
    var frozenSeeds = 0
    var sealedSyncs = 0
    var sealedChangeSyncs = 0
    var sealedChangeChecks = 0
    var focusedSealedSyncs = 0
    var focusedMirrorSyncs = 0
    /// Syncs of sealed changes that imported another device's versions, and checks of such an
    /// import against the full one.
    var sealedImports = 0
    var sealedImportChecks = 0
    /// Checks whose sync of sealed changes opened the local store from its index.
    var focusedChecks = 0
    var heal = HealTotals()

    mutating func add(_ other: Totals) {
      steps += other.steps
      syncs += other.syncs
      failedSyncs += other.failedSyncs
      conflicts += other.conflicts
      resolutions += other.resolutions
      deletes += other.deletes
      conflictedCopies += other.conflictedCopies
      places += other.places
      refusedResolutions += other.refusedResolutions
      moves += other.moves
      recounts += other.recounts
      checkedCounts += other.checkedCounts
      parallelSyncs += other.parallelSyncs
      clones += other.clones
      restoredCopies += other.restoredCopies
      restores += other.restores
      incarnations += other.incarnations
      fieldEdits += other.fieldEdits
      reverts += other.reverts
      groupEdits += other.groupEdits
      merges += other.merges
      crissCrossMerges += other.crissCrossMerges
      fieldConflicts += other.fieldConflicts
      loneEditsChecked += other.loneEditsChecked
      hostileFiles += other.hostileFiles
      frozenSeeds += other.frozenSeeds
      sealedSyncs += other.sealedSyncs
      sealedChangeSyncs += other.sealedChangeSyncs
      sealedChangeChecks += other.sealedChangeChecks
      focusedSealedSyncs += other.focusedSealedSyncs
      focusedMirrorSyncs += other.focusedMirrorSyncs
      sealedImports += other.sealedImports
      sealedImportChecks += other.sealedImportChecks
      focusedChecks += other.focusedChecks
      heal.add(other.heal)
    }

    var description: String {
      "\(steps) steps, \(syncs) syncs (\(failedSyncs) offline), \(conflicts) conflicts noticed, "
        + "\(resolutions) resolutions (\(refusedResolutions) refused), \(deletes) deletes, "
        + "\(conflictedCopies) conflicted copies, \(places) location and reminder edits, "
        + "\(moves) stock moves, \(recounts) recounts, \(checkedCounts) counts checked, "
        + "\(parallelSyncs) parallel syncs, \(clones) cloned devices (\(restoredCopies) from a "
        + "backup), \(restores) machines restored from a backup, \(incarnations) incarnations, "
        + "\(fieldEdits) field edits (\(reverts) back to an earlier value), \(groupEdits) "
        + "coordinate edits, \(merges) merges (\(crissCrossMerges) over a criss-cross), \(fieldConflicts) conflicts on fields, "
        + "\(loneEditsChecked) lone field edits checked, "
        + "\(hostileFiles) hostile files, \(frozenSeeds) seeds with frozen clocks, "
        + "\(sealedSyncs) syncs the seal would skip, \(sealedChangeChecks) passes over sealed "
        + "changes checked against the full pass, \(sealedChangeSyncs) syncs of sealed changes "
        + "(\(focusedSealedSyncs) from the local index, \(focusedMirrorSyncs) from the mirror's; "
        + "\(sealedImports) importing another device's changes, \(sealedImportChecks) such imports "
        + "checked against the full one; \(focusedChecks) checks from the indexes), "
        + "\(heal)"
    }
  }

  final class SimulatedDevice {
    let home: String
    let view: URL
    var online = true
    /// The open folder: the process running on the device. A restart opens it again.
    var process: DeviceFolder?
    /// What its last successful sync reported.
    var lastReport: SyncRunReport?
    init(home: String, view: URL) {
      self.home = home
      self.view = view
    }
  }

  /// Where the folders' own identifiers come from (device and store ids, copies): seeded, so
  /// that a seed replays exactly.
  let identifiers: LockedBox<SeededRandom>

  init(seed: UInt64, folder: URL) throws {
    random = SeededRandom(seed: seed)
    identifiers = LockedBox(SeededRandom(seed: seed ^ 0x1D5))
    self.folder = folder
    frozenClocks = seed % 2 == 1
    if frozenClocks { totals.frozenSeeds = 1 }
    let count = Int.random(in: 2...4, using: &random)
    for index in 0..<count {
      let view = folder.appendingPathComponent("cloud-view-\(index)")
      try FileManager.default.createDirectory(at: view, withIntermediateDirectories: true)
      devices.append(
        SimulatedDevice(home: folder.appendingPathComponent("device-\(index)").path, view: view))
    }
    // The README's advice: set sync up on one device, let the folder reach the others. Some
    // seeds break it: the last device syncs its own empty view first (a zone race).
    let first = try open(devices[0])
    try first.folder.enableSync(cloud: devices[0].view.path)
    _ = try restart(devices[0]).folder.sync()
    if Int.random(in: 0..<5, using: &random) == 0 { try startZoneRace() }
    for (index, device) in devices.enumerated().dropFirst() where index != race?.racer {
      try FileManager.default.copyItem(
        at: devices[0].view.appendingPathComponent("zone.json"),
        to: device.view.appendingPathComponent("zone.json"))
      try open(device).folder.enableSync(cloud: device.view.path)
      _ = try restart(device)
    }
    // Three items every device has: most edits land on them, which is where devices disagree.
    for _ in 0..<3 { try add(on: devices[0]) }
    shared = devices[0].process!.items().map(\.id)
    _ = try open(devices[0]).folder.sync()
    for device in devices.dropFirst() {
      try deliver(from: devices[0].view, to: device.view)
      if devices.firstIndex(where: { $0 === device }) == race?.racer { try meetZones(device) }
      _ = try open(device).folder.sync()
    }
  }

  /// The items every device started with.
  var shared: [RecordID] = []

  mutating func now() -> Timestamp {
    if !frozenClocks { clock += Double.random(in: 1...90, using: &random) }
    return Timestamp(secondsSince1970: clock)!
  }

  /// The device's running process (opened on first use).
  mutating func open(_ device: SimulatedDevice) throws -> DeviceFolder {
    if let process = device.process { return process }
    return try restart(device)
  }

  /// A new process on the device: the folder is opened again (the sync gate of each run
  /// starts closed anyway). Its clock is the simulation's.
  @discardableResult
  mutating func restart(_ device: SimulatedDevice) throws -> DeviceFolder {
    let process = try DeviceFolder.open(at: device.home, options: processOptions())
    device.process = process
    return process
  }

  /// How a new process opens a device folder: with the simulation's clock and identifiers.
  mutating func processOptions() -> DeviceFolder.Options {
    let clock = TickingClock(start: now(), frozen: frozenClocks)
    let ids = identifiers
    var options = DeviceFolder.Options(
      deviceName: "device", clock: { clock.tick() },
      newIdentifier: { ids.withLock { RecordID.random(using: &$0) } })
    // Every save keeps the indexes, as a large store's do: syncs of sealed changes then open
    // the stores from them.
    options.index = LocalStore.IndexPolicy(minimumRows: 1)
    options.mirrorIndex = MirrorStore.IndexPolicy(minimumVersions: 1)
    let incarnations = self.incarnations
    options.notices = { notice in
      if notice.kind == .newIncarnation { incarnations.withLock { $0 += 1 } }
    }
    return options
  }

  mutating func run() throws -> [String] {
    let steps = Int.random(in: 15...45, using: &random)
    if Int.random(in: 0..<10, using: &random) < 8 { hostile = try HostileWriter(self) }
    let joinStep = Int.random(in: 0..<steps, using: &random)
    for step in 0..<steps {
      totals.steps += 1
      if step == joinStep { try joinZones() }
      try dropHostileFile()
      let device = devices.randomElement(using: &random)!
      let roll = Int.random(in: 0..<107, using: &random)
      trace.append("step \(step): \(roll) on d\(devices.firstIndex { $0 === device }!)")
      // Mostly edits of shared items between syncs: that is where devices disagree.
      switch roll {
      case 0..<7: try add(on: device)
      case 7..<10: try change(on: device)
      case 10..<16: try editFields(on: device)
      case 16..<30: try move(on: device)
      case 30..<34: try recount(on: device)
      case 34..<40: try place(on: device)
      case 40..<43: try moveLocation(on: device)
      case 43..<48: try delete(on: device)
      case 48..<50: try duplicate(on: device)
      case 50..<68: try propagate()
      case 68..<85: try sync(device)
      case 85..<89: try syncInParallel(device)
      case 89..<92: device.online.toggle()
      case 92..<95: try restart(device)
      case 95..<97: try backUp(device)
      case 97..<98: try cloneDevice()
      case 98..<99: try restore()
      default:
        let withConflicts = try devices.filter { !(try open($0).folder.conflicts().isEmpty) }
        try resolve(on: withConflicts.randomElement(using: &random) ?? device)
      }
      checkNoSilentLoss()
      if !problems.isEmpty {
        return problems + ["after " + trace.suffix(3).joined(separator: ", ")]
      }
    }
    try quiesce()
    return problems
  }

  // MARK: The sync tool and syncing

  /// Copies a random part of the files of one view to another, as a sync tool would: late
  /// (skipping some), out of order, and now and then as a "conflicted copy" too.
  mutating func propagate() throws {
    let online = devices.filter(\.online)
    guard online.count >= 2 else { return }
    let from = online.randomElement(using: &random)!
    let to = online.filter { $0 !== from }.randomElement(using: &random)!
    let manager = FileManager.default
    if Int.random(in: 0..<8, using: &random) == 0 { try losePhoto() }
    for relative in try files(in: from.view) where Int.random(in: 0..<10, using: &random) < 7 {
      let target = to.view.appendingPathComponent(relative)
      guard !manager.fileExists(atPath: target.path) else { continue }
      try manager.createDirectory(
        at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
      try manager.copyItem(at: from.view.appendingPathComponent(relative), to: target)
      if relative.hasSuffix(".jsonl") && Int.random(in: 0..<10, using: &random) == 0 {
        let copy = target.deletingPathExtension().path + " (conflicted copy).jsonl"
        if !manager.fileExists(atPath: copy) {
          try manager.copyItem(atPath: target.path, toPath: copy)
          totals.conflictedCopies += 1
        }
      }
    }
  }

  func files(in view: URL) throws -> [String] {
    var found = [String]()
    let enumerator = FileManager.default.enumerator(atPath: view.path)
    while let path = enumerator?.nextObject() as? String {
      var isFolder: ObjCBool = false
      _ = FileManager.default.fileExists(
        atPath: view.appendingPathComponent(path).path, isDirectory: &isFolder)
      if !isFolder.boolValue && !path.contains("/.") && !path.hasPrefix(".")
        && !(hostile?.wrote(path) ?? false)
      {
        found.append(path)
      }
    }
    return found.sorted()
  }

  func storeFiles(_ device: SimulatedDevice) -> [Data?] {
    [LocalStore.fileName, MirrorStore.fileName].map {
      try? Data(contentsOf: URL(fileURLWithPath: device.home + "/" + $0))
    }
  }

  /// One `stash sync`; offline, the view is out of reach and nothing may change.
  mutating func sync(_ device: SimulatedDevice) throws {
    let parked = device.view.deletingLastPathComponent().appendingPathComponent(
      device.view.lastPathComponent + "-offline")
    if !device.online { try FileManager.default.moveItem(at: device.view, to: parked) }
    defer {
      if !device.online { try? FileManager.default.moveItem(at: parked, to: device.view) }
    }
    let before = storeFiles(device)
    let folder = try open(device)
    do {
      // As the CLI syncs: a new process, opened as cheaply as the sync state allows.
      let report = try syncAsTheCLI(device)
      try folder.folder.refresh()
      totals.syncs += 1
      totals.conflicts += report.newConflicts.count
      totals.merges += report.merged
      let recorded = folder.folder.conflicts().filter { report.newConflicts.contains($0.id) }
      totals.fieldConflicts += recorded.filter { !$0.fields.isEmpty }.count
      // 4. Idempotence: syncing again with nothing new changes nothing. When the sync seal
      // says nothing changed, the sync it lets the CLI skip must report what a full one does.
      let after = storeFiles(device)
      var skipped = try SyncFolder.sync(
        at: device.home, registry: InventorySchemas.registry, options: processOptions())
      let again = try folder.folder.syncFully()
      if storeFiles(device) != after { problems.append("a second sync changed the stores") }
      if skipped.choice == .nothingNew {
        totals.sealedSyncs += 1
        skipped.choice = .full
        if skipped != again { problems.append("the seal skipped a sync that did \(again)") }
      }
      checkAgreementOrConflict(folder)
      device.lastReport = report
      try checkZoneRace(device, folder, report)
      try checkPhotos(device, folder, report)
      // A person often settles a conflict as soon as it shows up.
      if !quiescing && !folder.folder.conflicts().isEmpty && Bool.random(using: &random) {
        try resolve(on: device)
      }
    } catch {
      totals.failedSyncs += 1
      if device.online { problems.append("a sync failed while online: \(error)") }
      // 6 and 7: an unreachable folder opens no gate and changes nothing.
      if storeFiles(device) != before { problems.append("a failed sync changed the stores") }
    }
    checkStores(try open(device))
    checkHostileEffects(try open(device))
  }
}
