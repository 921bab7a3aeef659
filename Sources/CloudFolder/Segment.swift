import MirrorStore
import StashBase
import StashCrypto
import StashModel

/// One export segment: a header line, then one line per version.
///
/// ```
/// {"segment":{"format":"stash.segment","version":3,"zone":Z,"device":D,"sequence":N,"count":K,
///   "export":E,"name":device name,"written":seconds}}
/// {"id":…,"hash":…,"parents":[…],"generation":…,"author":…,"authoredAt":…,"snapshot":{…}}  × K
/// ```
/// `export` is a fresh identifier per segment that the writing mirror records before
/// publishing: it is how a device recognizes its own files (and a copy of itself that is not).
/// `name` and `written` say which device wrote it, in words, and when (shown to people; a name
/// that is not a sensible one-line text is ignored). Segments written before these existed
/// have none. Every version's hash is checked against its payload, and its id against its hash
/// and parents. Segments of format 1 (versions without ids, identified by their snapshot hash)
/// and 2 (plain integer quantities) are still read.
///
/// An export whose versions take more than one segment is one **unit** (``Unit``): each of its
/// segments is written in format 5, which adds `"unit":U,"part":I` to the header (and
/// `"last":true` to the last part), and a reader merges none of a unit's versions until every
/// part has arrived, so that a transaction never reaches another device in halves. An export
/// of one segment is written in format 3, as before, and is a unit by itself.
///
/// Reading classifies the bytes: complete, not complete yet (a sync tool still delivering
/// it: no final newline, or fewer lines than announced), or damaged (anything else wrong,
/// including a version whose hash does not match its payload). Only whole lines are parsed.
struct Segment {
  /// The format of a segment that is a whole export by itself: 3 (counters); this code reads
  /// 1 (versions without ids) and 2 (plain integer quantities) too.
  static let formatVersion: Int64 = 3
  /// The format of a segment that is one part of a larger export (``Unit``): format 3 with
  /// the unit's members in its header. Devices that read only up to format 4 refuse it,
  /// rather than merge half an export.
  static let unitFormatVersion: Int64 = 5
  /// The newest format this code reads.
  static let newestVersion: Int64 = 5
  /// The format of a sealed segment (an encrypted folder's): a header line naming the key and
  /// the sealed length, then a format-3 segment sealed with XChaCha20-Poly1305
  /// (``SealedSegment``).
  static let sealedFormatVersion: Int64 = 4

  let zone: String
  let device: DeviceID
  let sequence: Int64
  let versions: [MirrorVersion]
  /// The export identifier, when the writer recorded one.
  var export: String?
  /// The key the segment was sealed with, when it came from an encrypted folder.
  var sealedWith: KeyID?
  /// The export it is one part of, when that export took more than one segment.
  var unit: Unit?
  /// The writing device's name and when it wrote the segment, when the writer said.
  var writer: Writer

  /// Who wrote a segment, in words, and when.
  struct Writer: Hashable {
    var name: String?
    var written: Timestamp?

    static let unknown = Writer(name: nil, written: nil)
  }

  /// One export that took several segments: each names the unit (the export identifier of its
  /// first part) and its place in it, and the last one says it is the last. A reader merges
  /// the versions of a unit only once it holds parts 1 through the last, so that whatever one
  /// export sent (a transaction of any size, a cascade of deletions) arrives whole or not yet.
  struct Unit: Hashable {
    /// The unit's identifier.
    let id: String
    /// This segment's place in the unit, from 1.
    let part: Int64
    /// Whether this is the unit's last segment.
    let isLast: Bool

    /// The header members.
    func append(to header: inout JSONObject) {
      header.append("unit", .string(id))
      header.append("part", .integer(part))
      if isLast { header.append("last", .bool(true)) }
    }

    /// Reads the header members: `nil` when there are none, a problem when they are damaged.
    static func parse(_ header: JSONObject) -> Result<Unit?, SegmentProblem> {
      guard let member = header["unit"] else {
        return header["part"] == nil && header["last"] == nil
          ? .success(nil) : .failure(SegmentProblem("its unit is damaged"))
      }
      guard case .string(let id) = member, (1...64).contains(id.utf8.count),
        case .integer(let part)? = header["part"], (1...CloudLimits.sequence).contains(part)
      else { return .failure(SegmentProblem("its unit is damaged")) }
      switch header["last"] {
      case nil: return .success(Unit(id: id, part: part, isLast: false))
      case .bool(true)?: return .success(Unit(id: id, part: part, isLast: true))
      default: return .failure(SegmentProblem("its unit is damaged"))
      }
    }
  }

  init(
    zone: String, device: DeviceID, sequence: Int64, versions: [MirrorVersion],
    export: String? = nil, writer: Writer = .unknown, unit: Unit? = nil
  ) {
    self.zone = zone
    self.device = device
    self.sequence = sequence
    self.versions = versions
    self.export = export
    self.writer = writer
    self.unit = unit
  }

