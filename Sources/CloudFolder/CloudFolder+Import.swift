import JSONLines
public import MirrorStore
import StashBase
import StashCrypto
public import StashFiles
public import StashModel

/// What an import did.
public struct ImportReport: Hashable, Sendable {
  /// An empty report.
  public init() {}

  /// Segments read whole (and marked read: they are not read again).
  public var segmentsRead = 0
  /// Versions the mirror did not know before.
  public var versionsImported = 0
  /// Photos copied from the shared folder.
  public var blobsCopied = 0
  /// What was not applied because it is wrong: a damaged or oversized segment, a version whose
  /// hash does not match its payload, a damaged photo, a link or special file where a segment
  /// or folder should be (all read again next time, in case a good copy arrives), an invalid
  /// version (never applied; reported once).
  public var rejected: [Rejection] = []
  /// Other zones whose segments hold versions this device does not know (a zone race, or
  /// another account's files): never merged, never marked read, reported on every import;
  /// and the zone `zone.json` names when it is not this device's.
  public var otherZones: [ZoneSighting] = []
  /// What is not complete yet (a segment or a photo the sync tool is still delivering): read
  /// again next time, and only the records that need it are held back.
  public var waiting: [Rejection] = []
  /// The import wrote nothing (nor copied a photo) because the mirror was opened for a few
  /// records, or the caller limited it to some, and what the folder holds reaches past them
  /// (see ``CloudFolder/importNew(into:deviceBlobs:at:within:post:progress:)``):
  /// ``recordsToLoad`` says which records the stores must hold for the import to go on.
  public var heldBack = false
  /// When held back: the records a mirror must hold every version of for this import to run;
  /// empty when only the whole mirror can take it (another zone's segments to sort).
  public var recordsToLoad: Set<RecordKey> = []
  /// The records whose versions this import merged (a pass over the records changed since a
  /// clean sync must look at these too).
  public var recordsMerged: Set<RecordKey> = []
  /// Keys this device lacks: segments sealed with them wait (and are read once the key is
  /// entered), by id.
  public var missingKeys: [String] = []

  /// A file (and the part of it) that was not applied, and why.
  public struct Rejection: Hashable, Sendable, CustomStringConvertible {
    /// The file, relative to the shared folder.
    public let segment: String
    /// Why.
    public let reason: String

    public var description: String { "'\(segment)': \(reason)" }
  }
}

extension CloudFolder {
  /// Reads the segments this mirror has not read and merges their versions into it.
  ///
  /// Temporary and partial names (`.*`, `*.tmp`, `~*`) are ignored; "conflicted copy"
  /// duplicates made by sync tools are read like any segment, harmlessly. Each file is read
  /// as untrusted input (see ``CloudLimits``). A segment with a damaged line or a hash that
  /// does not match its payload is rejected whole; one still arriving waits. Every version
  /// passes the checks a local edit gets or is rejected alone; a record whose photo is still
  /// arriving (or damaged) waits alone, while the segment's other records are merged, and the
  /// segment is marked read only once all of it is in. The result does not depend on the order
  /// segments arrive in, nor on repeats: merging a known version again writes nothing.
  ///
  /// - Parameters:
  ///   - mirror: The mirror to merge into.
  ///   - deviceBlobs: This device's photos (photos of merged records are copied there).
  ///   - time: When, for `sync status`.
  ///   - records: The records the caller can take versions of (`nil`: all). An import into a
  ///     mirror opened for a few records, or limited to some, writes nothing (nor copies a
  ///     photo) when the folder holds versions of others: the report says
  ///     ``ImportReport/heldBack`` and which records it needs (``ImportReport/recordsToLoad``).
  ///   - post: Receives the import's started and finished events: the finished, successful one
  ///     is what opens the sync coordinator's gate.
  /// - Returns: What was read.
  /// - Throws: ``CloudError`` when the folder is unreachable, its zone file cannot be used or
  ///   belongs to another zone, or the mirror cannot be saved; the mirror is then unchanged and
  ///   the finished event reports the failure.
  @discardableResult
  public func importNew(
    into mirror: MirrorStore, deviceBlobs: BlobStore, at time: Timestamp,
    within records: Set<RecordKey>? = nil, post: (MirrorEvent) -> Void = { _ in },
    progress: (_ read: Int, _ total: Int) -> Void = { _, _ in }
  ) throws(CloudError) -> ImportReport {
    try reporting(.import, for: mirror, post: post) { () throws(CloudError) in
      try importSegments(
        into: mirror, deviceBlobs: deviceBlobs, at: time, within: records, progress: progress)
    }
  }

