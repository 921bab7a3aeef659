import Reconciler
import StashModel
import Synchronization

/// Carries pass reports out of the coordinator's closure.
final class PassReports: Sendable {
  private let reports = Mutex<[PassReport]>([])
  /// The records a full pass covers in a sync of sealed changes (every other record is
  /// settled: see ``SealedChanges``); `nil`: every record.
  private let keys: Mutex<Set<RecordKey>?>

  init(keys: Set<RecordKey>? = nil) { self.keys = Mutex(keys) }

  /// Restricts the full passes of the next run to `keys` (`nil`: every record).
  func restrict(to keys: Set<RecordKey>?) { self.keys.withLock { $0 = keys } }

  /// Adds `more` to the records a restricted pass covers (those an import merged versions of:
  /// a record the import changed is not settled any more).
  func widen(by more: Set<RecordKey>) { keys.withLock { $0?.formUnion(more) } }

  func add(_ report: PassReport) { reports.withLock { $0.append(report) } }

  func clear() { reports.withLock { $0 = [] } }

  /// Runs the pass `request` asks for and keeps its report.
  func run(
    _ request: SyncCoordinator.PassRequest, with reconciler: Reconciler
  ) throws(ReconcileError) {
    switch request {
    case .full: add(try reconciler.reconcile(keys: keys.withLock { $0 }))
    case .keys(let requested): add(try reconciler.reconcile(keys: requested))
    }
  }

  var last: PassReport? { reports.withLock { $0.last } }
}
