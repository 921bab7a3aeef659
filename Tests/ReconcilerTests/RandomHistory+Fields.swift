import LocalStore
import MirrorStore
import Reconciler
import StashBase
import StashModel

/// One value a person gave the notes of one record. Equal values look alike, as in
/// `sync_model.py`: the oracle can only ask whether the value is still shown.
struct NotesEdit: Hashable, CustomStringConvertible {
  let key: RecordKey
  let notes: String

  var description: String { "\(key) notes \"\(notes)\"" }
}

/// DESIGN's invariant 12 in the random histories, as the model checks it: a plain field's
/// edit is still shown somewhere at the end, or sits in an open conflict, or a person who saw
/// it replaced it (a later edit of that field, a deletion, a resolution that decided it).
struct NotesLedger {
  private(set) var edits = Set<NotesEdit>()
  private(set) var replaced = Set<NotesEdit>()

  mutating func wrote(_ edit: NotesEdit) {
    edits.insert(edit)
    replaced.remove(edit)
  }

  /// The person saw these records' notes and replaced them.
  mutating func replace(shownIn records: [Record]) {
    for record in records {
      guard let item = try? Item(record: record) else { continue }
      replaced.insert(NotesEdit(key: record.key, notes: item.notes))
    }
  }

  /// The edits no device shows, no open conflict holds and nobody replaced.
  func lost(shown: [Record], ignoring keys: Set<RecordKey>) -> [NotesEdit] {
    var kept = Set<NotesEdit>()
    for record in shown {
      guard let item = try? Item(record: record) else { continue }
      kept.insert(NotesEdit(key: record.key, notes: item.notes))
    }
    return edits.subtracting(replaced).subtracting(kept).filter { !keys.contains($0.key) }
      .sorted { $0.description < $1.description }
  }
}

extension History {
  /// A resolution decides the notes when they were in dispute, the whole record was, or the
  /// choice deleted the record: every value the person saw (its sides and the row shown) was
  /// replaced by the choice.
  mutating func decided(_ conflict: SyncConflict, seeing records: [Record], deleting: Bool) {
    guard deleting || conflict.fields.isEmpty || conflict.fields.contains("notes") else { return }
    notes.replace(shownIn: records)
  }

  /// A person on `device` changed the notes `record` showed. Writing the value shown changes
  /// nothing; writing back the value of the version the row derives from undoes an edit
  /// nobody else saw (rule 5: no change to the graph), which replaces that edit but is no
  /// edit of its own.
  mutating func noteEdit(of record: Record, to value: String, on device: Device) {
    guard let shown = try? Item(record: record), shown.notes != value else { return }
    notes.replace(shownIn: [record])
    let derivedFrom = device.stores.local.content.checkpoints[record.key]?.version.flatMap {
      device.stores.mirror.content.versions[record.key]?[$0]?.snapshot.record
    }
    if let derivedFrom, (try? Item(record: derivedFrom))?.notes == value { return }
    notes.wrote(NotesEdit(key: record.key, notes: value))
  }

  /// Invariant 12 at quiescence. A record that vanished without a tombstone (a drop) takes
  /// its unexported edits with it: that loss is the drop's, which invariant 3 covers. A person
  /// who deletes a record sets its edits aside (as the product simulation's oracle says): a
  /// deletion concurrent with edits that end where the deleted record was (a set-back) wins,
  /// as in the model, whose equal values look alike.
  mutating func checkNotes() {
    for edit in notes.lost(shown: shownRecords(), ignoring: everDropped.union(deletedOnPurpose)) {
      problems.append("lost field edit: \(edit)")
    }
    coverage.notesEdits += notes.edits.count
  }

  /// git's rule for a set-back (the model's `set-back-merges` variant): a side whose value
  /// equals the base's changed nothing, even when a version between them had another value.
  static let setBackMerges = MergeRules(
    combineCounters: MergeRules.design.combineCounters, setBackIsChange: false)
}
