import CloudFolder
import JSONLines
import LocalStore
import Reconciler
import Stash
import StashFiles
import StashModel
import Testing

@testable import MirrorStore

/// Every kind of lower-layer error reaches the facade as a ``StashError`` of the category that
/// decides its exit status (README, "exit": 1 refused, 3 busy, 4 damaged), carrying the error
/// it came from and every word of its message.
@Suite struct StashErrorTests {
  /// One lower error, the failure it becomes, and the category the README documents for it.
  struct Case: Sendable, CustomStringConvertible {
    let name: String
    let failure: StashError
    let underlying: StashError.Underlying
    let category: StashError.Category
    /// Text of the lower error the failure's message must keep.
    let message: String

    var description: String { name }
  }

  static let io = FileSystemError(
    operation: "write", path: "/folder/default.store", code: 5, reason: "Input/output error")
  static let busy = LogError.busy("/folder/lock")
  static let damaged = LogError.damaged(path: "/folder/cloud.store", line: 7, reason: "bad CRC")
  static let key = RecordKey(
    model: "item", id: RecordID("3f2b8c1e-9d4a-4b7e-8c2f-1a2b3c4d5e6f")!)
  static let untrusted = UntrustedVersion(
    path: "/folder/cloud.store", version: VersionID(hex: String(repeating: "a", count: 64))!,
    key: key, problem: "its hash differs")
  static let conflict = ConflictID(key: key, sides: [])
  static let model = ModelError("The item quantity counted cannot be negative ('-1')")
  static let stale = LocalStoreError.staleHash(
    path: "/folder/default.store", row: RowID(3), key: key)

  static func make(
    _ name: String, _ failure: StashError, _ underlying: StashError.Underlying,
    _ category: StashError.Category, keeping message: String
  ) -> Case {
    Case(name: name, failure: failure, underlying: underlying, category: category, message: message)
  }

  static let cases: [Case] = [
    // The store: a store's file and lock, the inventory, a store's log.
    make("log busy", StashError(busy), .log(busy), .busy, keeping: busy.description),
    make("log damaged", StashError(damaged), .log(damaged), .damaged, keeping: "bad CRC"),
    make("log io", StashError(LogError.io(io)), .log(.io(io)), .refused, keeping: io.description),
    make(
      "inventory not saved, busy", StashError(LocalStoreError.notSaved(action: "the edit", busy)),
      .localStore(.notSaved(action: "the edit", busy)), .busy, keeping: "Could not save the edit"),
    make(
      "inventory not saved, io", StashError(LocalStoreError.notSaved(action: "the edit", .io(io))),
      .localStore(.notSaved(action: "the edit", .io(io))), .refused, keeping: io.description),
    make("inventory stale row", StashError(stale), .localStore(stale), .damaged, keeping: "row 3"),
    make(
      "inventory refused", StashError(LocalStoreError.invalid(model)),
      .localStore(.invalid(model)), .refused, keeping: model.message),
    make(
      "mirror read busy", StashError(LogStoreError.read(busy)), .logStore(.read(busy)), .busy,
      keeping: busy.description),
    make(
      "mirror write damaged", StashError(LogStoreError.write(damaged)),
      .logStore(.write(damaged)), .damaged, keeping: "bad CRC"),
    // The transport.
    make(
      "shared folder unreachable", StashError(CloudError.unreachable("/cloud", "no such folder")),
      .transport(.unreachable("/cloud", "no such folder")), .refused, keeping: "no such folder"),
    make(
      "shared folder zone damaged",
      StashError(CloudError.damagedZone("/cloud/zone.json", problem: "not JSON")),
      .transport(.damagedZone("/cloud/zone.json", problem: "not JSON")), .damaged,
      keeping: "not JSON"),
    make(
      "transport's mirror busy", StashError(CloudError.mirror(.read(busy))),
      .transport(.mirror(.read(busy))), .busy, keeping: busy.description),
    make(
      "transport untrusted version", StashError(CloudError.untrustedVersion(untrusted)),
      .transport(.untrustedVersion(untrusted)), .damaged, keeping: "its hash differs"),
    // The model.
    make("model", StashError(model), .model(model), .refused, keeping: model.message),
    // A pass or a resolution, whatever stopped it.
    make(
      "pass lock busy", StashError(ReconcileError.lock(busy)), .reconcile(.lock(busy)), .busy,
      keeping: busy.description),
    make(
      "pass stale row", StashError(ReconcileError.local(stale)), .reconcile(.local(stale)),
      .damaged, keeping: "row 3"),
    make(
      "pass mirror busy", StashError(ReconcileError.mirror(.write(busy))),
      .reconcile(.mirror(.write(busy))), .busy, keeping: busy.description),
    make(
      "pass untrusted version", StashError(ReconcileError.untrusted(untrusted)),
      .reconcile(.untrusted(untrusted)), .damaged, keeping: "its hash differs"),
    make(
      "pass model", StashError(ReconcileError.model(model)), .reconcile(.model(model)), .refused,
      keeping: model.message),
    make(
      "pass wiring", StashError(ReconcileError.wiring(WiringError("Open both stores as one"))),
      .reconcile(.wiring(WiringError("Open both stores as one"))), .refused,
      keeping: "Open both stores as one"),
    make(
      "pass not rolled back",
      StashError(
        ReconcileError.notRolledBack(.local(.notSaved(action: "the pass", .io(io))), .write(busy))),
      .reconcile(.notRolledBack(.local(.notSaved(action: "the pass", .io(io))), .write(busy))),
      .refused, keeping: "Input/output error); none of it was saved"),
    make(
      "resolution refused", StashError(ResolutionError.unknown(conflict)),
      .reconcile(.resolution(.unknown(conflict))), .refused, keeping: "No conflict"),
  ]

  @Test(arguments: cases)
  func eachLowerErrorHasItsDocumentedCategoryAndStaysMatchable(_ test: Case) {
    #expect(test.failure.category == test.category)
    #expect(test.failure.underlying == test.underlying)
  }

  @Test(arguments: cases)
  func noErrorPathLosesItsMessage(_ test: Case) {
    #expect(test.failure.message.contains(test.message), "\(test.failure.message)")
    #expect(!test.failure.message.isEmpty)
  }

  @Test func aFailureTheFacadeFoundHasNoUnderlyingError() {
    let failure = StashError.refused("No item named 'Soap'")
    #expect(failure.underlying == nil && failure.category == .refused)
  }
}
