public import CloudFolder
public import JSONLines
public import LocalStore
import MirrorStore
public import Reconciler
public import StashFiles
public import StashModel

/// A failure a person can act on, with the category that decides the CLI's exit code.
///
/// Messages are in sentence case, name the culprit in single quotes, have no trailing period,
/// and say what to do in words that fit any tool embedding the library; the ``hint`` says it
/// as a structured value, so that a tool can add how it is done there (the `stash` CLI names
/// its command). A failure that comes from a lower layer carries that layer's error as it was
/// thrown (``underlying``), so a tool can match the cause instead of reading the message.
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
  /// The lower layer's error this failure comes from; `nil` for a failure the facade found.
  public let underlying: Underlying?

  /// The error of a lower layer that a ``StashError`` comes from, as it was thrown.
  public enum Underlying: Hashable, Sendable {
    /// A store's file or the folder's lock.
    case log(LogError)
    /// The inventory's store (`default.store`).
    case localStore(LocalStoreError)
    /// A store's log, catching up or saving (the mirror's, `cloud.store`).
    case logStore(LogStoreError)
    /// The transport: the shared folder.
    case transport(CloudError)
    /// The record model: a record that does not fit its schema.
    case model(ModelError)
    /// A reconcile pass or a resolution.
    case reconcile(ReconcileError)
    /// A photo's bytes in the folder's blobs.
    case blob(BlobError)
  }

  /// A failure.
  ///
  /// - Parameters:
  ///   - category: What kind of failure this is.
  ///   - message: What happened and what to do, for a person.
  ///   - hint: What the person can do about it, for a tool to word.
  ///   - underlying: The lower layer's error it comes from, if any.
  public init(
    _ category: Category, _ message: String, hint: Hint? = nil, underlying: Underlying? = nil
  ) {
    self.category = category
    self.message = message
    self.hint = hint
    self.underlying = underlying
  }

  /// A refusal (exit 1).
  public static func refused(_ message: String) -> StashError { StashError(.refused, message) }

  public var description: String { message }

  /// The failure for a log error: busy, damaged, or refused.
  public init(_ error: LogError) {
    self.init(reading: error, underlying: .log(error))
  }

  /// The failure for a store's log error, with what it came from.
  private init(reading error: LogError, underlying: Underlying) {
    switch error {
    case .busy: self.init(.busy, error.description, underlying: underlying)
    case .damaged, .unsupportedVersion, .wrongFormat:
      self.init(
        .damaged, error.description + "; examine the folder to see what is wrong", hint: .examine,
        underlying: underlying)
    case .io, .missing, .alreadyExists, .readOnly, .needsReopening, .cannotUndo, .lineTooLong:
      self.init(.refused, error.description, underlying: underlying)
    }
  }

  /// The failure for a store's log that could not catch up or save: as its log error says.
  package init(_ error: LogStoreError) {
    self.init(reading: error.logError, underlying: .logStore(error))
  }

  /// The failure for a local store error.
  package init(_ error: LocalStoreError) {
    let cause = Underlying.localStore(error)
    switch error {
    case .log(let log): self.init(reading: log, underlying: cause)
    case .notSaved(_, let log):
      self.init(log.isBusy ? .busy : .refused, error.description, underlying: cause)
    case .invalid(let model): self.init(.refused, model.message, underlying: cause)
    case .staleHash: self.init(.damaged, error.description, hint: .repair, underlying: cause)
    }
  }

  /// The failure for a model error (bad input).
  public init(_ error: ModelError) { self.init(.refused, error.message, underlying: .model(error)) }

  /// The failure for a photo's bytes that could not be read or stored (refused).
  public init(_ error: BlobError) {
    self.init(.refused, error.description, underlying: .blob(error))
  }

  /// The failure for a reconcile pass or a resolution, as the lower error it carries says.
  package init(_ error: ReconcileError) {
    let cause = Underlying.reconcile(error)
    let inner: StashError
    switch error {
    case .lock(let log): inner = StashError(log)
    case .local(let store): inner = StashError(store)
    case .mirror(let store): inner = StashError(store)
    case .untrusted(let version): inner = StashError(.damaged, version.description)
    case .model(let model): inner = StashError(model)
    case .resolution(let resolution): inner = StashError(resolution)
    case .wiring(let wiring): inner = .refused(wiring.message)
    case .notRolledBack: inner = .refused(error.description)
    }
    self.init(inner.category, inner.message, hint: inner.hint, underlying: cause)
  }
}

extension StashError {
  /// The failure for a shared folder that could not be used: damaged (exit 4) for a zone file
  /// or mirror that cannot be read, busy (exit 3) for a held mirror, refused (exit 1) else.
  package init(_ error: CloudError) {
    let cause = Underlying.transport(error)
    switch error {
    case .damagedZone, .untrustedVersion: self.init(.damaged, error.description, underlying: cause)
    case .mirror(let store):
      let log = StashError(store)
      self.init(log.category, "The mirror could not be saved: \(log.message)", underlying: cause)
    case .unreachable, .zoneIncomplete:
      self.init(.refused, error.description, hint: .syncAgain, underlying: cause)
    case .noZone: self.init(.refused, error.description, hint: .enableSync, underlying: cause)
    case .newerZone, .otherZone, .io, .sealing:
      self.init(.refused, error.description, underlying: cause)
    case .encrypted: self.init(.key, error.description, hint: .joinWithKey, underlying: cause)
    case .notEncrypted: self.init(.key, error.description, underlying: cause)
    }
  }
}

extension StashError {
  /// Runs a step of the record model (a check, a conversion, a transaction's insert), its
  /// refusal becoming the facade's with the model's error underneath.
  @discardableResult
  static func model<T>(_ step: @autoclosure () throws(ModelError) -> T) throws(StashError) -> T {
    do { return try step() } catch { throw StashError(error) }
  }

  /// The failure for a resolution that cannot be made (refused), with what to do as a hint.
  package init(_ error: ResolutionError) {
    let hint: Hint? =
      switch error {
      case .unknown: .listConflicts
      case .noSuchVersion(let conflict, _): .showConflict(id: conflict.id.short)
      case .changedSince: .syncAgain
      case .notOpen, .absentSide, .ambiguous, .duplicateRows: nil
      }
    self.init(.refused, error.description, hint: hint, underlying: .reconcile(.resolution(error)))
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
