/// How a store file is opened: for reading, or for writing.
public enum StoreAccess: Hashable, Sendable {
  /// Opening and reading never change the file. What follows its last commit (a
  /// ``TailReport``) is only reported, and a missing file that may be created exists only in
  /// memory. The first save takes write access: it creates the file, or opens it for writing
  /// and sets aside its tail (telling the store's tail observers), and then writes.
  case reading
  /// The file is opened for writing at once, and a tail is set aside at once.
  case writing
}

/// When a store rewrites its file to hold only the live state.
///
/// The file is compacted after a save when it holds more than `linesPerLiveChange` lines per
/// live change plus `minimumLines`: most of it is then history, and small stores are not
/// rewritten on every save.
public struct CompactionPolicy: Hashable, Sendable {
  /// The lines a file may always hold beyond the live state (4,096 by default).
  public var minimumLines: Int
  /// How many lines per live change a file may hold before it is compacted (2 by default).
  public var linesPerLiveChange: Int

  /// A policy.
  ///
  /// - Parameters:
  ///   - minimumLines: The lines a file may always hold beyond the live state; tests and
  ///     crash workloads lower it so that small stores compact too.
  ///   - linesPerLiveChange: How many lines per live change a file may hold.
  public init(minimumLines: Int = 4096, linesPerLiveChange: Int = 2) {
    self.minimumLines = minimumLines
    self.linesPerLiveChange = linesPerLiveChange
  }

  /// The default: more than twice the live lines, and at least 4,096 lines.
  public static let standard = CompactionPolicy()

  /// Whether a file of `lines` lines holding `liveChanges` live changes should be compacted.
  public func isWorthIt(lines: Int, liveChanges: Int) -> Bool {
    lines > linesPerLiveChange * liveChanges + minimumLines
  }
}

/// Why a save failed: the store could not make it, or the body that built it refused.
///
/// Either way nothing was written and the store is as it was. The body's error type is the
/// caller's own (`Never` for a body that cannot refuse), so a caller matches what it threw
/// without casting, and the store's failure stays a value of the store's error type.
public enum SaveError<StoreFailure: Error, Refusal: Error>: Error, CustomStringConvertible {
  /// The store could not catch up or write.
  case store(StoreFailure)
  /// The body threw this; nothing was written.
  case refused(Refusal)

  public var description: String {
    switch self {
    case .store(let error): "\(error)"
    case .refused(let error): "\(error)"
    }
  }
}

extension SaveError where Refusal == Never {
  /// The store's failure: a body that cannot refuse leaves no other.
  public var storeFailure: StoreFailure {
    switch self {
    case .store(let error): return error
    case .refused(let never): switch never {}
    }
  }
}

extension SaveError where Refusal == StoreFailure {
  /// The failure, whichever side threw it: for a body that refuses with the store's own error.
  public var failure: StoreFailure {
    switch self {
    case .store(let error), .refused(let error): error
    }
  }
}

/// Why a change made with ``LogStore/withRollback(_:)`` failed.
///
/// A change that failed and whose undo failed too keeps what it had saved before it failed:
/// reported, never hidden.
public enum RollbackError<Failure: Error>: Error, CustomStringConvertible {
  /// The store could not be prepared for the change; nothing was saved.
  case store(LogStoreError)
  /// The change threw this, and everything it had saved was undone.
  case undone(Failure)
  /// The change threw this, and undoing what it had saved failed too (the second error).
  case notUndone(Failure, LogStoreError)

  public var description: String {
    switch self {
    case .store(let error): error.description
    case .undone(let failure): "\(failure)"
    case .notUndone(let failure, let rollback): "\(failure); and then: \(rollback)"
    }
  }
}
