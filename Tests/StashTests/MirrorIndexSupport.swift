import Foundation
import JSONLines
import MirrorStore
import StashBase
import StashModel
import StashTestSupport
import Testing

/// Random mirror histories for the mirror index's tests: versions of a few dozen records from
/// this device and another, with parents, concurrent leaves, repeats with higher generations
/// and tombstones; exports (pending, then exported), segments read, peers, transfers, zones.
struct MirrorHistory {
  static let start: Int64 = 1_764_441_600
  static let epoch = Timestamp(secondsSince1970: Double(start))!
  static let here = DeviceID("00000000-0000-4000-8000-00000000a11c")!
  static let other = DeviceID("00000000-0000-4000-8000-000000000b0b")!
  /// The index written at every save that reads the whole mirror, used whatever its tail.
  static let eager = MirrorStore.IndexPolicy(
    minimumVersions: 1, rewriteAfterBytes: 0, maximumTailBytes: 1 << 30, writesPerOpenStore: .max)
  /// The index written once, never again (its prefix falls behind), used whatever its tail.
  static let once = MirrorStore.IndexPolicy(
    minimumVersions: 1, rewriteAfterBytes: 1 << 40, maximumTailBytes: 1 << 30,
    writesPerOpenStore: .max)
  /// No index is ever written.
  static let never = MirrorStore.IndexPolicy(
    minimumVersions: .max, rewriteAfterBytes: 1 << 40, maximumTailBytes: 1 << 30)

  var random: SeededRandom
  let keys: [RecordKey]
  private var counter: Int64 = 0

  init(seed: UInt64, records: Int = 30) {
    random = SeededRandom(seed: seed)
    keys = (0..<records).map { number in
      let id = RecordID(String(format: "00000000-0000-4000-8000-%012x", number + 1))!
      return RecordKey(model: "item", id: id)
    }
  }

  static func open(
    _ folder: URL, storeID: StoreID, focus: Set<RecordKey>? = nil,
    policy: MirrorStore.IndexPolicy = never, compaction: CompactionPolicy = .standard
  ) throws -> MirrorStore {
    try MirrorStore.open(
      folder: folder.path, schemas: InventorySchemas.registry,
      lock: FolderLock(folder: folder.path), create: (here, epoch, storeID),
      compaction: compaction, focus: focus, indexPolicy: policy)
  }

  private mutating func time() -> Timestamp {
    counter += 1
    return Timestamp(secondsSince1970: Double(Self.start + counter))!
  }

  private mutating func snapshot(of key: RecordKey) -> Snapshot {
    let quantity = Int64.random(in: 0...20, using: &random)
    let record = Item(
      id: key.id, name: "Tube \(quantity)", quantity: quantity, createdAt: Self.epoch
    )
    .record
    if Int.random(in: 0..<10, using: &random) == 0 {
      return .tombstone(Tombstone(deleting: record, at: Self.epoch))
    }
    return .record(record)
  }

  /// Some of the known versions of `key`.
  private mutating func someParents(of key: RecordKey, in content: MirrorContent) -> Set<VersionID>
  {
    let known = (content.versions[key] ?? [:]).keys.sorted()
    guard !known.isEmpty else { return [] }
    let count = Int.random(in: 0...min(2, known.count), using: &random)
    return Set((0..<count).map { _ in known.randomElement(using: &random)! })
  }

