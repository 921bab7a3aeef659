public import StashModel

/// What one `sync` run did, in plain values (the CLI reads it without the lower modules).
public struct SyncRunReport: Hashable, Sendable {
  /// Segments read whole from the shared folder.
  public var segmentsRead = 0
  /// Versions the mirror did not know before.
  public var versionsImported = 0
  /// What was not applied because it is wrong (a damaged segment or photo, an invalid
  /// version, a segment of another zone), with the reason.
  public var rejectedSegments: [String] = []
  /// What is not complete yet (a segment or photo the sync tool is still delivering): read
  /// again by the next sync.
  public var waiting: [String] = []
  /// Keys of the encrypted shared folder that this device lacks (a rotation it was not
  /// given yet), by id: what is sealed with them waits until a person enters them.
  public var missingKeys: [String] = []
  /// Whether a finished, successful import of this mirror opened the gate in this run.
  public var gateOpened = false
  /// Whether a reconcile pass ran.
  public var passRan = false
  /// Why the reconcile pass failed, if it did (the import had reached the mirror; the
  /// inventory was left as it was).
  public var passFailure: String? { passError?.message }
  /// The reconcile pass's failure, typed: a damaged store or a busy folder (the CLI exits 4
  /// or 3 for those, as every command does) or a save that failed.
  public var passError: StashError?
  /// Records written to the local store from the mirror.
  public var appliedLocally = 0
  /// Versions copied from the local store to the mirror.
  public var copiedToMirror = 0
  /// Conflicts recorded in this run.
  public var newConflicts: [ConflictID] = []
  /// Conflicts settled because their sides came to agree.
  public var settledConflicts = 0
  /// Records whose concurrent stock moves merged (added up) instead of conflicting.
  public var merged = 0
  /// Records with duplicate local rows, left alone.
  public var duplicates = 0
  /// Versions exported.
  public var versionsExported = 0
  /// The segments written, relative to the shared folder.
  public var exportedSegments: [String] = []
  /// The first segment written, if any.
  public var exportedSegment: String? { exportedSegments.first }
  /// Why this device exported nothing though it had versions to send: another copy of this
  /// device folder writes as this device (or a segment it wrote is gone). What to do is in
  /// the message.
  public var exportStopped: ExportStop?
  /// Why the export failed, if it did after the import had worked.
  public var exportFailure: String? { exportError?.message }
  /// The export's failure, typed (the versions not exported stay pending for the next sync).
  public var exportError: StashError?
  /// Photos that could not be exported (missing or damaged here).
  public var photosMissing: [String] = []
  /// Photos this device holds that the shared folder lacked (missing, renamed by a sync tool,
  /// cut short, damaged), published again by this run: their SHA-256 in hex.
  public var photosPublished: [String] = []
  /// Other zones whose segments in the shared folder hold changes this device does not have
  /// (a zone race, or another inventory's files): nothing of them was merged.
  public var otherZones: [OtherZone] = []
  /// A sync of sealed changes found more in the shared folder than the records it opened the
  /// stores for and stopped before writing anything: it runs again for ``recordsToLoad`` too,
  /// or the full sync runs when that is empty (``SyncFolder/sync(progress:)``).
  var stoppedBeforeImport = false
  /// When ``stoppedBeforeImport``: the records the stores must hold for the import to go on;
  /// empty when only whole stores will do.
  var recordsToLoad: Set<RecordKey> = []
  /// What the sync chose to run (tests and the benchmark read it).
  var choice = SyncChoice.full
  /// Whether the sync ran whole (import, a pass over every record, export) rather than
  /// nothing or a pass over sealed changes, as its sync state allowed.
  public var ranWhole: Bool { choice == .full }
  /// Whether the sync ran as a pass over the records changed here since a clean sync
  /// (``SealedChanges``) rather than whole: for the crash workloads' counts.
  public var ranSealedChanges: Bool {
    if case .sealedChanges = choice { return true }
    return false
  }

  /// An empty report.
  public init() {}
}

/// What a sync chose to run, from the sync state (see ``SyncFolder/sync(progress:)``).
enum SyncChoice: Hashable, Sendable {
  /// Nothing: both stores and the shared folder were as a clean sync left them.
  case nothingNew
  /// A pass over the records changed here since a clean sync (``SealedChanges``), with
  /// whether each store was opened from its index holding only those records.
  case sealedChanges(localFocused: Bool, mirrorFocused: Bool)
  /// The whole sync.
  case full
}
