import MirrorStore
public import StashModel

/// Another zone seen in the shared folder: two devices turned sync on with their own empty
/// copies of the folder before the sync tool first ran, so each made a zone, and the tool then
/// put both zones' files in one folder (or the folder holds another account's files by
/// mistake).
///
/// Nothing of another zone is ever merged by itself: a person must say the two are one
/// inventory (the `Stash` facade's zone join). Its segments are not marked read while they
/// hold a version this device does not know: they are reported on every import, in the
/// folder's survey and view, and never called damaged. A segment of another zone whose every
/// version this device knows (its device joined this zone and wrote them again) is settled:
/// marked read, and no longer reported.
public struct ZoneSighting: Hashable, Sendable {
  /// The other zone's identifier.
  public let zone: String
  /// Whether the folder's `zone.json` names it (the sync tool kept that zone's file).
  public var namedByZoneFile = false
  /// Its segments holding versions this device does not know, relative to the folder.
  public var segments: [String] = []
  /// The devices that wrote them, by id.
  public var writers: [DeviceID: Writer] = [:]

  /// A device of the other zone, as its segments' headers describe it.
  public struct Writer: Hashable, Sendable {
    /// The name it gave itself, when its segments say.
    public var name: String?
    /// When it wrote its newest segment there, when its segments say.
    public var lastWrote: Timestamp?
    /// How many of its segments hold versions this device does not know.
    public var segments = 0
  }

  /// A sighting of `zone` with nothing in it yet.
  public init(zone: String) { self.zone = zone }

  /// Whether the other zone has segments with data this device does not hold (and not only a
  /// `zone.json` naming it).
  public var hasLiveSegments: Bool { !segments.isEmpty }

  mutating func add(_ segment: Segment, at path: String) {
    segments.append(path)
    var writer = writers[segment.device] ?? Writer()
    writer.segments += 1
    if let name = segment.writer.name, let written = segment.writer.written,
      writer.lastWrote.map({ written >= $0 }) ?? true
    {
      writer.name = name
    } else if writer.name == nil {
      writer.name = segment.writer.name
    }
    if let written = segment.writer.written, writer.lastWrote.map({ written > $0 }) ?? true {
      writer.lastWrote = written
    }
    writers[segment.device] = writer
  }
}

extension CloudFolder.ImportPlan {
  /// Sorts the segments of other zones found by an import: settled ones (every version known
  /// here, counting what this import merges) are marked read; the others are reported, by zone,
  /// and stay unread. A `zone.json` naming another zone is reported too, even without segments.
  mutating func sortOtherZones(
    _ found: [(path: String, segment: Segment)], binding: ZoneBinding, content: MirrorContent
  ) {
    var sightings = [String: ZoneSighting]()
    for (path, segment) in found {
      var scratch = ImportReport()
      let versions = CloudFolder.validVersions(of: segment, path: path, report: &scratch)
        .flatMap(\.1)
      if versions.allSatisfy(merge.knows) {
        markRead(path, in: content)
        continue
      }
      sightings[segment.zone, default: ZoneSighting(zone: segment.zone)].add(segment, at: path)
    }
    if let file = binding.zoneFile, file != binding.zone {
      sightings[file, default: ZoneSighting(zone: file)].namedByZoneFile = true
    }
    report.otherZones = sightings.keys.sorted().map { sightings[$0]! }
  }
}

extension CloudFolder {
  /// Segments this mirror marked read that were of another zone, by devices it never heard of
  /// in its own zone (no peer entry): an earlier version of this code marked such segments
  /// read after reporting them once. They are looked at again (their header line first), so
  /// that a zone race that began before this code is reported too.
  func readSegmentsOfOtherZones(
    _ content: MirrorContent, zone: String
  ) throws(CloudError) -> [String] {
    var found = [String]()
    let own = content.deviceID
    for path in content.readSegments.sorted() {
      let parts = path.split(separator: "/")
      guard parts.count == 3, parts[0] == "devices", let device = DeviceID(String(parts[1])),
        device != own, content.peers[device] == nil
      else { continue }
      let read: SharedFiles.Read
      do {
        read = try files.readPrefix(path, count: CloudLimits.headerBytes)
      } catch {
        continue
      }
      guard case .bytes(let prefix) = read, let header = Segment.Header.find(in: prefix),
        header.zone != zone
      else { continue }
      found.append(path)
    }
    return found
  }
}
