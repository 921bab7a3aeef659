import StashBase
import StashModel

/// The versions a mirror holds waiting to be exported, in ``VersionRef``'s order: read from
/// the mirror's table of records where they are as they are visited, not copied into a list.
///
/// It holds the order (for each version, where its record is in the mirror's table and where
/// its ref is in the pending set: 8 bytes) and shares the mirror's tables, which it keeps as
/// they were (a save after it copies what it changes). A list of the versions took 136 bytes
/// a version (13.6 MB at a first sync of 100,000 records, at its peak), and checking it before
/// the export copied it once more.
public struct PendingVersions: RandomAccessCollection, Sendable {
  private let versions: CompactDictionary<RecordKey, RecordVersions>
  private let refs: CompactSet<VersionRef>
  /// Where each version's record is in ``versions``, and its ref in ``refs``, in order.
  private let order: [(record: Int32, ref: Int32)]

  /// The pending versions of `content` (those it holds: a focused content may not).
  init(of content: MirrorContent) {
    versions = content.versions
    refs = content.pending
    // Sorted on plain values (each model's rank among the models, the ids): sorting the refs
    // themselves retained and released a model name at every move, 3% of a first sync of
    // 100,000 records.
    let models = Set(refs.lazy.map(\.key.model)).sorted()
    let rank = Dictionary(uniqueKeysWithValues: models.enumerated().map { ($1, $0) })
    var sorted = [(rank: Int, id: RecordID, version: VersionID, record: Int32, ref: Int32)]()
    sorted.reserveCapacity(refs.count)
    for (index, ref) in refs.enumerated() {
      guard let record = versions.position(of: ref.key),
        versions.withValue(at: record, { $0.contains(ref.id) })
      else { continue }
      sorted.append((rank[ref.key.model]!, ref.key.id, ref.id, Int32(record), Int32(index)))
    }
    sorted.sort { ($0.rank, $0.id, $0.version) < ($1.rank, $1.id, $1.version) }
    order = sorted.map { ($0.record, $0.ref) }
  }

  public var startIndex: Int { 0 }

  public var endIndex: Int { order.count }

  public subscript(position: Int) -> MirrorVersion {
    let (record, ref) = order[position]
    let id = refs[Int(ref)].id
    return versions.withValue(at: Int(record)) { $0[id] }!
  }

  /// How much room the order has (a test checks that it is all the collection holds).
  package var orderCapacity: Int { order.capacity }
}
