public import JSONLines
public import MirrorStore
public import StashFiles

/// Why the shared folder could not be used at all. The mirror is then unchanged.
///
/// Problems with single files (a damaged segment, a photo still arriving, an invalid version)
/// are not errors: they are reported in ``ImportReport`` and ``ExportReport`` while the rest
/// goes on.
public enum CloudError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The folder does not exist or cannot be listed (offline, unmounted, a typo).
  case unreachable(String, String)
  /// The folder has no `zone.json` but the mirror already belongs to a zone.
  case noZone(String)
  /// `zone.json` is there but not complete yet (a sync tool is still delivering it).
  case zoneIncomplete(String)
  /// `zone.json` cannot be used: not a regular file, too large, or not a zone file.
  case damagedZone(String, problem: String)
  /// `zone.json` was written by a newer format than this code reads.
  case newerZone(String, version: Int64)
  /// The folder belongs to another zone than the mirror: an account change.
  case otherZone(folder: String, zone: String, mirrorZone: String)
  /// A file could not be read or written.
  case io(FileSystemError)
  /// The mirror could not be read or saved (busy, damaged, a failed write), as the store
  /// said.
  case mirror(LogStoreError)
  /// A version the mirror would export cannot be trusted (a hand edit of `cloud.store`):
  /// nothing was exported.
  case untrustedVersion(UntrustedVersion)
  /// The folder is encrypted (its `zone.json` names key `key`) and this device holds no key
  /// for it.
  case encrypted(folder: String, key: String)
  /// This device holds a key for an encrypted folder, but the folder's `zone.json` is plain
  /// (a plain folder, or one whose zone file was replaced): nothing is read or written.
  case notEncrypted(String)
  /// Sealing failed (the system's random generator failed); the reason names no secret.
  case sealing(String)

  public var description: String {
    switch self {
    case .unreachable(let path, let reason):
      "The shared folder '\(path)' cannot be reached (\(reason)); the inventory works as "
        + "usual; sync again when the folder is back"
    case .noZone(let path):
      "The shared folder '\(path)' has no zone.json, but this device's mirror belongs to a "
        + "zone; if the folder moved, turn sync on with the new place"
    case .zoneIncomplete(let path):
      "The zone file '\(path)' has not fully arrived yet (the sync tool is still delivering "
        + "it); nothing was imported or exported; sync again later"
    case .damagedZone(let path, let problem):
      "The zone file '\(path)' cannot be used: \(problem); nothing was imported or exported. "
        + "Copy zone.json back from another device's shared folder"
    case .newerZone(let path, let version):
      "The zone file '\(path)' has format version \(version), newer than this stash reads; "
        + "nothing was imported or exported, update stash on this device"
    case .otherZone(let folder, let zone, let mirrorZone):
      "The shared folder '\(folder)' belongs to zone '\(zone.prefix(8))', but this device "
        + "syncs zone '\(mirrorZone.prefix(8))' (another account or a reset folder); nothing was "
        + "merged. To sync this device with that folder instead, remove this device's "
        + "cloud.store: a new mirror starts over and uploads the inventory again"
    case .io(let error):
      error.description
    case .mirror(let error):
      "The mirror could not be saved: \(error)"
    case .untrustedVersion(let error):
      "Nothing was exported: \(error)"
    case .encrypted(let folder, let key):
      "The shared folder '\(folder)' is encrypted (key '\(key)') and this device holds no key "
        + "for it; nothing was read or written; join it with its sync key in a file"
    case .notEncrypted(let folder):
      "This device syncs an encrypted folder, but the zone file of '\(folder)' is not "
        + "encrypted (a plain folder, or its zone file was replaced); nothing was read or "
        + "written; check the folder, or turn sync on again with an encrypted one"
    case .sealing(let reason):
      "Nothing was exported: \(reason)"
    }
  }
}
