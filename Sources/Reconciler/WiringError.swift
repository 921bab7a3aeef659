/// Stores put together in a way that cannot work (two stores with separate locks): a mistake
/// in the embedding code, reported as an error instead of stopping the process.
public struct WiringError: Error, Hashable, Sendable, CustomStringConvertible {
  /// What is wrong and how to wire it instead.
  public let message: String

  /// A wiring error with its message.
  public init(_ message: String) { self.message = message }

  public var description: String { message }
}
