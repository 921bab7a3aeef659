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

/// A change that failed, and the undo of what it had already saved, which failed too.
///
/// The store then keeps what the change had saved before it failed: reported, never hidden.
public struct RollbackError: Error, CustomStringConvertible {
  /// What failed first.
  public let failure: any Error
  /// Why undoing what was saved before it failed did not work.
  public let rollback: LogStoreError

  /// Describes both failures.
  public init(failure: any Error, rollback: LogStoreError) {
    self.failure = failure
    self.rollback = rollback
  }

  public var description: String { "\(failure); and then: \(rollback)" }
}
