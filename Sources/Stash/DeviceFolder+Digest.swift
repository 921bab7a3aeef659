import CloudFolder
import JSONLines
import LocalStore
import MirrorStore
import StashBase
import StashFiles
public import StashModel

/// How one record differs between this device and the shared folder, as `sync verify` says.
public struct SyncDifference: Hashable, Sendable {
  /// Why the two differ, judged against the checkpoint (what both last agreed on).
  public enum Kind: String, Hashable, Sendable, CaseIterable {
    /// Changed on this device since they last agreed; the next sync sends it.
    case changedHere = "changed-here"
    /// Changed in the shared folder since they last agreed; the next sync applies it here.
    case changedThere = "changed-there"
    /// Changed on both sides: the next sync merges the stock moves, or records a conflict.
    case changedBoth = "changed-both"
    /// Only on this device (never sent, or not agreed on yet).
    case onlyHere = "only-here"
    /// Only in the shared folder (not applied here yet, or gone here without a deletion).
    case onlyThere = "only-there"
    /// The shared folder holds versions written at the same time on several devices.
    case concurrent
    /// This device has an open conflict on it, waiting for a decision.
    case openConflict = "open-conflict"
  }

  /// The record.
  public let key: RecordKey
  /// Its name (or a reminder's message) from either side, when it has one.
  public let name: String?
  /// Why it differs.
  public let kind: Kind
  /// This device's state: its row's hash, or its tombstone's; `nil` when it has neither.
  public let here: InventoryDigest.Entry?
  /// The shared folder's state (the winning version); `nil` when it has no version.
  public let there: InventoryDigest.Entry?
}

/// What `sync verify` found: both digests, every record that differs, and everything else that
/// keeps this device and the shared folder apart as far as this device can know.
public struct SyncVerification: Sendable {
  /// This device's digest.
  public let here: InventoryDigest
  /// The digest of what the shared folder holds (the mirror with unread segments merged).
  public let there: InventoryDigest
  /// Every record that differs, by model then id.
  public let differences: [SyncDifference]
  /// Versions this device wrote to its mirror that are not in the shared folder yet.
  public let pendingExports: Int
  /// Complete segments in the shared folder this device has not read yet.
  public let unreadSegments: Int
  /// Files in the shared folder still arriving (their records are not compared yet).
  public let waiting: [SharedFileNote]
  /// Files in the shared folder the next sync would reject (their records are not compared).
  public var rejected: [SharedFileNote] = []
  /// Other zones in the shared folder (a zone race): their data is not compared.
  public var otherZones: [OtherZone] = []
  /// Photos this device holds that the shared folder lacks.
  public var photosToPublish: [PhotoToPublish] = []

  /// Whether this device holds exactly what the shared folder holds: no record differs (an
  /// open conflict differs), nothing waits to be sent or to arrive, nothing is rejected, no
  /// other zone holds changes this device does not have, and no photo this device holds is
  /// missing there.
  public var isInSync: Bool {
    differences.isEmpty && pendingExports == 0 && here.overall == there.overall
      && waiting.isEmpty && rejected.isEmpty && photosToPublish.isEmpty
      && !otherZones.contains(where: \.hasLiveSegments)
  }
}

extension DeviceFolder {
  /// The digest of this device's inventory: every live row's and local tombstone's hash.
  ///
  /// Rehashes only the buckets whose records changed since a sync wrote the local index's
  /// digest section (see ``InventoryDigest/reusing(section:for:)``); without a usable one,
  /// all of them.
  public func digest() -> InventoryDigest {
    computeDigest().digest
  }

  /// ``digest()``, saying how it was computed: whether the index's digest section was used
  /// and how many buckets were rehashed (all non-empty ones without it).
  package func computeDigest() -> (digest: InventoryDigest, usedSection: Bool, rehashed: Int) {
    guard let content else { return (InventoryDigest(), false, 0) }
    return computeDigest(Self.entries(of: content))
  }

  func computeDigest(
    _ entries: CompactDictionary<RecordKey, InventoryDigest.Entry>
  ) -> (digest: InventoryDigest, usedSection: Bool, rehashed: Int) {
    if let section = local?.indexedDigest(),
      let (digest, rehashed) = InventoryDigest.reusing(section: section, for: entries)
    {
      return (digest, true, rehashed)
    }
    let digest = InventoryDigest(entries)
    let rehashed = digest.counts.keys.reduce(0) { total, model in
      total + (digest.buckets(of: model)?.count ?? 0)
    }
    return (digest, false, rehashed)
  }

  /// Writes the local index's digest section for the store as it is now (what `sync` does
  /// after its pass), when the store was read in full, has an index, and the section would
  /// change. A failure changes nothing: the index is derived.
  package func writeDigestSection() {
    startDigestSection()?.finish()
  }

  /// Starts computing the local index's digest section for the store as it is now on another
  /// core (reading the current one here first), for ``DigestSectionJob/finish()`` to write
  /// once the caller has done what it does meanwhile without changing the store (a sync's
  /// export); `nil` when the store was not read in full.
  func startDigestSection() -> DigestSectionJob? {
    guard let content, content.isComplete, let local else { return nil }
    let current = local.indexedDigest()
    // Where the file stands as this content describes it: the status section is bound to it.
    let position = local.committedPosition()
    return DigestSectionJob(
      store: local,
      bytes: Background {
        (
          Self.digestSection(of: content, current: current),
          position.map { ($0, LocalStore.unsentKeys(of: content)) }
        )
      })
  }

