public import StashBase
public import StashModel

/// Segment files as another device (honest, buggy or hostile) could write them, built from
/// plain values so that tests can write what `CloudFolder` itself never would.
///
/// The layout is the one `Fixtures/README.md` documents: a header line, then one version per
/// line, each version's `hash` matching its snapshot and its `id` derived from the hash and
/// the parents (unless a test says otherwise), so that a version passes the integrity checks
/// and reaches the model's.
public enum HostileSegment {
  /// One version line's values.
  public struct Version: Sendable {
    public var snapshot: Snapshot
    public var generation: Int64
    public var parents: [VersionID]
    public var author: DeviceID
    /// The id the line claims; `nil` writes the one derived from the hash and the parents.
    public var id: VersionID?

    /// A version of `snapshot`.
    public init(
      _ snapshot: Snapshot, generation: Int64 = 1, parents: [VersionID] = [],
      author: DeviceID = DeviceID("0a0a0a0a-0000-4000-8000-000000000001")!, id: VersionID? = nil
    ) {
      self.snapshot = snapshot
      self.generation = generation
      self.parents = parents
      self.author = author
      self.id = id
    }

    var json: JSONObject {
      let id = id ?? VersionID.derive(snapshot: snapshot.hash, parents: Set(parents))
      return [
        "id": .string(id.hex), "hash": .string(snapshot.hash.hex),
        "parents": .array(parents.sorted().map { .string($0.hex) }),
        "generation": .integer(generation), "author": .string(author.rawValue),
        "authoredAt": .double(1_764_441_600), "snapshot": .object(snapshot.json),
      ]
    }
  }

  /// The bytes of a segment holding `versions` (announcing `count` of them, by default all).
  public static func bytes(
    zone: String, device: DeviceID, sequence: Int64 = 1, versions: [Version], count: Int? = nil
  ) -> [UInt8] {
    bytes(zone: zone, device: device, sequence: sequence, lines: versions.map(\.json), count: count)
  }

  /// The bytes of a segment whose version lines are `lines` (announcing `count` of them, by
  /// default all): the header `CloudFolder` writes, then one JSON object per line.
  public static func bytes(
    zone: String, device: DeviceID, sequence: Int64 = 1, lines: [JSONObject], count: Int? = nil
  ) -> [UInt8] {
    var out = [UInt8]()
    let header: JSONObject = [
      "format": .string("stash.segment"), "version": .integer(3), "zone": .string(zone),
      "device": .string(device.rawValue), "sequence": .integer(sequence),
      "count": .integer(Int64(count ?? lines.count)),
    ]
    JSONWriter.write(.object(["segment": .object(header)]), into: &out)
    out.append(10)
    for line in lines {
      JSONWriter.write(.object(line), into: &out)
      out.append(10)
    }
    return out
  }

  /// An item record with any values at all: the model's checks are not run.
  public static func item(
    id: RecordID = .make(), name: String = "Hostile", quantity: Int64 = 5, photo: BlobRef? = nil
  ) -> Record {
    let time = FieldValue.date(Timestamp(secondsSince1970: 1_764_441_600)!)
    return try! Record(
      schema: InventorySchemas.item, id: id,
      values: [
        .string(name), .none, .counter(Counter(base: quantity)), .string(""), .string(""),
        photo.map { .blob($0) } ?? .none, .none, .none, .none, time, time,
      ])
  }
}
