public import JSONLines
public import LocalStore
import MirrorStore
public import Reconciler
public import StashModel

/// A failure a person can act on, with the category that decides the CLI's exit code.
///
/// Messages are in sentence case, name the culprit in single quotes, have no trailing period,
/// and say what to do in words that fit any tool embedding the library; the ``hint`` says it
/// as a structured value, so that a tool can add how it is done there (the `stash` CLI names
/// its command).
public struct StashError: Error, Hashable, Sendable, CustomStringConvertible {
  /// What kind of failure this is.
  public enum Category: String, Hashable, Sendable {
    /// Bad input, not found, ambiguous, not enough stock, or a save that failed (exit 1).
    case refused
    /// Another process holds the folder's lock (exit 3).
    case busy
    /// A store file is damaged or too new to read (exit 4).
    case damaged
    /// The shared folder is encrypted and this device lacks its key, or a key given is
    /// wrong or not this folder's (exit 6).
    case key
  }

  /// What kind of failure this is.
  public let category: Category
  /// What happened and what to do, for a person.
  public let message: String
  /// What the person can do about it, for a tool to word as its own commands.
  public let hint: Hint?

  /// A failure.
  public init(_ category: Category, _ message: String, hint: Hint? = nil) {
    self.category = category
    self.message = message
    self.hint = hint
  }

  /// A refusal (exit 1).
  public static func refused(_ message: String) -> StashError { StashError(.refused, message) }

  public var description: String { message }

  /// The failure for a log error: busy, damaged, or refused.
  public init(_ error: LogError) {
    switch error {
    case .busy: self.init(.busy, error.description)
    case .damaged, .unsupportedVersion, .wrongFormat:
      self.init(
        .damaged, error.description + "; examine the folder to see what is wrong", hint: .examine)
    case .io, .missing, .alreadyExists, .readOnly, .needsReopening, .cannotUndo, .lineTooLong:
      self.init(.refused, error.description)
    }
  }

  /// The failure for a local store error.
  public init(_ error: LocalStoreError) {
    switch error {
    case .log(let log): self.init(log)
    case .notSaved(_, let log):
      self.init(log.isBusy ? .busy : .refused, error.description)
    case .invalid(let model): self.init(.refused, model.message)
    case .staleHash: self.init(.damaged, error.description, hint: .repair)
    }
  }

  /// The failure for a model error (bad input).
  public init(_ error: ModelError) { self.init(.refused, error.message) }

  /// The failure for any error thrown below the facade.
  public init(wrapping error: any Error) {
    switch error {
    case let error as StashError: self = error
    case let error as LocalStoreError: self.init(error)
    case let error as LogError: self.init(error)
    case let error as LogStoreError: self.init(error.logError)
    case let error as ModelError: self.init(error)
    case let error as BlobError: self.init(.refused, error.description)
    case let error as UntrustedVersion: self.init(.damaged, error.description)
    case let error as ResolutionError: self.init(error)
    default: self.init(.refused, "\(error)")
    }
  }
}

extension StashError {
  /// The failure for a resolution that cannot be made (refused), with what to do as a hint.
  public init(_ error: ResolutionError) {
    let hint: Hint? =
      switch error {
      case .unknown: .listConflicts
      case .noSuchVersion(let conflict, _): .showConflict(id: conflict.id.short)
      case .changedSince: .syncAgain
      case .notOpen, .absentSide, .ambiguous, .duplicateRows: nil
      }
    self.init(.refused, error.description, hint: hint)
  }
}

extension LogError {
  var isBusy: Bool {
    if case .busy = self { return true }
    return false
  }
}

/// Something a person can do about a failure, named for a tool to word as its own command.
public enum Hint: Hashable, Sendable {
  /// Create the folder's store first.
  case initialize
  /// Turn sync on with a shared folder.
  case enableSync
  /// Run sync again.
  case syncAgain
  /// Give this device folder an identity of its own.
  case newIdentity
  /// Examine the folder (the CLI's `stash doctor`).
  case examine
  /// Repair the folder (the CLI's `stash doctor --repair`).
  case repair
  /// List the open conflicts.
  case listConflicts
  /// List the records of a model.
  case list(model: String)
  /// Export the records again with this tool.
  case export
  /// Show a conflict's sides (its short id).
  case showConflict(id: String)
  /// Show a record's history (the item as the person named it).
  case showHistory(item: String)
  /// Have this device join another zone of the shared folder (its id, or the first eight
  /// characters of it), once a person knows both zones are one inventory.
  case joinZone(zone: String)
  /// Enter the encrypted folder's new key (a rotation made on another device).
  case addKey
  /// Join the encrypted folder with its sync key.
  case joinWithKey
}
