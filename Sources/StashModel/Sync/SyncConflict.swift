import StashBase

/// A disagreement the reconciler could not settle, kept with every side's full snapshot.
///
/// Nothing in a conflict is ever overwritten: each side's snapshot is stored whole (names,
/// quantities, photo digests whose blobs are kept). A conflict is recorded once per key and
/// set of sides; when the sides change it is marked superseded and a new one is recorded; a
/// person resolves it by choosing a side.
public struct SyncConflict: Hashable, Sendable, Identifiable, CustomStringConvertible {
  /// Derived from the key and the set of sides, so the same disagreement has the same id on
  /// every pass (and in golden fixtures).
  public let id: ConflictID
  /// The record in dispute.
  public let key: RecordKey
  /// What kind of disagreement this is.
  public let kind: ConflictKind
  /// Every side: the local row (or its absence), and each mirror version (or its absence).
  public let sides: [ConflictSide]
  /// The fields the sides could not merge, in schema order (a field group's fields together,
  /// a counter's name when the quantity is in dispute); empty when the whole record is (an
  /// absent side, or a conflict noticed before field merges).
  ///
  /// Resolving takes the chosen side's values for these fields only: every other field keeps
  /// its merged value.
  public let fields: [String]
  /// When this device noticed it.
  public let noticedAt: Timestamp
  /// Open, resolved or superseded.
  public var state: ConflictState
  /// How it was resolved, once it is.
  public var resolution: ConflictResolution?

  /// A newly noticed, open conflict.
  public init(
    key: RecordKey, kind: ConflictKind, sides: [ConflictSide], fields: [String] = [],
    noticedAt: Timestamp
  ) {
    self.init(
      id: ConflictID(key: key, sides: sides), key: key, kind: kind, sides: sides,
      fields: fields, noticedAt: noticedAt, state: .open, resolution: nil)
  }

  /// A conflict with every property given (as read back from a store).
  public init(
    id: ConflictID, key: RecordKey, kind: ConflictKind, sides: [ConflictSide],
    fields: [String] = [], noticedAt: Timestamp, state: ConflictState,
    resolution: ConflictResolution?
  ) {
    self.id = id
    self.key = key
    self.kind = kind
    self.sides = sides
    self.fields = fields
    self.noticedAt = noticedAt
    self.state = state
    self.resolution = resolution
  }

  /// The sides' identities (a hash, or which side is absent): two conflicts on one key with
  /// the same set are the same disagreement.
  public var sideSet: Set<String> { Set(sides.map(\.token)) }

  public var description: String { "conflict \(id.short) on \(key) (\(kind.rawValue), \(state))" }
}

/// The identity of a conflict: a UUID-shaped text derived from its key and sides.
public struct ConflictID: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// Lowercase UUID text.
  public let rawValue: String

  /// Accepts a lowercase UUID.
  public init?(_ text: String) {
    guard RecordID(text) != nil else { return nil }
    self.rawValue = text
  }

  /// The id of the disagreement on `key` between `sides`.
  public init(key: RecordKey, sides: [ConflictSide]) {
    var hasher = SHA256()
    hasher.update("conflict\u{0}\(key.model)\u{0}\(key.id.rawValue)")
    for token in sides.map(\.token).sorted() { hasher.update("\u{0}" + token) }
    let hex = Array(hasher.finalize().hex.utf8.prefix(32))
    var text = [UInt8]()
    for (index, digit) in hex.enumerated() {
      if [8, 12, 16, 20].contains(index) { text.append(UInt8(ascii: "-")) }
      text.append(digit)
    }
    self.rawValue = String(decoding: text, as: UTF8.self)
  }

  /// The first eight characters, for tables.
  public var short: String { String(rawValue.prefix(8)) }

  public var description: String { rawValue }

  public static func < (lhs: ConflictID, rhs: ConflictID) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// What kind of disagreement a conflict is (the reconciler's table rows 4, 7, 8, 10, 12 and
/// concurrent mirror versions).
public enum ConflictKind: String, Hashable, Sendable, CaseIterable {
  /// Both sides edited since they last agreed (row 4).
  case bothEdited = "both-edited"
  /// The local row exists, the mirror's is gone without a tombstone (row 7).
  case missingInMirror = "missing-in-mirror"
  /// The mirror's row exists, the local one is gone without a tombstone (row 8).
  case missingHere = "missing-here"
  /// Deleted here, edited in the mirror (row 10).
  case deletedHereEditedThere = "deleted-here-edited-there"
  /// Edited here, deleted in the mirror (row 12).
  case editedHereDeletedThere = "edited-here-deleted-there"
  /// The mirror holds several concurrent versions from different devices.
  case concurrentVersions = "concurrent-versions"
  /// Concurrent moves of a counter would merge, but the merged count would go below zero
  /// (more was used than there was): the person decides, seeing every side and the figure.
  case belowZero = "below-zero"
  /// Not a disagreement: concurrent moves merged. Kept, resolved, with every side, for history
  /// and audit.
  case merged = "merged"
}

/// Whether a conflict still needs a decision.
public enum ConflictState: String, Hashable, Sendable {
  /// Waiting for a person.
  case open
  /// Settled: by a person's choice, or because the sides came to agree.
  case resolved
  /// Replaced by a newer conflict on the same key with other sides.
  case superseded
}

/// One side of a conflict.
public struct ConflictSide: Hashable, Sendable {
  /// Where this side was seen.
  public enum Origin: String, Hashable, Sendable {
    /// The local store.
    case local
    /// The mirror.
    case mirror
  }

  /// Where this side was seen.
  public let origin: Origin
  /// The full snapshot, or `nil` when the record is absent on this side (no row, no
  /// tombstone).
  public let snapshot: Snapshot?
  /// The device that wrote this version, when the mirror knows it.
  public let author: DeviceID?

  /// A side.
  public init(origin: Origin, snapshot: Snapshot?, author: DeviceID? = nil) {
    self.origin = origin
    self.snapshot = snapshot
    self.author = author
  }

  /// The side's identity: its snapshot's hash, or `absent-local` / `absent-mirror`.
  public var token: String { snapshot?.hash.hex ?? "absent-\(origin.rawValue)" }
}

/// How a conflict was settled.
public struct ConflictResolution: Hashable, Sendable {
  /// What was chosen: `local`, `mirror`, `deleted`, `version <hash>`, or `agreed` when the
  /// sides came to agree without a choice here (a resolution made on another device arrived).
  public let choice: String
  /// When.
  public let at: Timestamp
  /// The device where it was settled.
  public let by: DeviceID
  /// The hash of the version written as the resolution, if one was written here.
  public let result: SnapshotHash?

  /// Describes a resolution.
  public init(choice: String, at: Timestamp, by: DeviceID, result: SnapshotHash?) {
    self.choice = choice
    self.at = at
    self.by = by
    self.result = result
  }
}
