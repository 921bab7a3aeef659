import MirrorStore
import StashBase
import StashCrypto
import StashModel

/// The segments of an encrypted shared folder (format 4).
///
/// ```
/// {"segment":{"format":"stash.segment","version":4,"zone":Z,"device":D,"sequence":N,
///   "count":0,"export":E,"key":K,"sealed":L}}\n
/// nonce (24 bytes) ‖ ciphertext ‖ tag (16 bytes)            ← L bytes
/// ```
/// The ciphertext is a whole format-3 segment (its header line, with the device's name and
/// time, and its versions), encrypted with XChaCha20-Poly1305 under the folder key's
/// `segments` subkey (`K` is the key's id). The associated data is the header line itself,
/// newline included, so the zone, device, sequence number, export identifier, key id and
/// length are all authenticated: a segment moved to another device's folder, relabelled,
/// or copied under another sequence number fails (the reader also checks the header against
/// the file's place, and the sealed header against the outer one). `count` is 0: the number
/// of versions is inside. A part of a larger export (``Segment/Unit``) carries its unit's
/// members in both headers (the sealed one is then format 5), so that a device can tell its
/// own unfinished export apart without opening it. A file with fewer than `L` bytes after its header line is still
/// arriving; one with more is damaged. Fixtures/README.md, section 7, has it byte by byte.
enum SealedSegment {
  /// The header line, newline included: the associated data of the sealed bytes.
  static func headerLine(
    zone: String, device: DeviceID, sequence: Int64, export: String?, unit: Segment.Unit?,
    key: KeyID, sealedByteCount: Int
  ) -> [UInt8] {
    var header: JSONObject = [
      "format": .string("stash.segment"), "version": .integer(Segment.sealedFormatVersion),
      "zone": .string(zone), "device": .string(device.rawValue),
      "sequence": .integer(sequence), "count": .integer(0),
    ]
    if let export { header.append("export", .string(export)) }
    unit?.append(to: &header)
    header.append("key", .string(key.hex))
    header.append("sealed", .integer(Int64(sealedByteCount)))
    return JSONWriter.bytes(.object(["segment": .object(header)])) + [10]
  }

  /// Seals a segment's plain bytes (``Segment/encoded(lines:)``) with `key`.
  ///
  /// - Returns: The file's bytes.
  static func seal(
    _ plain: [UInt8], of segment: Segment, key: FolderKey
  ) throws(CryptoError) -> [UInt8] {
    let header = headerLine(
      zone: segment.zone, device: segment.device, sequence: segment.sequence,
      export: segment.export, unit: segment.unit, key: key.id,
      sealedByteCount: plain.count + SealingKey.overhead)
    return try header + key.sealingKey(for: .segments).seal(plain, associatedData: header)
  }

  /// Opens and reads a sealed segment whose header line is `header`.
  static func read(
    _ bytes: [UInt8], header: Segment.Header, schemas: SchemaRegistry,
    keyring: FolderKeyring?
  ) -> SegmentReading {
    guard let (keyID, byteCount) = header.sealed, let newline = bytes.firstIndex(of: 10) else {
      return .damaged("its sealed header is missing or damaged")
    }
    let sealed = bytes.count - newline - 1
    if sealed < byteCount {
      return .incomplete("it holds \(sealed) of its \(byteCount) sealed bytes so far")
    }
    guard sealed == byteCount else {
      return .damaged("it holds \(sealed) sealed bytes, more than the \(byteCount) it announces")
    }
    guard let keyring else {
      return .damaged("it is encrypted, and this device holds no key for this shared folder")
    }
    guard let key = keyring.key(for: keyID) else { return .missingKey(keyID) }
    let associated = Array(bytes[...newline])
    let plain: [UInt8]
    do {
      plain = try key.sealingKey(for: .segments).open(
        Array(bytes[(newline + 1)...]), associatedData: associated)
    } catch {
      return .damaged(
        "it failed authentication (changed, relabelled, or sealed without this folder's key); "
          + "it was not applied")
    }
    switch Segment.read(plain, schemas: schemas) {
    case .complete(var segment):
      guard segment.zone == header.zone, segment.device == header.device,
        segment.sequence == header.sequence, segment.export == header.export,
        segment.unit == header.unit
      else { return .damaged("its sealed header does not match its outer header") }
      segment.sealedWith = keyID
      return .complete(segment)
    case .incomplete(let reason), .damaged(let reason):
      return .damaged("its sealed contents are damaged: \(reason)")
    case .missingKey:
      return .damaged("its sealed contents are damaged")
    }
  }
}