  /// The bytes the digest section should hold for `content`, given those it holds now; `nil`
  /// when it is current (or the digest cannot be written).
  static func digestSection(of content: LocalContent, current: [UInt8]?) -> [UInt8]? {
    let entries = entries(of: content)
    if let current, let (_, rehashed) = InventoryDigest.reusing(section: current, for: entries) {
      if rehashed == 0 { return nil }  // the section is current
    } else if entries.isEmpty {
      return nil  // nothing to write, and no section to bring up to date
    }
    // A digest built from a section keeps its clean buckets summarized and cannot be
    // written: write the one computed from every entry.
    return InventoryDigest.sectionBytes(of: entries)
  }

  /// Each record's state on this device: its row (the first in row order when an id has
  /// several), else its tombstone.
  static func entries(of content: LocalContent) -> CompactDictionary<
    RecordKey, InventoryDigest.Entry
  > {
    var entries = CompactDictionary<RecordKey, InventoryDigest.Entry>(
      minimumCapacity: content.rowsByKey.count + content.tombstones.count)
    for (key, tombstone) in content.tombstones {
      entries[key] = InventoryDigest.Entry(isTombstone: true, hash: tombstone.hash)
    }
    for (key, rows) in content.rowsByKey {
      guard let first = rows.min(), let row = content.rows[first] else { continue }
      entries[key] = InventoryDigest.Entry(isTombstone: false, hash: row.hash)
    }
    return entries
  }

  /// Each record's winning version in a mirror's content.
  static func entries(of mirror: MirrorContent) -> CompactDictionary<
    RecordKey, InventoryDigest.Entry
  > {
    var entries = CompactDictionary<RecordKey, InventoryDigest.Entry>(
      minimumCapacity: mirror.versions.count)
    for key in mirror.keys {
      guard let winner = mirror.side(for: key).winner else { continue }
      entries[key] = InventoryDigest.Entry(
        isTombstone: winner.snapshot.isTombstone, hash: winner.hash)
    }
    return entries
  }

  /// Compares this device with what the shared folder holds now: the mirror with every
  /// complete segment not read yet merged in memory. Nothing is written.
  ///
  /// - Returns: Both digests and every record that differs.
  /// - Throws: ``StashError`` when sync is off, the mirror cannot be used, or the shared
  ///   folder cannot be read.
  public func verify() throws(StashError) -> SyncVerification {
    let (mirror, cloud) = try folder.syncParts()
    let view: FolderView
    do throws(CloudError) {
      view = try cloud.view(of: mirror, deviceBlobs: blobs)
    } catch {
      throw StashError(error)
    }
    let local = content
    let hereEntries = local.map(Self.entries(of:)) ?? [:]
    let thereEntries = Self.entries(of: view.content)
    var differences = [SyncDifference]()
    for key in Set(hereEntries.keys).union(thereEntries.keys).sorted() {
      let here = hereEntries[key]
      let there = thereEntries[key]
      let concurrent = view.content.side(for: key).isConcurrent
      let open = local?.openConflicts(for: key).isEmpty == false
      guard here != there || concurrent || open else { continue }
      let kind: SyncDifference.Kind
      if open {
        kind = .openConflict
      } else if concurrent {
        kind = .concurrent
      } else if let checkpoint = local?.checkpoints[key],
        local?.checkpointMirror == mirror.storeID
      {
        let hereMoved = here?.hash != checkpoint.hash
        let thereMoved = there?.hash != checkpoint.hash
        kind = hereMoved && thereMoved ? .changedBoth : hereMoved ? .changedHere : .changedThere
      } else {
        kind = here == nil ? .onlyThere : there == nil ? .onlyHere : .changedBoth
      }
      differences.append(
        SyncDifference(
          key: key, name: name(of: key, local: local, mirror: view.content), kind: kind,
          here: here, there: there))
    }
    var verification = SyncVerification(
      here: computeDigest(hereEntries).digest, there: InventoryDigest(thereEntries),
      differences: differences, pendingExports: view.content.pending.count,
      unreadSegments: view.unreadSegments, waiting: view.waiting.map(SharedFileNote.init))
    verification.rejected = view.rejected.map(SharedFileNote.init)
    verification.otherZones = view.otherZones.map { OtherZone($0, thisZone: mirror.content.zone) }
    verification.photosToPublish = folder.lackingPhotos(mirror: mirror, cloud: cloud).map(
      PhotoToPublish.init)
    return verification
  }

  /// A record's name (its ``Record/lookupName``: an item's name, a reminder's message),
  /// from this device's row, else from the newest live version the mirror has.
  func name(of key: RecordKey, local: LocalContent?, mirror: MirrorContent?) -> String? {
    func name(_ record: Record?) -> String? { record?.lookupName }
    if let row = local?.rows(for: key).first, let found = name(row.record) { return found }
    let versions = mirror?.versions[key]?.values.filter { !$0.snapshot.isTombstone } ?? []
    let newest = versions.max { ($0.generation, $0.id) < ($1.generation, $1.id) }
    if let found = name(newest?.snapshot.record) { return found }
    if let tombstone = local?.tombstones[key],
      let deleted = mirror?.versions[key]?.values.first(
        where: { $0.hash == tombstone.deletedHash })
    {
      return name(deleted.snapshot.record)
    }
    return nil
  }
}

/// A digest section being computed on another core (``DeviceFolder/startDigestSection()``),
/// with the status section that goes with it.
struct DigestSectionJob {
  let store: LocalStore
  let bytes: Background<([UInt8]?, (position: StorePosition, pending: [RecordKey])?)>

  /// Waits for the bytes and writes them into the local index (without fsync: it is derived
  /// and checks itself); a failure changes nothing.
  func finish() {
    let (digest, status) = bytes.wait()
    store.replaceIndexedDigest(digest, status: status)
  }
}
