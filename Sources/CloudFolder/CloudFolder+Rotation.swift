import JSONLines
import StashBase
public import StashCrypto
import StashFiles
public import StashModel

/// A rotation's key file, `keys/<K>.json`, as read (Fixtures/README.md, section 7):
///
/// ```
/// {"format":"stash.key","version":1,"zone":Z,"cipher":"xchacha20-poly1305","key":K,
///  "check":H,"previous":P,"proof":Q,"retired":R}
/// ```
/// `check` proves the key `K` (as in `zone.json`); `proof` is `K`'s id (16 hex digits, ASCII)
/// sealed with the key `P` the rotating device sealed with before, under the associated data
/// `stash.key.proof:<Z>:<P>:<K>`, so a device that holds `P` knows the rotation was made by a
/// holder of the folder's key, not forged; `retired` is, sealed with `K` under
/// `stash.key.retired:<Z>:<K>`, `{"keys":[…],"segments":{device: sequence}}`: the keys the
/// rotation retires and, per device, the last segment number the folder held then. A
/// device holding `K` reads a segment sealed with a retired key only up to that number: what
/// a revoked device writes later is rejected.
struct KeyAnnouncement {
  let key: KeyID
  let check: [UInt8]
  let previous: KeyID?
  let proof: [UInt8]
  let retired: [UInt8]
}

/// What a rotation retires, as a device holding the new key reads it.
struct Retirement {
  /// The last segment number of each device the folder held at the rotation.
  var segments: [String: Int64]
}

extension CloudFolder {
  /// Every well-formed `keys/<K>.json` of `zone`.
  func announcements(zone: String) -> [KeyAnnouncement] {
    guard case .names(let names)? = try? files.list("keys") else { return [] }
    var found = [KeyAnnouncement]()
    for name in names.sorted() where name.hasSuffix(".json") {
      guard let id = KeyID(hex: String(name.dropLast(5))),
        case .bytes(let bytes)? = try? files.read("keys/" + name, limit: 16 * 1024),
        case .object(let object)? = try? JSONParser.parse(bytes),
        object["format"] == .string("stash.key"), object["version"] == .integer(1),
        object["zone"] == .string(zone), let (key, check) = KeyCheck.parse(object), key == id
      else { continue }
      var previous: KeyID?
      var proof = [UInt8]()
      var retired = [UInt8]()
      if case .string(let text)? = object["previous"] { previous = KeyID(hex: text) }
      if case .string(let text)? = object["proof"] { proof = Hex.decode(text) ?? [] }
      if case .string(let text)? = object["retired"] { retired = Hex.decode(text) ?? [] }
      found.append(
        KeyAnnouncement(
          key: id, check: check, previous: previous, proof: proof, retired: retired))
    }
    return found
  }

  /// Every key the folder names that this device can vouch for: the one in `zone.json`, and
  /// each of `keys/` that it holds (its check opens) or whose rotation a key it holds proves.
  ///
  /// A key file nobody with a key wrote (anyone who can write the folder can add one) is not
  /// counted: it neither makes this device wait nor stop exporting.
  ///
  /// - Returns: The ids, the zone's first; empty for a plain folder.
  public func namedKeys() -> [KeyID] {
    guard let file = try? readZoneFile(), let zoneKey = file.key else { return [] }
    var ids = [zoneKey]
    for announcement in announcements(zone: file.zone) where !ids.contains(announcement.key) {
      if let held = keyring?.key(for: announcement.key),
        KeyCheck.opens(announcement.check, zone: file.zone, key: held, kind: .key)
      {
        ids.append(announcement.key)
      } else if let previous = announcement.previous, let held = keyring?.key(for: previous),
        let opened = try? held.sealingKey(for: .segments).open(
          announcement.proof,
          associatedData: Self.proofData(zone: file.zone, previous: previous, key: announcement.key)
        ),
        opened == Array(announcement.key.hex.utf8)
      {
        ids.append(announcement.key)
      }
    }
    return ids
  }

  /// The keys the folder names that ``keyring`` lacks (a rotation this device has not been
  /// given yet), by id. While there is one, this device reads and writes nothing there.
  public var lackingKeys: [KeyID] {
    guard let keyring else { return [] }
    let held = Set(keyring.ids)
    return namedKeys().filter { !held.contains($0) }
  }