  /// One transaction of a few random changes.
  mutating func step(_ mirror: MirrorStore) throws {
    try mirror.update { content, transaction in
      for _ in 0..<Int.random(in: 1...4, using: &random) {
        let key = keys.randomElement(using: &random)!
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<35:
          let parents =
            Bool.random(using: &random)
            ? content.leafIDs(of: key) : someParents(of: key, in: content)
          transaction.write(
            snapshot(of: key), parents: parents, author: Self.here, at: Self.epoch)
        case 35..<62:
          let parents = someParents(of: key, in: content)
          let generation =
            content.nextGeneration(after: parents, of: key)
            + Int64.random(in: 0...2, using: &random)
          transaction.merge(
            MirrorVersion(
              snapshot: snapshot(of: key), parents: parents, generation: generation,
              author: Self.other, authoredAt: Self.epoch))
        case 62..<70:
          guard
            let known = (content.versions[key] ?? [:]).values.sorted(by: { $0.id < $1.id })
              .randomElement(using: &random)
          else { continue }
          transaction.merge(
            MirrorVersion(
              snapshot: known.snapshot, parents: known.parents,
              generation: known.generation + 2, author: known.author,
              authoredAt: known.authoredAt))
        case 70..<82:
          let pending = content.pending.sorted().filter { _ in Bool.random(using: &random) }
          let segment = "devices/\(Self.here)/\(String(format: "%06d", counter)).jsonl"
          transaction.markExporting(segment: segment, export: "export-\(counter)")
          transaction.markExported(pending, segment: segment)
          _ = time()
        case 82..<88:
          transaction.markRead(segment: "devices/\(Self.other)/\(counter).jsonl")
          _ = time()
        case 88..<93:
          transaction.notePeer(Peer(device: Self.other, name: "other \(counter)", wroteAt: time()))
        case 93..<98:
          transaction.recordTransfer(Bool.random(using: &random) ? .import : .export, at: time())
        default:
          transaction.bindZone("zone-\(time().secondsSince1970)")
        }
      }
    }
  }

  /// A mirror with `steps` random transactions, with a zone and a segment read first (so that
  /// the index's state is never empty).
  mutating func build(
    _ folder: URL, storeID: StoreID, steps: Int, policy: MirrorStore.IndexPolicy = eager
  ) throws {
    let mirror = try Self.open(folder, storeID: storeID, policy: policy)
    try mirror.update { _, transaction in
      transaction.bindZone("zone-0")
      transaction.markRead(segment: "devices/\(Self.other)/000000.jsonl")
    }
    for _ in 0..<steps { try step(mirror) }
  }
}

/// Expects `focused` to hold what `whole` holds for `keys`, and all of what is not versions.
func expectSame(
  _ focused: MirrorContent, _ whole: MirrorContent, keys: Set<RecordKey>, _ note: String
) {
  #expect(focused.zone == whole.zone, "\(note): zone")
  #expect(focused.readSegments == whole.readSegments, "\(note): segments read")
  #expect(focused.exportedSegments == whole.exportedSegments, "\(note): segments exported")
  #expect(focused.exportIDs == whole.exportIDs, "\(note): export ids")
  #expect(focused.lastImport == whole.lastImport, "\(note): last import")
  #expect(focused.lastExport == whole.lastExport, "\(note): last export")
  #expect(focused.peers == whole.peers, "\(note): peers")
  #expect(focused.pending == whole.pending, "\(note): pending")
  #expect(
    Array(focused.pendingVersions) == Array(whole.pendingVersions), "\(note): pending versions")
  #expect(focused.versionCount == whole.versionCount, "\(note): version count")
  #expect(focused.liveChangeCount == whole.liveChangeCount, "\(note): live changes")
  for key in keys {
    #expect(focused.holdsEveryVersion(of: key), "\(note): \(key) is held")
    #expect(focused.versions[key] == whole.versions[key], "\(note): versions of \(key)")
    #expect(focused.leafIDs(of: key) == whole.leafIDs(of: key), "\(note): leaves of \(key)")
    #expect(focused.side(for: key).leaves == whole.side(for: key).leaves, "\(note): \(key)")
    let known = Array((whole.versions[key] ?? [:]).values)
    let leaves = whole.leafIDs(of: key)
    #expect(
      focused.nextGeneration(after: leaves, of: key)
        == whole.nextGeneration(after: leaves, of: key),
      "\(note): next generation of \(key)")
    for version in known {
      for other in known {
        #expect(
          focused.descends(version.id, fromSnapshot: other.hash, key: key)
            == whole.descends(version.id, fromSnapshot: other.hash, key: key),
          "\(note): descends in \(key)")
      }
    }
  }
}

/// Expects two whole contents to be the same mirror.
func expectSameWhole(_ a: MirrorContent, _ b: MirrorContent, _ note: String) {
  #expect(a.isComplete && b.isComplete, "\(note): both whole")
  #expect(a.versions == b.versions, "\(note): versions")
  expectSame(a, b, keys: Set(b.versions.keys), note)
}
