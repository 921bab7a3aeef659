/// A record, schema or value that breaks the model's rules.
///
/// The message is meant for a person: sentence case, the culprit in single quotes, no
/// trailing period, and where possible what to do about it.
public struct ModelError: Error, Hashable, Sendable, CustomStringConvertible {
  /// What is wrong, for a person to read.
  public let message: String

  /// An error with the given message.
  public init(_ message: String) {
    self.message = message
  }

  public var description: String { message }
}
