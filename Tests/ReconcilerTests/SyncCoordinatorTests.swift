import Foundation
import LocalStore
import MirrorStore
import Reconciler
import StashModel
import StashTestSupport
import Testing

/// The import gate and the scheduling rules, with events injected (no transport).
@Suite struct SyncCoordinatorTests {
  static let mine = StoreID("00000000-0000-4000-8000-00000000c10d")!
  static let other = StoreID("00000000-0000-4000-8000-0000000000ff")!

  /// A coordinator whose passes are recorded.
  static func coordinator(
    bootstrapFlag: Bool = false, failing: Bool = false
  ) -> (SyncCoordinator, LockedBox<[SyncCoordinator.PassRequest]>) {
    let passes = LockedBox<[SyncCoordinator.PassRequest]>([])
    let shouldFail = LockedBox(failing)
    let coordinator = SyncCoordinator(mirrorStoreID: mine, bootstrapFlag: bootstrapFlag) {
      request throws(ReconcileError) in
      if shouldFail.withLock({ $0 }) { throw .wiring(WiringError("injected")) }
      passes.withLock { $0.append(request) }
    }
    return (coordinator, passes)
  }

  static func event(
    _ kind: MirrorEvent.Kind, _ phase: MirrorEvent.Phase = .finished,
    _ outcome: MirrorEvent.Outcome = .success, store: StoreID = mine
  ) -> MirrorEvent {
    MirrorEvent(kind: kind, phase: phase, outcome: outcome, storeID: store)
  }

  static let key = RecordKey(model: "item", id: RecordID("3f2b8c1e-9d4a-4b7e-8c2f-1a2b3c4d5e6f")!)

  /// Delivers `event` and a user save, flushes, and checks nothing ran and the gate is shut.
  func expectGateStaysClosed(after event: MirrorEvent?, bootstrapFlag: Bool = false) {
    let (coordinator, passes) = Self.coordinator(bootstrapFlag: bootstrapFlag)
    if let event { coordinator.handle(event) }
    coordinator.localStoreDidSave(.init(origin: .user, keys: [Self.key]))
    #expect(coordinator.flush() == .gateClosed)
    #expect(!coordinator.isGateOpen)
    #expect(passes.withLock { $0 }.isEmpty)
  }

  @Test func theGateIsClosedAtStart() { expectGateStaysClosed(after: nil) }

  @Test func setupDoesNotOpenTheGate() { expectGateStaysClosed(after: Self.event(.setup)) }

  @Test func exportDoesNotOpenTheGate() { expectGateStaysClosed(after: Self.event(.export)) }

  @Test func anUnfinishedImportDoesNotOpenTheGate() {
    expectGateStaysClosed(after: Self.event(.import, .started))
  }

  @Test func aFailedImportDoesNotOpenTheGate() {
    expectGateStaysClosed(after: Self.event(.import, .finished, .failure("network lost")))
  }

  @Test func anImportOfAnotherStoreDoesNotOpenTheGate() {
    expectGateStaysClosed(after: Self.event(.import, store: Self.other))
  }

  @Test func aBootstrapFlagFromAnEarlierLaunchDoesNotOpenTheGate() {
    expectGateStaysClosed(after: nil, bootstrapFlag: true)
  }

  @Test func anEmptyMirrorFileDoesNotOpenTheGate() throws {
    // An empty mirror file posts nothing by itself: only the transport's events count.
    try withTemporaryFolder { folder in
      let stores = try TwoStores(folder)
      #expect(stores.mirror.content.keys.isEmpty)
      let coordinator = SyncCoordinator(mirrorStoreID: stores.mirror.storeID) {
        _ throws(ReconcileError) in
        try stores.pass()
      }
      try stores.addLocally(tube())
      let before = try stores.files()
      #expect(coordinator.flush() == .gateClosed)
      #expect(try stores.files() == before, "the reconciler wrote nothing")
    }
  }

