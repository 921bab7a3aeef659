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
///
/// Held as the UUID's 16 bytes (a ``RecordID``), not as its text: every mirror version names
/// its author, and a string each was 8 MB of a 100,000-version mirror (massif, issue 26).
public struct DeviceID: Hashable, Comparable, Sendable, CustomStringConvertible {
  private let id: RecordID

  /// A lowercase UUID.
  public var rawValue: String { id.rawValue }

  /// Accepts a lowercase UUID.
  ///
  /// - Returns: `nil` for anything else.
  public init?(_ text: String) {
    guard let id = RecordID(text) else { return nil }
    self.id = id
  }

  /// The device of the UUID `id` holds (read from bytes as a record id is).
  package init(id: RecordID) { self.id = id }

  /// A new random identifier.
  public static func make() -> DeviceID { DeviceID(id: RecordID.make()) }

  public var description: String { rawValue }

  /// Appends ``rawValue`` as a JSON string, without building the string (a version's line
  /// names its author).
  public func appendJSONString(to bytes: inout [UInt8]) { id.appendJSONString(to: &bytes) }

  /// In the order of their text (``RecordID``'s order).
  public static func < (lhs: DeviceID, rhs: DeviceID) -> Bool { lhs.id < rhs.id }
}
