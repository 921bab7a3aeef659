import MirrorStore
import StashModel

/// Concurrent versions merging field by field (DESIGN, "Merging concurrent versions"),
/// including the cases only a directed history pins: a set-back against a change, a field
/// group, a criss-cross, three leaves of which one branched early.
extension GoldenCase {
  private static let there = Fixed.otherDevice
  private static let third = DeviceID("00000000-0000-4000-8000-0000000000c1")!
  private static let fourth = DeviceID("00000000-0000-4000-8000-0000000000d1")!

  /// This device set the agreed tube's notes to 'y' at minute 10 (exported, its checkpoint),
  /// then back to '' at minute 20 (not synced yet); returns the agreed version.
  private static func setNotesBack(_ b: CaseBuilder) throws -> MirrorVersion {
    let agreed = try b.agreedVersion(tube().record)
    let sent = tube(minutes: 10) { $0.notes = "y" }
    try b.version(.record(sent.record), over: [agreed], author: Fixed.device, minutes: 10)
    try b.editLocal(sent.record)
    try b.checkpoint(.record(sent.record))
    try b.editLocal(tube(minutes: 20).record)
    return agreed
  }

  /// Item 1 at `minutes`, changed by `change`.
  private static func tube(
    quantity: Int64 = 10, minutes: Double = 0, _ change: (inout Item) -> Void = { _ in }
  ) -> Item {
    var item = Item(
      id: Fixed.id(1), name: "Koleston 7/1", quantity: quantity, unit: "tube",
      createdAt: Fixed.created, updatedAt: Fixed.time(minutes))
    change(&item)
    return item
  }

  /// fields-08's rename: the side a person keeps.
  private static let renamedEarly = tube(quantity: 1, minutes: 12) {
    $0.notes = "y"
    $0.name = "Koleston 7/0"
  }

