import Foundation
public import LocalStore
public import MirrorStore
public import StashModel
import Synchronization

/// Decides when a reconcile pass runs: the import gate, coalescing, and the foreground rule.
///
/// - The gate is closed when the coordinator is made (at process start). It opens only on a
///   finished, successful import naming this mirror's store identifier. Setup, export,
///   started or failed imports, imports of another store, an empty mirror file and a bootstrap
///   flag saved by an earlier launch do not open it: until this process has heard from the
///   mirror, an empty mirror may only mean the import has not arrived.
/// - Once open, every successful import asks for a full pass, a person's save asks for a pass
///   over the records it changed, and the reconciler's own saves ask for nothing (so a pass
///   never schedules another).
/// - Requests coalesce until ``flush()``: many events, one pass.
/// - In the background nothing runs; pending work runs on the next ``enterForeground()``.
///
/// It needs no transport: tests (and the CLI) hand it events.
public final class SyncCoordinator: Sendable {
  /// What a pass covers.
  public enum PassRequest: Hashable, Sendable {
    /// Every record.
    case full
    /// The records these saves changed.
    case keys(Set<RecordKey>)
  }

  /// What ``flush()`` did.
  public enum FlushOutcome: Equatable, Sendable {
    /// A pass ran.
    case ran(PassRequest)
    /// Nothing was pending.
    case nothingPending
    /// The gate is closed: nothing may run yet.
    case gateClosed
    /// The host is in the background: pending work waits for the foreground.
    case inBackground
    /// The pass threw this error; the work stays pending for the next flush.
    case failed(ReconcileError)
  }

  /// The mirror whose imports open the gate.
  public let mirrorStoreID: StoreID
  private let runPass: @Sendable (PassRequest) throws(ReconcileError) -> Void
  private let state = Mutex(State())
  /// Serializes passes: one runs at a time.
  private let passes = NSLock()

  private struct State {
    var gateOpen = false
    var pendingFull = false
    var pendingKeys = Set<RecordKey>()
    var inBackground = false
    var passesRun = 0
  }

  /// A coordinator with a closed gate.
  ///
  /// - Parameters:
  ///   - mirrorStoreID: The mirror whose finished imports open the gate.
  ///   - bootstrapFlag: Whether an earlier launch saved a "mirror initialized" flag. It is
  ///     accepted only to make the point explicit: it never opens the gate.
  ///   - runPass: Runs one pass (normally ``Reconciler/reconcile(keys:)``).
  public init(
    mirrorStoreID: StoreID, bootstrapFlag: Bool = false,
    runPass: @escaping @Sendable (PassRequest) throws(ReconcileError) -> Void
  ) {
    self.mirrorStoreID = mirrorStoreID
    self.runPass = runPass
    _ = bootstrapFlag
  }

  /// Whether this process has seen a finished, successful import of its mirror.
  public var isGateOpen: Bool { state.withLock { $0.gateOpen } }

  /// How many passes have run.
  public var passesRun: Int { state.withLock { $0.passesRun } }

  /// What a flush would run now (whatever the gate and the foreground say).
  public var pending: PassRequest? {
    state.withLock { state in
      if state.pendingFull { return .full }
      return state.pendingKeys.isEmpty ? nil : .keys(state.pendingKeys)
    }
  }

  /// Takes a mirror event into account.
  public func handle(_ event: MirrorEvent) {
    guard event.storeID == mirrorStoreID, event.isFinishedSuccessfulImport else { return }
    state.withLock { state in
      state.gateOpen = true
      state.pendingFull = true
    }
  }

  /// Takes a save of the local store into account.
  public func localStoreDidSave(_ notice: LocalStore.SaveNotice) {
    guard notice.origin == .user, !notice.keys.isEmpty else { return }
    state.withLock { state in
      // Before the gate opens, the full pass that opening it asks for covers these records.
      guard state.gateOpen else { return }
      state.pendingKeys.formUnion(notice.keys)
    }
  }

  /// The host went to the background: passes wait.
  public func enterBackground() {
    state.withLock { $0.inBackground = true }
  }

  /// The host came to the foreground: pending work runs now.
  @discardableResult
  public func enterForeground() -> FlushOutcome {
    state.withLock { $0.inBackground = false }
    return flush()
  }

  /// Runs the pending pass, if the gate is open and the host in the foreground.
  ///
  /// - Returns: What happened; a failed pass leaves its work pending.
  @discardableResult
  public func flush() -> FlushOutcome {
    passes.lock()
    defer { passes.unlock() }
    // Either the request to run, or why nothing runs.
    let taken: (request: PassRequest?, outcome: FlushOutcome) = state.withLock { state in
      guard state.gateOpen else { return (nil, .gateClosed) }
      guard !state.inBackground else { return (nil, .inBackground) }
      let request: PassRequest
      if state.pendingFull {
        request = .full
      } else if !state.pendingKeys.isEmpty {
        request = .keys(state.pendingKeys)
      } else {
        return (nil, .nothingPending)
      }
      state.pendingFull = false
      state.pendingKeys = []
      return (request, .ran(request))
    }
    guard let request = taken.request else { return taken.outcome }
    do {
      try runPass(request)
      state.withLock { $0.passesRun += 1 }
      return .ran(request)
    } catch {
      state.withLock { state in
        switch request {
        case .full: state.pendingFull = true
        case .keys(let keys): state.pendingKeys.formUnion(keys)
        }
      }
      return .failed(error)
    }
  }
}