  /// The header line, without its newline.
  static func headerLine(
    zone: String, device: DeviceID, sequence: Int64, count: Int, export: String?,
    writer: Writer = .unknown, unit: Unit? = nil
  ) -> [UInt8] {
    var header: JSONObject = [
      "format": .string("stash.segment"),
      "version": .integer(unit == nil ? formatVersion : unitFormatVersion),
      "zone": .string(zone), "device": .string(device.rawValue),
      "sequence": .integer(sequence), "count": .integer(Int64(count)),
    ]
    if let export { header.append("export", .string(export)) }
    if let name = writer.name { header.append("name", .string(name)) }
    if let written = writer.written { header.append("written", .double(written.secondsSince1970)) }
    unit?.append(to: &header)
    return JSONWriter.bytes(.object(["segment": .object(header)]))
  }

  /// A name another device gave itself is shown to people: one line, short, printable.
  static func isSensibleName(_ name: String) -> Bool {
    !name.isEmpty && name.count <= 200
      && !name.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
  }

  /// One version's line, without its newline.
  static func line(of version: MirrorVersion) -> [UInt8] {
    var bytes = [UInt8]()
    bytes.reserveCapacity(512)
    version.appendJSON(to: &bytes)
    return bytes
  }

  /// The file's bytes.
  ///
  /// - Parameter lines: The versions' lines when already encoded (``line(of:)``).
  func encoded(lines: [[UInt8]]? = nil) -> [UInt8] {
    var out = Self.headerLine(
      zone: zone, device: device, sequence: sequence, count: versions.count, export: export,
      writer: writer, unit: unit)
    out.append(10)
    for line in lines ?? versions.map(Self.line(of:)) {
      out += line
      out.append(10)
    }
    return out
  }

  /// The photos the versions' records refer to.
  var blobs: [BlobRef] { versions.flatMap(\.blobs) }
}

extension MirrorVersion {
  /// The photos this version's record refers to.
  var blobs: [BlobRef] {
    guard let record = snapshot.record else { return [] }
    var blobs = [BlobRef]()
    record.forEachBlob { blobs.append($0) }
    return blobs
  }
}

/// What a segment file's bytes turned out to be.
enum SegmentReading {
  case complete(Segment)
  /// Not complete yet: read again later. The reason is for a person.
  case incomplete(String)
  /// Complete but wrong: never applied.
  case damaged(String)
  /// Sealed with a key this device does not hold (a newer one, after a rotation): read again
  /// once the key is entered.
  case missingKey(KeyID)
}

extension Segment {
  /// A segment's header values, range-checked.
  struct Header {
    let version: Int64
    let zone: String
    let device: DeviceID
    let sequence: Int64
    let count: Int
    let export: String?
    let writer: Writer
    /// The export this segment is a part of (format 5, and a sealed segment's outer header).
    var unit: Segment.Unit?
    /// The key a sealed segment (format 4) is sealed with, and how many sealed bytes follow
    /// the header line.
    var sealed: (key: KeyID, byteCount: Int)?

    /// Reads a header line.
    static func parse(_ line: some Collection<UInt8>) -> Result<Header, SegmentProblem> {
      guard case .object(let wrapper)? = try? JSONParser.parse(Array(line)),
        case .object(let header)? = wrapper["segment"],
        header["format"] == .string("stash.segment"),
        case .integer(let version)? = header["version"],
        case .string(let zone)? = header["zone"], !zone.isEmpty, zone.utf8.count <= 64,
        case .string(let deviceText)? = header["device"], let device = DeviceID(deviceText),
        case .integer(let sequence)? = header["sequence"],
        case .integer(let count)? = header["count"]
      else { return .failure(SegmentProblem("its header line is missing or damaged")) }
      guard version >= 1 else {
        return .failure(SegmentProblem("it has format version \(version), which does not exist"))
      }
      guard version <= Segment.newestVersion else {
        return .failure(
          SegmentProblem(
            "it has format version \(version), newer than this stash reads; update stash "
              + "on this device"))
      }
      guard (1...CloudLimits.sequence).contains(sequence) else {
        return .failure(SegmentProblem("its sequence number \(sequence) is out of range"))
      }
      guard (0...CloudLimits.segmentBytes).contains(count) else {
        return .failure(SegmentProblem("its version count \(count) is out of range"))
      }
      var export: String?
      switch header["export"] {
      case nil, .null?: export = nil
      case .string(let text)? where (1...64).contains(text.utf8.count): export = text
      default: return .failure(SegmentProblem("its export identifier is damaged"))
      }
      var writer = Writer.unknown
      if case .string(let name)? = header["name"], Segment.isSensibleName(name) {
        writer.name = name
      }
      writer.written = header["written"]?.exactDouble.flatMap {
        Timestamp(secondsSince1970: $0)
      }
      var parsed = Header(
        version: version, zone: zone, device: device, sequence: sequence, count: Int(count),
        export: export, writer: writer)
      if version >= Segment.sealedFormatVersion {
        switch Segment.Unit.parse(header) {
        case .success(let unit): parsed.unit = unit
        case .failure(let problem): return .failure(problem)
        }
        if version == Segment.unitFormatVersion, parsed.unit == nil {
          return .failure(SegmentProblem("its unit is missing"))
        }
      }
      if version == Segment.sealedFormatVersion {
        guard case .string(let keyText)? = header["key"], let key = KeyID(hex: keyText),
          case .integer(let sealedCount)? = header["sealed"],
          (Int64(SealingKey.overhead)...CloudLimits.segmentBytes).contains(sealedCount)
        else { return .failure(SegmentProblem("its sealed header is missing or damaged")) }
        parsed.sealed = (key, Int(sealedCount))
      }
      return .success(parsed)
    }

