import MirrorStore
import StashModel

/// One export segment: a header line, then one line per version.
///
/// ```
/// {"segment":{"format":"stash.segment","version":3,"zone":Z,"device":D,"sequence":N,"count":K,
///   "name":device name or null,"written":seconds or null}}
/// {"id":…,"hash":…,"parents":[…],"generation":…,"author":…,"authoredAt":…,"snapshot":{…}}  × K
/// ```
/// Every version's hash is checked against its payload, and its id against its hash and
/// parents, when read; a segment with any bad line, a wrong count or another zone is rejected
/// whole. Format 1 segments (written before a version's id included its parents) are still
/// read: their versions have no `id`, and are identified by their snapshot hash.
struct Segment {
  /// The format version this code writes; it reads 1 (versions without ids), 2 (plain
  /// integer quantities) and 3 (counters, and the writer's name and time in the header).
  static let formatVersion = 3

  let zone: String
  let device: DeviceID
  let sequence: Int
  let versions: [MirrorVersion]
  /// The writing device's name, if the segment says (and it is a sensible one-line name).
  var deviceName: String? = nil
  /// When it was written, if the segment says.
  var written: Timestamp? = nil

  func encoded() -> [UInt8] {
    var out = [UInt8]()
    let header: JSONObject = [
      "format": .string("stash.segment"), "version": .integer(Int64(Self.formatVersion)),
      "zone": .string(zone),
      "device": .string(device.rawValue), "sequence": .integer(Int64(sequence)),
      "count": .integer(Int64(versions.count)),
      "name": deviceName.map { .string($0) } ?? .null,
      "written": written.map { .double($0.secondsSince1970) } ?? .null,
    ]
    JSONWriter.write(.object(["segment": .object(header)]), into: &out)
    out.append(10)
    for version in versions {
      JSONWriter.write(.object(version.json), into: &out)
      out.append(10)
    }
    return out
  }

  /// Reads and checks a segment.
  ///
  /// - Throws: A reason (for the import report) when anything is wrong.
  init(bytes: [UInt8], schemas: SchemaRegistry) throws(SegmentProblem) {
    guard bytes.last == 10 else {
      throw SegmentProblem("it does not end with a newline (truncated?)")
    }
    let lines = bytes.split(separator: 10, omittingEmptySubsequences: false).dropLast()
    guard let first = lines.first,
      case .object(let wrapper)? = try? JSONParser.parse(Array(first)),
      case .object(let header)? = wrapper["segment"],
      header["format"] == .string("stash.segment"),
      case .integer(let version)? = header["version"],
      case .string(let zone)? = header["zone"],
      case .string(let deviceText)? = header["device"], let device = DeviceID(deviceText),
      case .integer(let sequence)? = header["sequence"],
      case .integer(let count)? = header["count"]
    else { throw SegmentProblem("its header line is missing or damaged") }
    guard version <= Self.formatVersion else {
      throw SegmentProblem("it has format version \(version), newer than this stash reads")
    }
    guard version >= 1 else {
      throw SegmentProblem("it has format version \(version), which does not exist")
    }
    guard count == lines.count - 1 else {
      throw SegmentProblem("it announces \(count) versions but holds \(lines.count - 1) lines")
    }
    var versions = [MirrorVersion]()
    for (index, line) in lines.dropFirst().enumerated() {
      guard case .object(let object)? = try? JSONParser.parse(Array(line)) else {
        throw SegmentProblem("line \(index + 2) is not a JSON object")
      }
      do {
        versions.append(
          try MirrorVersion(json: object, schemas: schemas, format: Int(version)))
      } catch {
        throw SegmentProblem("line \(index + 2): \(error.message)")
      }
    }
    self.init(zone: zone, device: device, sequence: Int(sequence), versions: versions)
    if case .string(let name)? = header["name"], Self.isSensibleName(name) { deviceName = name }
    written = header["written"]?.exactDouble.flatMap { Timestamp(secondsSince1970: $0) }
  }

  /// A name another device gave itself is shown to people: one line, short, printable.
  static func isSensibleName(_ name: String) -> Bool {
    !name.isEmpty && name.count <= 200
      && !name.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
  }

  init(zone: String, device: DeviceID, sequence: Int, versions: [MirrorVersion]) {
    self.zone = zone
    self.device = device
    self.sequence = sequence
    self.versions = versions
  }

  /// The photos the versions' records refer to.
  var blobs: [BlobRef] {
    versions.flatMap { version -> [BlobRef] in
      guard let record = version.snapshot.record else { return [] }
      return record.values.compactMap { value in
        if case .blob(let blob) = value { return blob }
        return nil
      }
    }
  }
}

/// Why a segment was not applied.
struct SegmentProblem: Error {
  let reason: String
  init(_ reason: String) { self.reason = reason }
}
