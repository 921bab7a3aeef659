import CloudFolder

/// Why this device exported nothing though it had versions to send, and what to do: a typed
/// value a tool renders (the `stash` CLI words ``hint`` as its command).
public struct ExportStop: Hashable, Sendable, CustomStringConvertible {
  /// What stopped the export.
  public enum Kind: Hashable, Sendable {
    /// Another copy of this device folder writes as this device: segments under its id that
    /// it did not write (relative to the shared folder).
    case writtenElsewhere(segments: [String])
    /// Segments this device exported are gone from the shared folder.
    case segmentsMissing(segments: [String])
    /// This device's folder in the shared folder is a link or a special file.
    case unsafeFolder(path: String)
    /// The encrypted folder's key was rotated and this device lacks the new key (by id).
    case lacksKey(keys: [String])
  }

  /// What stopped the export.
  public let kind: Kind
  /// What happened and what to do, worded for any tool; the last clause is the remedy.
  public let message: String

  /// What to do: give the device a new identity, or (for an unsafe folder) sync again once
  /// it is removed.
  public var hint: Hint {
    switch kind {
    case .writtenElsewhere, .segmentsMissing: .newIdentity
    case .unsafeFolder: .syncAgain
    case .lacksKey: .addKey
    }
  }

  public var description: String { message }

  init(_ problem: OwnFolderProblem) {
    switch problem {
    case .writtenElsewhere(_, let segments): kind = .writtenElsewhere(segments: segments)
    case .missing(_, let segments): kind = .segmentsMissing(segments: segments)
    case .unsafe(let path, _): kind = .unsafeFolder(path: path)
    case .lacksKey(let keys): kind = .lacksKey(keys: keys)
    }
    message = problem.description
  }
}
