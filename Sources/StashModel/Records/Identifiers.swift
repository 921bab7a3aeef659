/// The identifier of a store file, made once when the file is created.
///
/// Mirror events name the mirror they concern by this identifier (not by file name), and the
/// local store binds its checkpoints to one mirror's identifier.
public struct StoreID: Hashable, Sendable, CustomStringConvertible {
  /// A lowercase UUID.
  public let rawValue: String

  /// Accepts a lowercase UUID.
  ///
  /// - Returns: `nil` for anything else.
  public init?(_ text: String) {
    guard RecordID.isCanonical(text) else { return nil }
    self.rawValue = text
  }

  /// A new random identifier.
  public static func make() -> StoreID { StoreID(RecordID.make().rawValue)! }

  public var description: String { rawValue }
}

/// The identity of one device (one device folder), made once at its first write.
public struct DeviceID: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// A lowercase UUID.
  public let rawValue: String

  /// Accepts a lowercase UUID.
  ///
  /// - Returns: `nil` for anything else.
  public init?(_ text: String) {
    guard RecordID.isCanonical(text) else { return nil }
    self.rawValue = text
  }

  /// A new random identifier.
  public static func make() -> DeviceID { DeviceID(RecordID.make().rawValue)! }

  public var description: String { rawValue }

  public static func < (lhs: DeviceID, rhs: DeviceID) -> Bool { lhs.rawValue < rhs.rawValue }
}