  private func importSegments(
    into mirror: MirrorStore, deviceBlobs: BlobStore, at time: Timestamp,
    within records: Set<RecordKey>?, progress: (Int, Int) -> Void
  ) throws(CloudError) -> ImportReport {
    let binding = try bind(mirror)
    let content = mirror.content
    // A mirror opened for a few records can only tell what is new about those, and a caller
    // may only take some: the plan is checked against them before any photo is copied (see
    // ``heldBack(_:content:within:)``).
    let limited = !content.isComplete || records != nil
    var photos = PhotoCheck(files: files, deviceBlobs: deviceBlobs, copying: !limited)
    var plan = try planImport(content, binding: binding, photos: &photos, progress: progress)
    if limited {
      if let held = Self.heldBack(plan, content: content, within: records) { return held }
      if plan.merge.versions.contains(where: { !$0.blobs.isEmpty }) {
        photos = PhotoCheck(files: files, deviceBlobs: deviceBlobs, copying: true)
        plan = try planImport(content, binding: binding, photos: &photos)
        if let held = Self.heldBack(plan, content: content, within: records) { return held }
      }
    }
    plan.report.blobsCopied = photos.copied
    plan.report.recordsMerged = Set(plan.merge.versions.map(\.key))
    // Nothing new: nothing to write (a repeated import, or only waiting and rejected files,
    // leaves the mirror byte for byte as it was).
    guard !plan.merge.versions.isEmpty || !plan.read.isEmpty || !plan.peers.isEmpty else {
      return plan.report
    }
    try save(mirror) { _, transaction in
      // Each was checked against its hash, and its id against its hash and parents, when
      // its segment was read above (``Segment/read(_:schemas:keyring:)``).
      // Each was checked whole when its segment was read (its hash, id and importProblem).
      for version in plan.merge.versions {
        transaction.merge(version, identityChecked: true, modelChecked: true)
      }
      for path in plan.read { transaction.markRead(segment: path) }
      for device in plan.peers.keys.sorted() { transaction.notePeer(plan.peers[device]!) }
      transaction.recordTransfer(.import, at: time)
    }
    plan.report.segmentsRead = plan.read.count
    plan.report.versionsImported = plan.merge.fresh
    return plan.report
  }

  /// The records a mirror opened for a few records (or an import limited to `records`) lacks
  /// for an import now: what ``importNew(into:deviceBlobs:at:within:post:progress:)`` would
  /// hold back for (``ImportReport/recordsToLoad``; empty: only the whole mirror will do), or
  /// `nil` when it would run. Reads the new segments and writes, copies and reports nothing
  /// (no event, no clock): a sync asks before it runs, so that a sync opened for too few
  /// records does nothing at all before it opens the stores again for more.
  public func recordsToLoad(
    into mirror: MirrorStore, deviceBlobs: BlobStore, within records: Set<RecordKey>?
  ) -> Set<RecordKey>? {
    let content = mirror.content
    guard !content.isComplete || records != nil else { return nil }
    guard let binding = try? lookingBinding(of: content) else { return [] }
    var photos = PhotoCheck(files: files, deviceBlobs: deviceBlobs, copying: false)
    guard let plan = try? planImport(content, binding: binding, photos: &photos) else { return [] }
    return Self.heldBack(plan, content: content, within: records)?.recordsToLoad
  }

  /// The report of an import that must write nothing: `plan` merges versions of records the
  /// mirror does not hold (opened for a few records: ``MirrorContent/focusedKeys``; it cannot
  /// tell what is new about the others) or that are not among `records` (what the caller can
  /// pass over: a local store opened for those only), or sorts segments of another zone (which
  /// needs every version); `nil` when the plan stays within both, where it decides exactly as
  /// over the whole mirror.
  static func heldBack(
    _ plan: ImportPlan, content: MirrorContent, within records: Set<RecordKey>?
  ) -> ImportReport? {
    let outside = Set(
      plan.merge.versions.lazy.map(\.key).filter {
        !content.holdsEveryVersion(of: $0) || !(records?.contains($0) ?? true)
      })
    let otherZone = plan.report.otherZones.contains(where: \.hasLiveSegments)
    guard !outside.isEmpty || otherZone else { return nil }
    var report = ImportReport()
    report.heldBack = true
    report.recordsToLoad = otherZone ? [] : outside
    return report
  }