  @Test func aFinishedSuccessfulImportOfThisMirrorOpensTheGateAndRunsAFullPass() {
    let (coordinator, passes) = Self.coordinator()
    coordinator.handle(Self.event(.import))
    #expect(coordinator.isGateOpen)
    #expect(coordinator.flush() == .ran(.full))
    #expect(passes.withLock { $0 } == [.full])
    #expect(coordinator.flush() == .nothingPending)
  }

  @Test func repeatedImportsBeforeAFlushBecomeOnePass() {
    let (coordinator, passes) = Self.coordinator()
    for _ in 0..<5 { coordinator.handle(Self.event(.import)) }
    coordinator.localStoreDidSave(.init(origin: .user, keys: [Self.key]))
    coordinator.flush()
    coordinator.flush()
    #expect(passes.withLock { $0 } == [.full])
  }

  @Test func everyLaterSuccessfulImportAsksForAnotherFullPass() {
    let (coordinator, passes) = Self.coordinator()
    coordinator.handle(Self.event(.import))
    coordinator.flush()
    coordinator.handle(Self.event(.export))
    #expect(coordinator.flush() == .nothingPending, "an export does not reconcile")
    coordinator.handle(Self.event(.import))
    coordinator.flush()
    #expect(passes.withLock { $0 } == [.full, .full])
  }

  @Test func aUserSaveAfterTheGateOpensAsksForAPassOverItsKeys() {
    let (coordinator, passes) = Self.coordinator()
    coordinator.handle(Self.event(.import))
    coordinator.flush()
    coordinator.localStoreDidSave(.init(origin: .user, keys: [Self.key]))
    #expect(coordinator.flush() == .ran(.keys([Self.key])))
    #expect(passes.withLock { $0 } == [.full, .keys([Self.key])])
  }

  @Test func theReconcilersOwnSavesScheduleNothing() throws {
    try withTemporaryFolder { folder in
      let stores = try TwoStores(folder)
      let coordinator = SyncCoordinator(mirrorStoreID: stores.mirror.storeID) {
        request throws(ReconcileError) in
        switch request {
        case .full: try stores.pass()
        case .keys(let keys): try stores.pass(keys)
        }
      }
      stores.local.observeSaves { coordinator.localStoreDidSave($0) }
      try stores.addLocally(tube())
      try stores.editInMirror(.record(tube("From elsewhere").record))
      coordinator.handle(
        MirrorEvent(kind: .import, phase: .finished, storeID: stores.mirror.storeID))
      #expect(coordinator.flush() == .ran(.full))
      #expect(stores.local.content.rows.count == 2, "the pass wrote to the local store")
      #expect(coordinator.pending == nil, "and its own save asked for nothing")
      #expect(coordinator.flush() == .nothingPending)
      #expect(coordinator.passesRun == 1)
    }
  }

  @Test func anImportArrivingInTheBackgroundRunsOnTheNextForeground() {
    let (coordinator, passes) = Self.coordinator()
    coordinator.enterBackground()
    coordinator.handle(Self.event(.import))
    #expect(coordinator.flush() == .inBackground)
    #expect(passes.withLock { $0 }.isEmpty)
    #expect(coordinator.enterForeground() == .ran(.full))
    #expect(passes.withLock { $0 } == [.full])
  }

  @Test func aFailedPassKeepsItsWorkPendingForTheNextFlush() {
    let failing = LockedBox(true)
    let passes = LockedBox(0)
    let coordinator = SyncCoordinator(mirrorStoreID: Self.mine) { _ throws(ReconcileError) in
      if failing.withLock({ $0 }) { throw .wiring(WiringError("injected")) }
      passes.withLock { $0 += 1 }
    }
    coordinator.handle(Self.event(.import))
    guard case .failed = coordinator.flush() else {
      Issue.record("the pass should have failed")
      return
    }
    failing.withLock { $0 = false }
    #expect(coordinator.flush() == .ran(.full))
    #expect(passes.withLock { $0 } == 1)
  }
}
