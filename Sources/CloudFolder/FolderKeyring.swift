public import StashCrypto

/// The keys of an encrypted shared folder that this device holds, oldest first.
///
/// The last key is the current one: new segments, photos and key announcements are sealed
/// with it. The older ones stay so that files sealed before a rotation can still be read.
/// It describes itself by key ids only.
public struct FolderKeyring: Sendable, CustomStringConvertible {
  /// The keys, oldest first; never empty.
  public private(set) var keys: [FolderKey]

  /// A keyring of `keys`, oldest first; `nil` when there is none. A key given twice is kept
  /// once, at its last place.
  ///
  /// - Parameter keys: The keys.
  public init?(keys: [FolderKey]) {
    guard !keys.isEmpty else { return nil }
    self.keys = []
    for key in keys { add(key) }
  }

  /// The key that seals what this device writes now.
  public var current: FolderKey { keys[keys.count - 1] }

  /// The key whose id is `id`, if this device holds it.
  ///
  /// - Parameter id: A key id, as a file names it.
  /// - Returns: The key, or `nil`.
  public func key(for id: KeyID) -> FolderKey? {
    keys.last { $0.id == id }
  }

  /// Adds `key` as the current key (moving it last when it is held already).
  ///
  /// - Parameter key: The key.
  public mutating func add(_ key: FolderKey) {
    keys.removeAll { $0 == key }
    keys.append(key)
  }

  /// The ids of the keys, oldest first.
  public var ids: [KeyID] { keys.map(\.id) }

  /// `FolderKeyring(ids, current last)`, naming no key.
  public var description: String {
    "FolderKeyring(" + ids.map(\.hex).joined(separator: ", ") + ")"
  }
}