  /// What the rotations to keys this device holds retire, by retired key: the strictest
  /// (lowest) segment number per device when several retire one key.
  func retirements() -> [KeyID: Retirement] {
    guard let keyring, let file = try? readZoneFile() else { return [:] }
    var result = [KeyID: Retirement]()
    for announcement in announcements(zone: file.zone) {
      guard let key = keyring.key(for: announcement.key),
        KeyCheck.opens(announcement.check, zone: file.zone, key: key, kind: .key),
        let plain = try? key.sealingKey(for: .segments).open(
          announcement.retired,
          associatedData: Array("stash.key.retired:\(file.zone):\(key.id.hex)".utf8)),
        case .object(let object)? = try? JSONParser.parse(plain),
        case .array(let keys)? = object["keys"], case .object(let segments)? = object["segments"]
      else { continue }
      var cutoff = [String: Int64]()
      for (device, value) in segments {
        if case .integer(let number) = value { cutoff[device] = number }
      }
      for case .string(let text) in keys {
        guard let retired = KeyID(hex: text), retired != key.id else { continue }
        var merged = result[retired] ?? Retirement(segments: cutoff)
        for device in Set(merged.segments.keys).union(cutoff.keys) {
          merged.segments[device] = min(merged.segments[device] ?? 0, cutoff[device] ?? 0)
        }
        result[retired] = merged
      }
    }
    return result
  }

  /// The last segment number a rotation to a key this device holds allows `device` under a
  /// retired key, when there is such a rotation: segments of its own after it (written before
  /// it saw the rotation) are rejected by the other devices and must be exported again.
  ///
  /// - Parameter device: This device.
  /// - Returns: The lowest such number, or `nil` without a rotation.
  public func retiredAfter(for device: DeviceID) -> Int64? {
    retirements().values.map { $0.segments[device.rawValue] ?? 0 }.min()
  }

  /// Publishes `keys/<id>.json` for ``keyring``'s current key, retiring every older key the
  /// keyring holds: the proof other devices check it against when a person enters it, the
  /// sign that devices without it lack a key, and the segment numbers after which files sealed
  /// with a retired key are rejected.
  ///
  /// - Throws: ``CloudError`` when the folder has no encrypted zone file, or writing fails.
  public func announceCurrentKey() throws(CloudError) {
    guard let keyring, keyring.keys.count >= 2 else { throw .notEncrypted(root) }
    let key = keyring.current
    let previous = keyring.keys[keyring.keys.count - 2]
    guard let file = try readZoneFile() else { throw .noZone(root) }
    guard file.key != nil else { throw .notEncrypted(root) }
    var object: JSONObject = [
      "format": .string("stash.key"), "version": .integer(1), "zone": .string(file.zone),
    ]
    for (name, value) in try KeyCheck.seal(zone: file.zone, key: key, kind: .key) {
      object.append(name, value)
    }
    var segments = JSONObject()
    for (device, sequence) in try highestSequences() { segments.append(device, .integer(sequence)) }
    let retired: JSONObject = [
      "keys": .array(keyring.keys.dropLast().map { .string($0.id.hex) }),
      "segments": .object(segments),
    ]
    do {
      let proof = try previous.sealingKey(for: .segments).seal(
        Array(key.id.hex.utf8),
        associatedData: Self.proofData(zone: file.zone, previous: previous.id, key: key.id))
      let sealedRetired = try key.sealingKey(for: .segments).seal(
        JSONWriter.bytes(.object(retired)),
        associatedData: Array("stash.key.retired:\(file.zone):\(key.id.hex)".utf8))
      object.append("previous", .string(previous.id.hex))
      object.append("proof", .string(Hex.encode(proof)))
      object.append("retired", .string(Hex.encode(sealedRetired)))
    } catch {
      throw .sealing(error.description)
    }
    do {
      _ = try files.publish(
        JSONWriter.bytes(.object(object)) + [10], as: "keys/\(key.id.hex).json",
        unique: RecordID.make().rawValue)
    } catch {
      throw .io(error)
    }
  }

  /// The associated data of a rotation's proof.
  static func proofData(zone: String, previous: KeyID, key: KeyID) -> [UInt8] {
    Array("stash.key.proof:\(zone):\(previous.hex):\(key.hex)".utf8)
  }

  /// The highest segment number in each device's folder, by device id.
  private func highestSequences() throws(CloudError) -> [(String, Int64)] {
    var result = [(String, Int64)]()
    do {
      guard case .names(let devices) = try files.list("devices") else { return [] }
      for device in devices.sorted() where DeviceID(device) != nil {
        guard case .names(let names) = try files.list("devices/" + device) else { continue }
        let highest = names.filter(Self.isSegmentName).compactMap(Self.sequence(of:)).max()
        if let highest { result.append((device, highest)) }
      }
    } catch {
      throw .unreachable(root, error.reason)
    }
    return result
  }
}