  /// What an import would merge and mark read, and what it reports.
  struct ImportPlan {
    var report = ImportReport()
    var merge: MergeSet
    var read: [String] = []
    /// What the segments read say of other devices, where it is news.
    var peers: [DeviceID: Peer] = [:]

    /// Notes what a segment's header says of the device that wrote it.
    mutating func note(_ segment: Segment, in content: MirrorContent) {
      guard segment.device != content.deviceID else { return }
      let device = segment.device
      let updated = Peer.updated(
        peers[device] ?? content.peers[device], device: device, name: segment.writer.name,
        wroteAt: segment.writer.written)
      if updated != content.peers[device] { peers[device] = updated }
    }

    /// Marks `path` read, unless it already is (this device's own folder's segments written
    /// by a copy of it are read again on every sync while the copy is there, harmlessly).
    mutating func markRead(_ path: String, in content: MirrorContent) {
      if !content.readSegments.contains(path) { read.append(path) }
    }
  }

  /// Reads every unread segment and decides what to merge; writes nothing. `progress` is told
  /// after each segment how many of the unread ones were read.
  func planImport(
    _ content: MirrorContent, binding: ZoneBinding, photos: inout PhotoCheck,
    progress: (_ read: Int, _ total: Int) -> Void = { _, _ in }
  ) throws(CloudError) -> ImportPlan {
    let zone = binding.zone
    var plan = ImportPlan(merge: MergeSet(content: content))
    // Segments under this device's own id that it did not write come from a copy of this
    // device folder (a restored backup). They are not read until this folder has an identity
    // of its own (a new identity): the copy's stock moves are tallied under the
    // same device id as this one's, and merging the two would keep only the larger tally,
    // losing moves. After the new identity they are another device's, and read.
    let foreign = Set(try surveyOwnFolder(content).foreign)
    let unread = try unreadSegments(
      content, report: &plan.report,
      alsoReading: try readSegmentsOfOtherZones(content, zone: zone)
    ).filter { !foreign.contains($0) }
    var otherZones = [(path: String, segment: Segment)]()
    // The keys the folder names: a segment sealed with another key this device lacks is
    // nobody's of this folder (rejected), not a rotation it was not given yet (waiting).
    let announced = keyring == nil ? [] : Set(namedKeys())
    let lacking = announced.subtracting(keyring?.ids ?? [])
    let retired = keyring == nil ? [:] : retirements()
    if !lacking.isEmpty {
      // A rotation this device was not given: it reads nothing until it holds the key (what
      // a revoked device wrote with an old key cannot be told apart without it).
      plan.report.missingKeys = lacking.map(\.hex).sorted()
      return plan
    }
    var ours = [(path: String, segment: Segment)]()
    for (index, path) in unread.enumerated() {
      defer { progress(index + 1, unread.count) }
      guard
        let segment = try segment(
          at: path, content: content, announced: announced, retired: retired,
          report: &plan.report)
      else {
        continue
      }
      if segment.zone != zone {
        // Sorted once this import's own versions are known (see ``ZoneSighting``).
        otherZones.append((path, segment))
        continue
      }
      ours.append((path, segment))
    }
    try holdBackPartialUnits(&ours, content: content, report: &plan.report)
    plan.merge.reserveCapacity(ours.reduce(0) { $0 + $1.segment.versions.count })
    // In order, each segment let go of once merged.
    ours.reverse()
    while let (path, segment) = ours.popLast() {
      var complete = true
      for (key, versions) in Self.validVersions(of: segment, path: path, report: &plan.report) {
        if photos.holdsBack(versions, of: key, in: path, report: &plan.report) {
          complete = false
          continue
        }
        for version in versions { plan.merge.add(version) }
      }
      if complete {
        plan.markRead(path, in: content)
        plan.note(segment, in: content)
      }
    }
    plan.sortOtherZones(otherZones, binding: binding, content: content)
    return plan
  }

