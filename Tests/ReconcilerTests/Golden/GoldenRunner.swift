import Foundation
import JSONLines
import LocalStore
import MirrorStore
import Reconciler
import StashBase
import StashModel
import StashTestSupport

/// Plays a case folder's steps against a copy of its input stores and describes the outcome.
///
/// The folder holds `input/default.store`, `input/cloud.store` (absent: no mirror, sync off),
/// `steps.jsonl`, and the expectations `expected/default.store`, `expected/cloud.store` and
/// `expected/report.json`.
struct GoldenRunner {
  struct Outcome {
    var localStore: Data
    var mirrorStore: Data?
    var report: JSONObject
    /// Problems found while running: a second pass that changed something, broken invariants.
    var problems: [String]
  }

  /// Runs the case in `caseFolder` inside `work` (a fresh temporary folder).
  static func run(caseFolder: URL, work: URL) throws -> Outcome {
    let input = caseFolder.appendingPathComponent("input")
    for name in try FileManager.default.contentsOfDirectory(atPath: input.path) {
      try FileManager.default.copyItem(
        at: input.appendingPathComponent(name), to: work.appendingPathComponent(name))
    }
    let steps = try String(
      contentsOf: caseFolder.appendingPathComponent("steps.jsonl"), encoding: .utf8
    )
    .split(separator: "\n").map { try GoldenStep(json: try JSONParser.parse(String($0))) }

    let files = ScriptedFileSystem()
    let lock = FolderLock(folder: work.path, fileSystem: files)
    let local = try LocalStore.open(
      folder: work.path, schemas: InventorySchemas.registry, lock: lock, fileSystem: files)
    let hasMirror = FileManager.default.fileExists(
      atPath: work.appendingPathComponent(MirrorStore.fileName).path)
    let mirror =
      hasMirror
      ? try MirrorStore.open(
        folder: work.path, schemas: InventorySchemas.registry, lock: lock, fileSystem: files)
      : nil
    let reconciler = try mirror.map {
      try Reconciler(local: local, mirror: $0, clock: { Fixed.now })
    }
    let passReports = LockedBox<[PassReport]>([])

    func makeCoordinator(bootstrapFlag: Bool) -> SyncCoordinator? {
      guard let reconciler else { return nil }
      return SyncCoordinator(mirrorStoreID: reconciler.mirror.storeID, bootstrapFlag: bootstrapFlag)
      {
        request throws(ReconcileError) in
        let report: PassReport
        switch request {
        case .full: report = try reconciler.reconcile()
        case .keys(let keys): report = try reconciler.reconcile(keys: keys)
        }
        passReports.withLock { $0.append(report) }
      }
    }

    var coordinator = makeCoordinator(bootstrapFlag: false)
    var log = [JSONValue]()
    for step in steps {
      var entry: JSONObject = ["step": step.json]
      switch step {
      case .event(let kind, let phase, let failure, let store):
        let id = store == "mirror" ? (mirror?.storeID ?? Fixed.mirrorStore) : Fixed.otherStore
        coordinator?.handle(
          MirrorEvent(
            kind: kind, phase: phase, outcome: failure.map { .failure($0) } ?? .success,
            storeID: id))
      case .save(let keys):
        coordinator?.localStoreDidSave(.init(origin: .user, keys: Set(keys)))
      case .flush:
        entry.append("outcome", .string(describe(coordinator?.flush())))
      case .background:
        coordinator?.enterBackground()
      case .foreground:
        entry.append("outcome", .string(describe(coordinator?.enterForeground())))
      case .restart(let flag):
        coordinator = makeCoordinator(bootstrapFlag: flag)
      case .failNextLocalWrite:
        files.inject(.writeTo(suffix: "/" + LocalStore.fileName))
      case .resolve(let keep):
        guard let reconciler, let conflict = local.content.openConflicts.first,
          let choice = ResolutionChoice(keep)
        else {
          entry.append("outcome", .string("nothing to resolve"))
          break
        }
        do {
          let resolved = try reconciler.resolve(conflict.id, choice: choice)
          entry.append("outcome", .string("resolved \(resolved.id.short) as \(keep)"))
        } catch {
          entry.append("outcome", .string("refused: \(error)"))
        }
      case .arrive(let version):
        try mirror?.update { _, transaction in transaction.merge(version) }
      }
      let reports = passReports.withLock { reports in
        defer { reports = [] }
        return reports
      }
      if let report = reports.last { entry.append("pass", .object(report.json)) }
      log.append(.object(entry))
    }
    files.clearFaults()

    var problems = local.content.checkInvariants() + (mirror?.content.checkInvariants() ?? [])
    let localPath = work.appendingPathComponent(LocalStore.fileName)
    let mirrorPath = work.appendingPathComponent(MirrorStore.fileName)
    let localBytes = try Data(contentsOf: localPath)
    let mirrorBytes = hasMirror ? try Data(contentsOf: mirrorPath) : nil
    // A second pass over unchanged stores changes nothing, byte for byte (or, with the gate
    // still closed, nothing may run at all).
    if let reconciler, let coordinator {
      if coordinator.isGateOpen {
        try reconciler.reconcile()
      } else if coordinator.flush() != .gateClosed {
        problems.append("a flush ran with the gate closed")
      }
      if try Data(contentsOf: localPath) != localBytes
        || Data(contentsOf: mirrorPath) != mirrorBytes
      {
        problems.append("a second pass changed the stores")
      }
    }
    var report: JSONObject = [
      "steps": .array(log),
      "gateOpen": .bool(coordinator?.isGateOpen ?? false),
    ]
    for (key, value) in summary(local.content, mirror?.content) { report.append(key, value) }
    return Outcome(
      localStore: localBytes, mirrorStore: mirrorBytes, report: report, problems: problems)
  }