    /// The header of the file whose first bytes are `prefix`, or `nil` when its first line
    /// is not complete or not a header.
    static func find(in prefix: [UInt8]) -> Header? {
      guard let end = prefix.firstIndex(of: 10) else { return nil }
      return try? parse(prefix[..<end]).get()
    }
  }

  /// `bytes.split(separator: 10, omittingEmptySubsequences: false)`, in one plain pass over
  /// the bytes (the generic split cost about 5,000 instructions per version line).
  static func lines(of bytes: [UInt8]) -> [ArraySlice<UInt8>] {
    var lines = [ArraySlice<UInt8>]()
    var start = 0
    bytes.withUnsafeBufferPointer { buffer in
      for index in buffer.indices where buffer[index] == 10 {
        lines.append(bytes[start..<index])
        start = index + 1
      }
    }
    lines.append(bytes[start...])
    return lines
  }

  /// Reads and classifies a segment file's bytes.
  ///
  /// - Parameters:
  ///   - bytes: The whole file (already checked against ``CloudLimits/segmentBytes``).
  ///   - schemas: Where records' models are looked up.
  ///   - keyring: The folder's keys when it is encrypted: then only sealed segments are read.
  static func read(
    _ bytes: [UInt8], schemas: SchemaRegistry, keyring: FolderKeyring? = nil
  ) -> SegmentReading {
    guard !bytes.isEmpty else { return .incomplete("it is still empty") }
    if let newline = bytes.firstIndex(of: 10),
      case .success(let header) = Header.parse(bytes[..<newline])
    {
      if header.sealed != nil {
        return SealedSegment.read(bytes, header: header, schemas: schemas, keyring: keyring)
      }
      if keyring != nil {
        return .damaged(
          "it is not sealed: this shared folder is encrypted, so a plain segment is never "
            + "applied")
      }
    }
    if keyring != nil, bytes.firstIndex(of: 10) != nil {
      return .damaged("it is not a sealed segment: its header line is missing or damaged")
    }
    var lines = Self.lines(of: bytes)
    // The piece after the last newline: empty for a complete file, else a line still arriving.
    let partialTail = !lines.removeLast().isEmpty
    guard let first = lines.first else {
      let start = Array(#"{"segment":"#.utf8)
      return start.starts(with: bytes.prefix(start.count))
        ? .incomplete("its first line has not fully arrived")
        : .damaged("it does not start with a segment header")
    }
    let header: Header
    switch Header.parse(first) {
    case .success(let parsed): header = parsed
    case .failure(let problem): return .damaged(problem.reason)
    }
    guard header.sealed == nil else {
      return .damaged("its sealed part is itself sealed")
    }
    let body = lines.dropFirst()
    guard body.count + (partialTail ? 1 : 0) <= header.count else {
      return .damaged("it holds more lines than the \(header.count) versions it announces")
    }
    // Each line on its own, on every core; the first bad line (in file order) is the answer.
    let bodyLines = Array(body)
    let format = Int(header.version)
    let decoded = Parallel.map(count: bodyLines.count) {
      index -> Result<MirrorVersion, SegmentProblem> in
      // The line as its writer writes it, read straight from its bytes; anything else (and
      // every error) through its tree (issue 26, item 5).
      if let version = bodyLines[index].withUnsafeBytes({
        MirrorVersion.read(line: $0, schemas: schemas, format: format)
      }) {
        return .success(version)
      }
      guard case .object(let object)? = try? JSONParser.parse(Array(bodyLines[index])) else {
        return .failure(SegmentProblem("line \(index + 2) is not a JSON object"))
      }
      do throws(ModelError) {
        return .success(try MirrorVersion(json: object, schemas: schemas, format: format))
      } catch {
        return .failure(SegmentProblem("line \(index + 2): \(error.message)"))
      }
    }
    var versions = [MirrorVersion]()
    versions.reserveCapacity(decoded.count)
    for result in decoded {
      switch result {
      case .success(let version): versions.append(version)
      case .failure(let problem): return .damaged(problem.reason)
      }
    }
    guard versions.count == header.count, !partialTail else {
      return .incomplete(
        "it holds \(versions.count) of its \(header.count) versions so far")
    }
    return .complete(
      Segment(
        zone: header.zone, device: header.device, sequence: header.sequence,
        versions: versions, export: header.export, writer: header.writer, unit: header.unit))
  }
}

/// Why a segment was not applied.
struct SegmentProblem: Error {
  let reason: String
  init(_ reason: String) { self.reason = reason }
}
