public import JSONLines
import StashFiles
public import StashModel

/// Why the local store could not open, read or save.
public enum LocalStoreError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The file could not be opened or read: damaged, busy, missing, too new, unreadable.
  case log(LogError)
  /// A save failed; nothing was written and the store holds what it held before (the change
  /// was not kept anywhere: it has to be made again).
  case notSaved(action: String, LogError)
  /// The change itself was refused (an unknown model, a record that does not fit its schema).
  case invalid(ModelError)
  /// A row's stored hash does not match its record: the file was edited by something other
  /// than a store. The row is not copied anywhere until `stash doctor --repair` sets it aside.
  case staleHash(path: String, row: RowID, key: RecordKey)

  public var description: String {
    switch self {
    case .log(let error):
      return error.description
    case .notSaved(let action, let error):
      return "Could not save \(action) (\(error)); none of it was saved and the store is as it "
        + "was before; " + Self.advice(after: error)
    case .invalid(let error):
      return error.description
    case .staleHash(let path, let row, let key):
      return "The store '\(path)' is damaged: \(row) (\(key.model) '\(key.id)') does not match "
        + "its hash, so it was not copied anywhere; repair the folder to set it aside"
    }
  }

  /// What to do after a save failed with `error`: make the change again, once the cause is
  /// gone when it is one a person can remove.
  static func advice(after error: LogError) -> String {
    guard case .io(let failure) = error else { return "make the change again" }
    if failure.isOutOfSpace { return "free some space on the disk, then make the change again" }
    if failure.isReadOnlyFileSystem {
      return "the disk only allows reading: make the change again once it can be written"
    }
    return "make the change again"
  }

  /// The underlying log error, if there is one.
  public var logError: LogError? {
    switch self {
    case .log(let error), .notSaved(_, let error): error
    case .invalid, .staleHash: nil
    }
  }
}
