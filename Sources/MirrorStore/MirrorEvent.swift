public import StashModel

/// What the transport tells the sync coordinator about the mirror, like the events CloudKit
/// posts for a store: setup, import and export, started and finished, success or failure.
///
/// An event names the mirror it concerns by its store identifier, never by file name: an event
/// for another store does not concern this one.
public struct MirrorEvent: Hashable, Sendable, CustomStringConvertible {
  /// What the transport was doing.
  public enum Kind: String, Hashable, Sendable {
    case setup
    case `import`
    case export
  }

  /// Whether it began or ended.
  public enum Phase: String, Hashable, Sendable {
    case started
    case finished
  }

  /// How a finished event ended.
  public enum Outcome: Hashable, Sendable {
    case success
    case failure(String)
  }

  /// What the transport was doing.
  public let kind: Kind
  /// Whether it began or ended.
  public let phase: Phase
  /// How it ended (always `.success` for a started event).
  public let outcome: Outcome
  /// The store identifier of the mirror concerned.
  public let storeID: StoreID

  /// An event.
  public init(kind: Kind, phase: Phase, outcome: Outcome = .success, storeID: StoreID) {
    self.kind = kind
    self.phase = phase
    self.outcome = outcome
    self.storeID = storeID
  }

  /// Whether this is a finished, successful import: the only event that opens the gate.
  public var isFinishedSuccessfulImport: Bool {
    kind == .import && phase == .finished && outcome == .success
  }

  public var description: String {
    let result: String
    switch outcome {
    case .success: result = "success"
    case .failure(let reason): result = "failure (\(reason))"
    }
    return "\(kind.rawValue) \(phase.rawValue) \(result) for \(storeID.rawValue.prefix(8))"
  }
}
