public import JSONLines
public import LocalStore
public import MirrorStore
public import StashModel

/// Why a reconcile pass or a resolution failed.
///
/// Both stores are then as they were, except after ``notRolledBack(_:_:)``, which says what
/// stayed. Each case carries the lower layer's own error, so a caller matches the cause
/// instead of reading a message.
public indirect enum ReconcileError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The folder's lock could not be taken (another process holds it, or it cannot be used).
  case lock(LogError)
  /// The local store could not be read or saved, or a row it holds does not match its hash.
  case local(LocalStoreError)
  /// The mirror could not be read or saved.
  case mirror(LogStoreError)
  /// A mirror version the work reads failed its checks.
  case untrusted(UntrustedVersion)
  /// A record the work wrote does not fit its model.
  case model(ModelError)
  /// The chosen side does not fit the conflict.
  case resolution(ResolutionError)
  /// The stores were put together in a way this work cannot use.
  case wiring(WiringError)
  /// The local write failed (the first error) and undoing the mirror's write failed too (the
  /// second): the mirror keeps what it had saved, and says so.
  case notRolledBack(ReconcileError, LogStoreError)

  public var description: String {
    switch self {
    case .lock(let error): error.description
    case .local(let error): error.description
    case .mirror(let error): error.description
    case .untrusted(let error): error.description
    case .model(let error): error.description
    case .resolution(let error): error.description
    case .wiring(let error): error.description
    case .notRolledBack(let failure, let rollback): "\(failure); and then: \(rollback)"
    }
  }

  /// The failure of a save of the local store whose body could refuse with a model error.
  init(_ error: SaveError<LocalStoreError, ModelError>) {
    switch error {
    case .store(let error): self = .local(error)
    case .refused(let error): self = .model(error)
    }
  }

  /// The failure of a change made with the mirror's rollback.
  init(_ error: RollbackError<ReconcileError>) {
    switch error {
    case .store(let error): self = .mirror(error)
    case .undone(let failure): self = failure
    case .notUndone(let failure, let rollback): self = .notRolledBack(failure, rollback)
    }
  }
}
