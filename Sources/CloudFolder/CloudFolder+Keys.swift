import StashBase
public import StashCrypto
import StashModel

/// How a key stands with an encrypted shared folder.
public enum KeyVerdict: Hashable, Sendable {
  /// It is the folder's first key: it opens the check in `zone.json`.
  case zoneKey
  /// It is a later key (a rotation): it opens the check of its file in `keys/`.
  case announced
  /// It opens nothing in the folder: another folder's key, or a mistyped one that passed
  /// the sync key's check.
  case wrong
  /// The folder is not encrypted (its `zone.json` is plain).
  case plainFolder
  /// The folder has no `zone.json` yet.
  case noZone
}

/// The check that proves a key belongs to a folder, in `zone.json` (`encryption`) and in each
/// `keys/<id>.json`: `{"cipher":"xchacha20-poly1305","key":K,"check":H}` where `H` is the hex
/// of the zone id's UTF-8 sealed with the key's `segments` subkey under the associated data
/// `<kind>:<zone>:<K>` (ASCII; `kind` is `stash.zone` or `stash.key`).
enum KeyCheck {
  /// Which file the check is in.
  enum Kind: String {
    case zone = "stash.zone"
    case key = "stash.key"
  }

  static func associatedData(_ kind: Kind, zone: String, key: KeyID) -> [UInt8] {
    Array("\(kind.rawValue):\(zone):\(key.hex)".utf8)
  }

  /// The check object for `key` in `zone`.
  static func seal(zone: String, key: FolderKey, kind: Kind) throws(CloudError) -> JSONObject {
    let sealed: [UInt8]
    do {
      sealed = try key.sealingKey(for: .segments).seal(
        Array(zone.utf8), associatedData: associatedData(kind, zone: zone, key: key.id))
    } catch {
      throw .sealing(error.description)
    }
    return [
      "cipher": .string("xchacha20-poly1305"), "key": .string(key.id.hex),
      "check": .string(Hex.encode(sealed)),
    ]
  }

  /// The key id and sealed check of a check object, when well formed.
  static func parse(_ object: JSONObject) -> (KeyID, [UInt8])? {
    guard object["cipher"] == .string("xchacha20-poly1305"),
      case .string(let keyText)? = object["key"], let key = KeyID(hex: keyText),
      case .string(let checkText)? = object["check"], checkText.utf8.count <= 1024,
      let check = Hex.decode(checkText)
    else { return nil }
    return (key, check)
  }

  /// Whether `check` opens under `key` as the check of `zone`.
  static func opens(_ check: [UInt8], zone: String, key: FolderKey, kind: Kind) -> Bool {
    let opened = try? key.sealingKey(for: .segments).open(
      check, associatedData: associatedData(kind, zone: zone, key: key.id))
    return opened == Array(zone.utf8)
  }
}

/// Lowercase hex, for the small sealed checks.
enum Hex {
  static func encode(_ bytes: [UInt8]) -> String {
    bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
  }

  static func decode(_ text: String) -> [UInt8]? {
    let digits = Array(text.utf8)
    guard digits.count % 2 == 0 else { return nil }
    var bytes = [UInt8]()
    bytes.reserveCapacity(digits.count / 2)
    for index in stride(from: 0, to: digits.count, by: 2) {
      guard let pair = UInt8(String(decoding: digits[index...index + 1], as: UTF8.self), radix: 16)
      else { return nil }
      bytes.append(pair)
    }
    return bytes
  }
}

extension CloudFolder {
  /// The id of the key named in `zone.json`, when the folder is encrypted (read without a key).
  ///
  /// - Returns: `nil` for a plain folder or one without a zone file.
  /// - Throws: ``CloudError`` when the zone file cannot be read.
  public func zoneKeyID() throws(CloudError) -> KeyID? {
    try readZoneFile()?.key
  }

  /// The zone `zone.json` names, read without a key; `nil` when there is none.
  ///
  /// - Throws: ``CloudError`` when the zone file cannot be read.
  public func zoneIdentifier() throws(CloudError) -> String? {
    try readZoneFile()?.zone
  }

  /// Whether `key` belongs to this folder (``KeyVerdict``); reads, writes nothing.
  ///
  /// - Parameter key: The key a person entered.
  /// - Returns: The verdict.
  /// - Throws: ``CloudError`` when the folder or its zone file cannot be read.
  public func verify(_ key: FolderKey) throws(CloudError) -> KeyVerdict {
    try checkReachable()
    guard let file = try readZoneFile() else { return .noZone }
    guard let zoneKey = file.key else { return .plainFolder }
    if zoneKey == key.id, KeyCheck.opens(file.check, zone: file.zone, key: key, kind: .zone) {
      return .zoneKey
    }
    guard let announcement = announcements(zone: file.zone).first(where: { $0.key == key.id })
    else { return .wrong }
    return KeyCheck.opens(announcement.check, zone: file.zone, key: key, kind: .key)
      ? .announced : .wrong
  }

  /// Publishes `zone.json` for a new encrypted folder, sealed with ``keyring``'s current key.
  ///
  /// - Parameter zone: The zone: the mirror's when the device moves to this folder, else
  ///   `nil` for a new one.
  /// - Throws: ``CloudError``: `.notEncrypted` without a keyring, `.damagedZone` when the
  ///   folder already has a zone file (an existing folder is joined with its key, never
  ///   turned into another).
  public func createEncryptedZone(_ zone: String?) throws(CloudError) {
    guard keyring != nil else { throw .notEncrypted(root) }
    try checkReachable()
    if try readZoneFile() != nil {
      throw .damagedZone(
        zonePath,
        problem: "the folder already has a zone file; an existing folder is joined with its "
          + "sync key, and a plain one is moved to a new empty folder")
    }
    try publishZone(zone ?? RecordID.make().rawValue)
  }
}