  static let fields: [GoldenCase] = [
    GoldenCase(
      name: "fields-01-notes-here-restock-there",
      about: "Issue 21's first finding: this device edits the notes while the other restocks 2, "
        + "before either synced. The notes and the moves merge: 'top shelf' and 12 tubes on "
        + "both, no conflict."
    ) { b in
      let agreed = try b.agreedVersion(tube().record)
      try b.editLocal(tube(minutes: 20) { $0.notes = "top shelf" }.record)
      let moved = tube(minutes: 30) { $0.stock = Counter(base: 10, increments: [there: 2]) }
      try b.version(.record(moved.record), over: [agreed])
    },
    GoldenCase(
      name: "fields-02-different-fields-merge",
      about: "A rename here and a unit change there (seed 000's meter, as an item) merge: both "
        + "changes on both devices, the later updatedAt."
    ) { b in
      let agreed = try b.agreedVersion(tube().record)
      try b.editLocal(tube(minutes: 20) { $0.name = "Koleston 7/1 kitchen" }.record)
      try b.version(.record(tube(minutes: 30) { $0.unit = "box" }.record), over: [agreed])
    },
    GoldenCase(
      name: "fields-03-resolution-keeps-the-other-fields",
      about: "Both changed the notes (a conflict on 'notes' only); the other device also changed "
        + "the unit and restocked 2. Keeping this device's side takes its notes alone: the unit "
        + "change and the restock stay (no recount), and a later pass changes nothing.",
      build: { b in
        let agreed = try b.agreedVersion(tube().record)
        try b.editLocal(tube(minutes: 20) { $0.notes = "mine" }.record)
        let theirs = tube(minutes: 30) {
          $0.notes = "theirs"
          $0.unit = "box"
          $0.stock = Counter(base: 10, increments: [there: 2])
        }
        try b.version(.record(theirs.record), over: [agreed])
      }, steps: [.importFinished, .flush, .resolve(keep: "local"), .importFinished, .flush]),
    GoldenCase(
      name: "fields-04-the-same-new-value-agrees",
      about: "Both devices wrote the same notes at different times: one change, not a conflict; "
        + "the merge takes it and the later updatedAt."
    ) { b in
      let agreed = try b.agreedVersion(tube().record)
      try b.editLocal(tube(minutes: 20) { $0.notes = "top shelf" }.record)
      try b.version(.record(tube(minutes: 30) { $0.notes = "top shelf" }.record), over: [agreed])
    },
    GoldenCase(
      name: "fields-05-a-set-back-is-a-change",
      about: "This device set the notes to 'y' (exported), then back to '' as they were; the "
        + "other device meanwhile set them to 'z'. Against the common ancestor this device's "
        + "notes look unchanged, but a version on its way had another value: a set-back is a "
        + "change (rule 5), so the notes are in conflict instead of silently becoming 'z'."
    ) { b in
      let agreed = try setNotesBack(b)
      try b.version(.record(tube(minutes: 30) { $0.notes = "z" }.record), over: [agreed])
    },
    GoldenCase(
      name: "fields-06-a-group-merges-as-one",
      about: "A location's latitude, longitude and radius merge as one: this device moved the "
        + "latitude, the other the longitude. Mixing them would make a place neither device "
        + "set, so the group is in conflict (its three fields), the name change there merges."
    ) { b in
      func place(_ minutes: Double, _ change: (inout Location) -> Void = { _ in }) -> Record {
        var location = Location(
          id: Fixed.id(2), name: "shop", latitude: 52.3702, longitude: 4.8952, radius: 150,
          createdAt: Fixed.created, updatedAt: Fixed.time(minutes))
        change(&location)
        return location.record
      }
      let agreed = try b.agreedVersion(place(0))
      try b.editLocal(place(20) { $0.latitude = 52.3710 })
      let theirs = place(30) {
        $0.longitude = 4.8960
        $0.name = "shop on the corner"
      }
      try b.version(.record(theirs), over: [agreed])
    },
    GoldenCase(
      name: "fields-07-criss-cross",
      about: "Three devices changed the agreed tube concurrently (notes 'A', name 'B', a "
        + "restock of 3); one device merged the first two, another all three. The two merges "
        + "have two lowest common ancestors ('A' and 'B'): their merge is the base (rule 4), "
        + "against which only the restock is new. They merge cleanly: 'B', 'A', 13 tubes."
    ) { b in
      let agreed = try b.agreedVersion(tube().record)
      let a = try b.version(
        .record(tube(minutes: 10) { $0.notes = "A" }.record), over: [agreed], minutes: 10)
      let named = try b.version(
        .record(tube(minutes: 11) { $0.name = "B" }.record), over: [agreed], author: third,
        minutes: 11)
      let restocked = try b.version(
        .record(tube(minutes: 12) { $0.stock = Counter(base: 10, increments: [fourth: 3]) }.record),
        over: [agreed], author: fourth, minutes: 12)
      let both = tube(minutes: 11) {
        $0.notes = "A"
        $0.name = "B"
      }
      try b.version(.record(both.record), over: [a, named], minutes: 13)
      var all = both
      all.updatedAt = Fixed.time(12)
      all.stock = Counter(base: 10, increments: [fourth: 3])
      try b.version(.record(all.record), over: [a, named, restocked], author: third, minutes: 14)
    },
    GoldenCase(
      name: "fields-08-three-leaves-one-branched-early",
      about: "The model's seed 2999: one device deleted the tube at the agreed version; another "
        + "set the notes to 'y', then back to '' with a restock of 2; a third renamed it after "
        + "'y'. The leaves fold pairwise in id order, each step against its own lowest common "
        + "ancestor: the common ancestor of all three (the agreed version) is too old and "
        + "would take 'y' over the set-back. The deletion against the edits is a conflict; "
        + "keeping the rename takes the set-back too: 'Koleston 7/0', notes '', 3 tubes (kept "
        + "over a deletion: a new epoch at the quantity shown).",
      build: { b in
        let agreed = try b.agreedVersion(tube(quantity: 1).record)
        let noted = try b.version(
          .record(tube(quantity: 1, minutes: 10) { $0.notes = "y" }.record), over: [agreed],
          minutes: 10)
        let back = tube(quantity: 1, minutes: 11) {
          $0.stock = Counter(base: 1, increments: [there: 2])
        }
        try b.version(.record(back.record), over: [noted], minutes: 11)
        try b.version(.record(renamedEarly.record), over: [noted], author: third, minutes: 12)
        let deleted = Tombstone(deleting: tube(quantity: 1).record, at: Fixed.time(13))
        try b.version(.tombstone(deleted), over: [agreed], author: fourth, minutes: 13)
      },
      steps: [
        .importFinished, .flush,
        .resolve(keep: String(renamedEarly.record.snapshotHash.hex.prefix(12))),
        .importFinished, .flush,
      ]),
    GoldenCase(
      name: "fields-09-a-set-back-the-other-device-wrote-too",
      about: "This device set the notes to 'y' (exported), then back to '' at minute 20; the "
        + "other device saved the agreed tube unchanged at the same minute, so its version has "
        + "this device's snapshot, byte for byte, over the agreed one. That leaf is no stand-in "
        + "for this device's row: it never saw 'y'. Taking it would make the merge see no "
        + "change here and keep 'y' (the person's set-back lost, silently). The row is written "
        + "as a child of 'y' (rule 1); both leaves then hold '' and agree."
    ) { b in
      let agreed = try setNotesBack(b)
      try b.version(.record(tube(minutes: 20).record), over: [agreed], minutes: 20)
    },
  ]
}

extension CaseBuilder {
  /// A record both sides agreed on, and its mirror version.
  func agreedVersion(_ record: Record) throws -> MirrorVersion {
    try agreed(record)
    return mirror.content.versions(withSnapshot: record.snapshotHash, of: record.key)[0]
  }

  /// A version over `parents`, with the generation its author gave it.
  @discardableResult
  func version(
    _ snapshot: Snapshot, over parents: [MirrorVersion], author: DeviceID = Fixed.otherDevice,
    minutes: Double = 30
  ) throws -> MirrorVersion {
    try mirror.update { content, transaction in
      let ids = Set(parents.map(\.id))
      let version = MirrorVersion(
        snapshot: snapshot, parents: ids,
        generation: content.nextGeneration(after: ids, of: snapshot.key), author: author,
        authoredAt: Fixed.time(minutes))
      transaction.merge(version)
      return version
    }
  }
}
