import JSONLines
import MirrorStore
import StashBase
import StashCrypto
import StashFiles
import StashModel

/// The zone a device syncs in a shared folder, and what the folder's `zone.json` names.
struct ZoneBinding {
  /// The zone of this device's mirror: the segments it reads and writes.
  let zone: String
  /// What `zone.json` names: ``zone``, another zone (the sync tool kept another device's
  /// file), or `nil` when it is missing.
  let zoneFile: String?
}

extension CloudFolder {
  /// The newest `zone.json` format this code reads and writes: 2, an encrypted folder's
  /// (a plain folder's is still written as 1).
  static let zoneFormatVersion: Int64 = 2

  /// The zone identifier, creating `zone.json` if the folder has none and `create` allows.
  ///
  /// Creation never replaces a `zone.json` another device published meanwhile: the file is
  /// published with a step that fails when the name is taken, and then the one that is there
  /// wins for every device.
  ///
  /// - Throws: ``CloudError`` when the folder is unreachable, the zone file cannot be used,
  ///   or it is missing and may not be created.
  func zone(creatingIfMissing create: Bool) throws(CloudError) -> String {
    try checkReachable()
    if let existing = try readZone() { return existing }
    guard create else { throw .noZone(root) }
    try publishZone(RecordID.make().rawValue)
    guard let written = try readZone() else { throw .noZone(root) }
    return written
  }

  /// Publishes `zone.json` naming `zone`, unless a file of that name is there (then that one
  /// stays: it is never replaced).
  func publishZone(_ zone: String) throws(CloudError) {
    var object: JSONObject = [
      "format": .string("stash.zone"), "version": .integer(keyring == nil ? 1 : 2),
      "zone": .string(zone),
    ]
    if let key = keyring?.current {
      object.append("encryption", .object(try KeyCheck.seal(zone: zone, key: key, kind: .zone)))
    }
    do {
      // Published here, or by another device first: either way the file there is the zone.
      _ = try files.publish(
        JSONWriter.bytes(.object(object)) + [10], as: "zone.json",
        unique: RecordID.make().rawValue)
    } catch {
      throw .io(error)
    }
  }

  /// How a mirror bound to `zone` stands with the folder's `zone.json`, writing nothing.
  ///
  /// - Returns: The binding, with ``ZoneBinding/zoneFile`` `nil` when `zone.json` is missing
  ///   (an import publishes it again).
  /// - Throws: ``CloudError/otherZone(folder:zone:mirrorZone:)`` or
  ///   ``CloudError/noZone(_:)`` when `zone.json` names another zone, or is missing, and the
  ///   folder holds no segment this mirror wrote or read (another account's folder, or a reset
  ///   one); what reading `zone.json` throws.
  func binding(of content: MirrorContent, zone: String) throws(CloudError) -> ZoneBinding {
    try checkReachable()
    let file = try readZone()
    if file == zone { return ZoneBinding(zone: zone, zoneFile: file) }
    guard try holdsSegments(of: content) else {
      guard let file else { throw .noZone(root) }
      throw .otherZone(folder: root, zone: file, mirrorZone: zone)
    }
    return ZoneBinding(zone: zone, zoneFile: file)
  }

  /// Whether the folder holds a segment this mirror exported or read: then it is the folder
  /// this device has been syncing through, whatever its `zone.json` says now.
  private func holdsSegments(of content: MirrorContent) throws(CloudError) -> Bool {
    for path in content.exportedSegments.reversed() + content.readSegments.sorted() {
      do {
        if try files.kind(of: path) == .regular { return true }
      } catch {
        throw .unreachable(root, error.reason)
      }
    }
    return false
  }

  /// Reads `zone.json` as untrusted input; `nil` when there is none. A folder whose zone file
  /// is encrypted is refused without a key, and one whose zone file is plain with one.
  private func readZone() throws(CloudError) -> String? {
    guard let file = try readZoneFile() else { return nil }
    switch (file.key, keyring) {
    case (let key?, nil): throw .encrypted(folder: root, key: key.hex)
    case (nil, _?): throw .notEncrypted(root)
    default: return file.zone
    }
  }

  /// What `zone.json` says: the zone, and for an encrypted folder its first key's id and the
  /// check sealed with it.
  struct ZoneFile {
    let zone: String
    var key: KeyID?
    var check: [UInt8] = []
  }

  /// Reads `zone.json` as untrusted input; `nil` when there is none.
  func readZoneFile() throws(CloudError) -> ZoneFile? {
    let read: SharedFiles.Read
    do {
      read = try files.read("zone.json", limit: CloudLimits.zoneFileBytes)
    } catch {
      throw .io(error)
    }
    let bytes: [UInt8]
    switch read {
    case .missing:
      return nil
    case .notRegular(_, let kind):
      throw .damagedZone(zonePath, problem: "it is a \(kind.noun), not a regular file")
    case .tooLarge(let size):
      throw .damagedZone(
        zonePath,
        problem: "it is \(size) bytes, more than the \(CloudLimits.zoneFileBytes >> 10) KiB a "
          + "zone file may have")
    case .bytes(let found):
      bytes = found
    }
    guard case .object(let object)? = try? JSONParser.parse(bytes) else {
      // Written in one piece with a final newline: without one it is still arriving.
      if bytes.last != 10 { throw .zoneIncomplete(zonePath) }
      throw .damagedZone(zonePath, problem: "it is not a JSON object")
    }
    guard object["format"] == .string("stash.zone") else {
      throw .damagedZone(zonePath, problem: "it is not a stash zone file")
    }
    guard case .integer(let version)? = object["version"], version >= 1 else {
      throw .damagedZone(zonePath, problem: "its format version is missing or damaged")
    }
    guard version <= Self.zoneFormatVersion else { throw .newerZone(zonePath, version: version) }
    guard case .string(let zone)? = object["zone"], RecordID(zone) != nil else {
      throw .damagedZone(zonePath, problem: "its zone identifier is missing or damaged")
    }
    guard version >= 2 else { return ZoneFile(zone: zone) }
    guard case .object(let encryption)? = object["encryption"],
      let (key, check) = KeyCheck.parse(encryption)
    else {
      throw .damagedZone(zonePath, problem: "its encryption part is missing or damaged")
    }
    return ZoneFile(zone: zone, key: key, check: check)
  }
}
