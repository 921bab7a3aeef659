import StashBase
public import StashModel
import Synchronization

/// A version of the mirror's own file that cannot be trusted: its content does not match its
/// hash, its id does not derive from its hash and parents, or its record fails its model's
/// checks.
///
/// The mirror's lines are protected by checksums, so only a hand edit or another tool writes
/// such a version. Opening does not re-hash every version (that would cost every command the
/// whole file); a version is checked when it would leave the mirror, by an export, a pass
/// that applies it, or a resolution, and ``MirrorContent/checkInvariants()`` checks them all.
public struct UntrustedVersion: Error, Hashable, Sendable, CustomStringConvertible {
  /// The mirror file.
  public let path: String
  /// The version.
  public let version: VersionID
  /// The record it is a version of.
  public let key: RecordKey
  /// What is wrong with it, for a person.
  public let problem: String

  public var description: String {
    "The mirror '\(path)' is damaged: version '\(version.short)' of \(key.model) "
      + "'\(key.id.rawValue.prefix(8))' \(problem), so it was not copied anywhere. The mirror "
      + "is a copy: remove '\(path)' and the next sync starts it over (it uploads this "
      + "inventory again and reads the shared folder again)"
  }
}

extension MirrorVersion {
  /// What makes this version untrustworthy, or `nil` when it is sound: content that does not
  /// match its hash, an id that does not derive from its hash and parents (format-1 versions
  /// excepted, whose id is their hash), or a record that fails its model's checks.
  public var integrityProblem: String? { identityProblem ?? modelProblem }

  /// Content that does not match its hash, or an id that does not derive from its hash and
  /// parents.
  var identityProblem: String? {
    let actual = snapshot.hash
    if actual != hash { return "does not match its content (which hashes to '\(actual.short)')" }
    if !isLegacy && VersionID.derive(snapshot: hash, parents: parents) != id {
      return "has an id that does not derive from its content and parents"
    }
    return nil
  }

  /// A record that fails its model's checks.
  var modelProblem: String? {
    if let record = snapshot.record {
      do {
        try record.schema.validate(record)
      } catch {
        return "fails its model's checks (\(error.message))"
      }
    }
    return nil
  }
}

extension MirrorStore {
  /// Checks `versions` before they leave the mirror (exported, applied, or kept by a
  /// resolution).
  ///
  /// - Throws: ``UntrustedVersion`` for the first that cannot be trusted.
  ///
  /// A version this process saved since the last check, whose hash and id it computed from
  /// that snapshot or checked against it (``MirrorTransaction/write(_:author:at:)``,
  /// ``MirrorTransaction/merge(_:identityChecked:modelChecked:)``), and that the content still
  /// holds as it was saved, has only its record checked against its model (and not even that
  /// when the save checked it: an import's): hashing it again would compute what this run
  /// computed from the same bytes. Every other version, including one
  /// the content read from the file since, is checked whole. Each call starts the record of
  /// such versions afresh.
  public func verify(_ versions: some Sequence<MirrorVersion>) throws(UntrustedVersion) {
    try versionCheck().verify(versions)
  }

  /// ``verify(_:)`` of an export's versions, read in place, without a copy of them all.
  public func verify(_ versions: PendingVersions) throws(UntrustedVersion) {
    try versionCheck().verify(versions)
  }

  /// Starts a check of versions that leave the mirror in several batches, each checked as
  /// ``verify(_:)`` checks them: checking the batches in order is one ``verify(_:)`` of all of
  /// them, without holding them all at once.
  ///
  /// - Returns: The check; it takes the record of the versions saved since the last check,
  ///   which starts afresh.
  public func versionCheck() -> VersionCheck {
    let saved = checkedIdentities.withLock { checked in
      defer { checked = [] }
      return checked
    }
    return VersionCheck(path: path, saved: saved)
  }

  /// Notes the versions at `indexes` of `changes`, as saved (see ``checkedIdentities``).
  func noteCheckedIdentities(
    _ indexes: [(index: Int, modelChecked: Bool)], in changes: [MirrorChange]
  ) {
    checkedIdentities.withLock { $0.append(SavedIdentities(changes: changes, indexes: indexes)) }
  }
}

/// The versions one save wrote whose identity this process computed or checked: the save's
/// changes, shared (a first sync's million versions were copied out of them one by one), and
/// where those versions are among them, with whether each record was checked against its
/// model too (an import's is, and is not again).
struct SavedIdentities: Sendable {
  let changes: [MirrorChange]
  let indexes: [(index: Int, modelChecked: Bool)]

  /// The version at `entry` of ``indexes``, as saved.
  func version(at entry: Int) -> MirrorVersion? {
    guard case .addVersion(let version, _) = changes[indexes[entry].index] else { return nil }
    return version
  }
}

/// A check of mirror versions before they leave the mirror, possibly in several batches
/// (see ``MirrorStore/versionCheck()``).
public struct VersionCheck: Sendable {
  /// The mirror file, for the error.
  private let path: String
  /// The versions this process saved with an identity it computed or checked, as saved, and
  /// whether it checked their records against their models too.
  private let saved: [SavedIdentities]
  /// Where each of ``saved`` is (its save's place in ``saved`` in the high 32 bits, its entry
  /// in that save's indexes in the low ones), by its id's hash value (a version whose id
  /// shares another's hash value is not found, and is checked whole).
  private let positions: [Int: Int]

  init(path: String, saved: [SavedIdentities]) {
    self.path = path
    self.saved = saved
    var positions = [Int: Int](minimumCapacity: saved.reduce(0) { $0 + $1.indexes.count })
    for (save, identities) in saved.enumerated() {
      for entry in identities.indexes.indices {
        guard let id = identities.version(at: entry)?.id else { continue }
        positions[id.hashValue] = save << 32 | entry
      }
    }
    self.positions = positions
  }

  /// Checks `versions` as ``MirrorStore/verify(_:)`` does.
  ///
  /// - Throws: ``UntrustedVersion`` for the first that cannot be trusted.
  public func verify(_ versions: some Sequence<MirrorVersion>) throws(UntrustedVersion) {
    try verifyInPlace(Array(versions))
  }

  /// ``verify(_:)`` of an export's versions, read in place.
  public func verify(_ versions: PendingVersions) throws(UntrustedVersion) {
    try verifyInPlace(versions[...])
  }

  /// ``verify(_:)`` of versions read by position, in place.
  private func verifyInPlace<Versions: RandomAccessCollection<MirrorVersion> & Sendable>(
    _ versions: Versions
  ) throws(UntrustedVersion) where Versions.Index == Int {
    let start = versions.startIndex
    let untrusted = Parallel.firstProblem(count: versions.count) { index -> String? in
      let version = versions[start + index]
      switch saved(version) {
      case true?: return nil
      case false?: return version.modelProblem
      case nil: return version.integrityProblem
      }
    }
    if let (index, problem) = untrusted {
      let version = versions[start + index]
      throw UntrustedVersion(path: path, version: version.id, key: version.key, problem: problem)
    }
  }

  /// Whether the content holds `version` exactly as this process saved it (compared whole:
  /// one read again from the file with other bytes is not), and if so whether its record was
  /// checked against its model then; `nil` when it was not saved so.
  private func saved(_ version: MirrorVersion) -> Bool? {
    guard let position = positions[version.id.hashValue] else { return nil }
    let identities = saved[position >> 32]
    let entry = position & 0xFFFF_FFFF
    guard identities.version(at: entry) == version else { return nil }
    return identities.indexes[entry].modelChecked
  }
}