  /// The segment's versions that pass the checks a local edit gets, by record; every other
  /// one is reported.
  static func validVersions(
    of segment: Segment, path: String, report: inout ImportReport
  ) -> [(RecordKey, [MirrorVersion])] {
    var byKey = [RecordKey: [MirrorVersion]]()
    var order = [RecordKey]()
    // Each version checked on its own (its hash, id and model), on every core.
    let versions = segment.versions
    let problems = Parallel.map(count: versions.count) { versions[$0].importProblem() }
    for (version, problem) in zip(versions, problems) {
      if let problem {
        report.rejected.append(
          .init(
            segment: path,
            reason: "version '\(version.hash.short)' of \(version.key.model) "
              + "'\(version.key.id.rawValue.prefix(8))' is invalid and was not applied: "
              + problem.prefix(300)))
        continue
      }
      if byKey[version.key] == nil { order.append(version.key) }
      byKey[version.key, default: []].append(version)
    }
    return order.map { ($0, byKey[$0]!) }
  }

  /// Every segment in the folder this mirror has not read (and `alsoReading`), in a stable
  /// order; entries that are not real folders are reported and skipped.
  private func unreadSegments(
    _ content: MirrorContent, report: inout ImportReport, alsoReading extra: [String]
  ) throws(CloudError) -> [String] {
    var found = [String]()
    do {
      let devices: [String]
      switch try files.list("devices") {
      case .missing: return extra
      case .notAFolder(let path, let kind):
        report.rejected.append(
          .init(segment: path, reason: "it is a \(kind.noun), not a folder; nothing in it was read")
        )
        return []
      case .names(let names): devices = names.sorted()
      }
      for device in devices where DeviceID(device) != nil {
        let folder = "devices/" + device
        switch try files.list(folder) {
        case .missing: continue
        case .notAFolder(let path, let kind):
          report.rejected.append(
            .init(segment: path, reason: "it is a \(kind.noun), not a folder; it was not read"))
        case .names(let names):
          for name in names.sorted() where Self.isSegmentName(name) {
            let path = folder + "/" + name
            if !content.readSegments.contains(path) { found.append(path) }
          }
        }
      }
    } catch {
      throw .unreachable(root, error.reason)
    }
    let listed = Set(found)
    return found + extra.filter { !listed.contains($0) }
  }
}

/// The versions an import merges: only those that change the mirror, so that reading a
/// segment again (one still waiting for a photo, a conflicted copy) writes nothing.
struct MergeSet {
  let content: MirrorContent
  private(set) var versions: [MirrorVersion] = []
  /// How many of them the mirror did not know at all.
  private(set) var fresh = 0
  /// The versions added that the mirror did not know (a second device's import adds a
  /// million: a `Set` of them took 128 MB, and hashed each again at every doubling).
  private var seen = CompactSet<VersionRef>()

  init(content: MirrorContent) { self.content = content }

  /// Makes room for `count` versions in all, so that adding them grows nothing.
  mutating func reserveCapacity(_ count: Int) {
    versions.reserveCapacity(count)
    seen.reserveCapacity(count)
  }

  /// Whether the mirror, or this set, holds `version` (by id: the same snapshot and parents).
  func knows(_ version: MirrorVersion) -> Bool {
    content.version(version.id, of: version.key) != nil || seen.contains(version.ref)
  }

  mutating func add(_ version: MirrorVersion) {
    let ref = version.ref
    let known = content.version(version.id, of: version.key)
    // A known id holds the same snapshot and parents (a format-1 version may bring parents of
    // its own); only a higher generation would be news.
    if let known, known.parents.isSuperset(of: version.parents),
      known.generation >= version.generation
    {
      return
    }
    if known == nil, seen.insert(ref) { fresh += 1 }
    versions.append(version)
  }
}

extension CloudFolder {
  /// Whether the folder holds nothing an import into `content` would read now: it is the
  /// mirror's folder (``binding(of:zone:)``) and every segment in it was read or exported by
  /// the mirror.
  ///
  /// The sync seal asks this after taking its fingerprint of the folder: a segment another
  /// device published after this run's import listed the folder is in the fingerprint but not
  /// in the mirror, and a seal written then would make the next sync skip it.
  ///
  /// - Returns: `false` also when the folder cannot be read.
  public func holdsNothingUnseen(by content: MirrorContent) -> Bool {
    // The mirror's zone: `zone.json` may name another one the sync tool kept (a note only).
    guard content.zone != nil, (try? lookingBinding(of: content)) != nil else { return false }
    var report = ImportReport()
    guard let unread = try? unreadSegments(content, report: &report, alsoReading: []),
      report.rejected.isEmpty
    else { return false }
    let exported = Set(content.exportedSegments)
    return unread.allSatisfy { exported.contains($0) }
  }
}