  static func describe(_ outcome: SyncCoordinator.FlushOutcome?) -> String {
    switch outcome {
    case nil: "no mirror"
    case .ran(.full)?: "ran a full pass"
    case .ran(.keys(let keys))?: "ran a pass over \(keys.count) records"
    case .nothingPending?: "nothing pending"
    case .gateClosed?: "gate closed"
    case .inBackground?: "in the background"
    case .failed?: "the pass failed; both stores are as they were"
    }
  }

  /// A readable summary of both stores, for reviewing a fixture's diff.
  static func summary(_ local: LocalContent, _ mirror: MirrorContent?) -> JSONObject {
    func short(_ hash: SnapshotHash) -> JSONValue { .string(hash.short) }
    let rows = local.rows.values.sorted { $0.row < $1.row }.map { stored -> JSONValue in
      var object = stored.record.key.json
      if case .string(let name)? = stored.record[field: "name"] {
        object.append("name", .string(name))
      }
      if case .counter(let stock)? = stored.record[field: "quantity"], let quantity = stock.value {
        object.append("quantity", .integer(quantity))
      }
      object.append("hash", short(stored.hash))
      return .object(object)
    }
    let tombstones = local.tombstones.values.sorted { $0.key < $1.key }.map {
      tombstone -> JSONValue in
      var object = tombstone.key.json
      object.append("hash", short(tombstone.hash))
      object.append("deleted", short(tombstone.deletedHash))
      return .object(object)
    }
    let checkpoints = local.checkpoints.sorted { $0.key < $1.key }.map {
      key, checkpoint -> JSONValue in
      var object = key.json
      object.append("hash", short(checkpoint.hash))
      object.append("tombstone", .bool(checkpoint.isTombstone))
      return .object(object)
    }
    let conflicts = local.conflicts.values.sorted { ($0.noticedAt, $0.id) < ($1.noticedAt, $1.id) }
      .map { conflict -> JSONValue in
        var object = conflict.key.json
        object.append("conflict", .string(conflict.id.short))
        object.append("kind", .string(conflict.kind.rawValue))
        object.append("state", .string(conflict.state.rawValue))
        object.append(
          "sides",
          .array(
            conflict.sides.map { side in
              .string(
                "\(side.origin.rawValue) "
                  + (side.snapshot.map { snapshot in
                    (snapshot.isTombstone ? "tombstone " : "") + snapshot.hash.short
                  } ?? "absent"))
            }))
        if let choice = conflict.resolution?.choice { object.append("resolution", .string(choice)) }
        return .object(object)
      }
    var summary: JSONObject = [
      "localRows": .array(rows), "localTombstones": .array(tombstones),
      "checkpoints": .array(checkpoints), "conflicts": .array(conflicts),
      "duplicates": .array(local.diagnostics.values.map { .object($0.key.json) }),
    ]
    if let mirror {
      let leaves = mirror.keys.sorted().map { key -> JSONValue in
        var object = key.json
        object.append(
          "leaves",
          .array(
            mirror.side(for: key).leaves.map { version in
              .string((version.snapshot.isTombstone ? "tombstone " : "") + version.hash.short)
            }))
        return .object(object)
      }
      summary.append("mirrorLeaves", .array(leaves))
      summary.append("pendingExports", .integer(Int64(mirror.pending.count)))
    }
    return summary
  }
}
