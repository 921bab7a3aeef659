public import JSONLines

/// Why the shared folder could not be used. Nothing was changed in the mirror.
public enum CloudError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The folder does not exist or cannot be listed (offline, unmounted, a typo).
  case unreachable(String, String)
  /// The folder has no `zone.json` but the mirror already belongs to a zone.
  case noZone(String)
  /// `zone.json` cannot be read.
  case damagedZone(String)
  /// The folder belongs to another zone than the mirror: an account change.
  case otherZone(folder: String, zone: String, mirrorZone: String)
  /// A file could not be read or written.
  case io(FileSystemError)
  /// The mirror could not be saved.
  case mirror(String)

  public var description: String {
    switch self {
    case .unreachable(let path, let reason):
      "The shared folder '\(path)' cannot be reached (\(reason)); the inventory works as "
        + "usual, try 'stash sync' again when the folder is back"
    case .noZone(let path):
      "The shared folder '\(path)' has no zone.json, but this device's mirror belongs to a "
        + "zone; if the folder moved, point sync at the new place with 'stash sync enable --cloud'"
    case .damagedZone(let path):
      "The zone file '\(path)' is damaged; nothing was imported or exported"
    case .otherZone(let folder, let zone, let mirrorZone):
      "The shared folder '\(folder)' belongs to zone '\(zone.prefix(8))', but this device "
        + "syncs zone '\(mirrorZone.prefix(8))' (another account or a reset folder); nothing was "
        + "merged. To sync this device with that folder instead, remove this device's "
        + "cloud.store: a new mirror starts over and uploads the inventory again"
    case .io(let error):
      error.description
    case .mirror(let reason):
      "The mirror could not be saved: \(reason)"
    }
  }
}
