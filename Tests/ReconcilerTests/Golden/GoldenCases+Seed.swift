import MirrorStore
import StashModel

/// One case for each behaviour seed 002 lists under "They assert that", and a resolution.
extension GoldenCase {
  static let seedBehaviours: [GoldenCase] = [
    GoldenCase(
      name: "seed-01-local-store-available-without-sync",
      about: "Sync is off (no cloud.store): the local store opens and keeps its rows; an import "
        + "event and a flush change nothing.",
      build: { b in
        try b.local(b.item(1, quantity: 5).record)
      }, steps: [.importFinished, .flush]),
    GoldenCase(
      name: "seed-02-inserts-copy-by-record-id-with-quantity",
      about: "A local-only insert and a cloud-only insert are copied by recordID, quantity "
        + "included."
    ) { b in
      try b.local(b.item(1, "Local only", quantity: 3).record)
      try b.mirror(.record(b.item(2, "Cloud only", quantity: 8).record))
    },
    GoldenCase(
      name: "seed-03-one-sided-edit-copies-even-if-older",
      about: "A one-sided edit is copied even when its updatedAt is older: item 1 was edited "
        + "only in the mirror (older time), item 2 only here (older time)."
    ) { b in
      let first = b.item(1, "Edited there", quantity: 5, minutes: 10)
      try b.agreed(first.record)
      try b.mirror(
        .record(b.item(1, "Edited there", quantity: 4, minutes: 1).record),
        parents: [.record(first.record)])
      let second = b.item(2, "Edited here", quantity: 5, minutes: 10)
      try b.agreed(second.record)
      try b.editLocal(b.item(2, "Edited here", quantity: 7, minutes: 2).record)
    },
    GoldenCase(
      name: "seed-04-divergent-edits-with-photos-kept",
      about: "Divergent edits with different photos: each store keeps its own version, and one "
        + "conflict holds both payloads (photo digests and all)."
    ) { b in
      let agreed = b.item(1, photo: BlobRef(of: Array("first photo".utf8)))
      try b.agreed(agreed.record)
      try b.editLocal(
        b.item(1, minutes: 20, photo: BlobRef(of: Array("photo taken here".utf8))).record)
      try b.mirror(
        .record(b.item(1, minutes: 30, photo: BlobRef(of: Array("photo taken there".utf8))).record),
        parents: [.record(agreed.record)])
    },
    GoldenCase(
      name: "seed-05-tombstones-cross-and-do-not-resurrect",
      about: "Deletions cross in both directions and stay deleted after further passes (item 1 "
        + "deleted here, item 2 deleted there); a delete does not discard a conflicting edit "
        + "(item 3 deleted here, edited there).",
      build: { b in
        let first = b.item(1, "Deleted here")
        try b.agreed(first.record)
        try b.deleteLocal(first.record.key, minutes: 20)
        let second = b.item(2, "Deleted there")
        try b.agreed(second.record)
        try b.mirror(
          .tombstone(Tombstone(deleting: second.record, at: Fixed.time(25))),
          parents: [.record(second.record)])
        let third = b.item(3, "Deleted here, edited there")
        try b.agreed(third.record)
        try b.deleteLocal(third.record.key, minutes: 20)
        try b.mirror(
          .record(b.item(3, "Edited there", minutes: 30).record), parents: [.record(third.record)])
      }, steps: [.importFinished, .flush, .importFinished, .flush]),
    GoldenCase(
      name: "seed-06-absence-neither-deletes-nor-restores",
      about: "Rows missing without a tombstone: item 1 vanished here (not restored, the mirror "
        + "keeps it), item 2 vanished from the mirror (not deleted here). Each leaves a conflict "
        + "with an absent side."
    ) { b in
      let first = b.item(1, "Vanished here")
      try b.mirror(.record(first.record))
      try b.checkpoint(.record(first.record))
      let second = b.item(2, "Vanished there")
      try b.local(second.record)
      try b.checkpoint(.record(second.record))
    },
    GoldenCase(
      name: "seed-07-photo-survives-notification-id-is-not-an-edit",
      about: "An item's photo digest is copied to the mirror intact. A reminder whose only "
        + "local change is its notification identifier is not an edit, and an edit from the "
        + "mirror keeps this device's notification identifier."
    ) { b in
      try b.local(b.item(1, photo: BlobRef(of: Array(repeating: 0xAB, count: 5_000_000))).record)
      let place = Location(id: Fixed.id(9), name: "Salon basement", createdAt: Fixed.created)
      try b.agreed(place.record)
      let reminder = Reminder(
        id: Fixed.id(7), locationID: place.id, message: "Count the tubes",
        notificationIdentifier: "scheduled-here-1", createdAt: Fixed.created)
      try b.agreed(reminder.record)
      var rescheduled = reminder
      rescheduled.notificationIdentifier = "scheduled-here-2"
      try b.editLocal(rescheduled.record)
      var edited = reminder
      edited.message = "Count the colour tubes"
      edited.updatedAt = Fixed.time(30)
      edited.notificationIdentifier = nil
      try b.mirror(.record(edited.record), parents: [.record(reminder.record)])
    },
    GoldenCase(
      name: "seed-08-no-pass-before-a-finished-successful-import",
      about: "The gate stays closed through a bootstrap flag from an earlier launch, an empty "
        + "mirror file, setup, export, a started import, a failed import and another store's "
        + "import: nothing is written.",
      build: { b in
        try b.local(b.item(1, quantity: 5).record)
      },
      steps: [
        .restart(bootstrapFlag: true), .flush,
        .event(.setup, .finished, failure: nil, store: "mirror"), .flush,
        .event(.export, .finished, failure: nil, store: "mirror"), .flush,
        .event(.import, .started, failure: nil, store: "mirror"), .flush,
        .event(.import, .finished, failure: "network lost", store: "mirror"), .flush,
        .event(.import, .finished, failure: nil, store: "other"), .flush,
      ]),
    GoldenCase(
      name: "seed-09-repeated-imports-coalesce-background-waits",
      about: "Imports arriving in the background wait for the foreground, and repeated imports "
        + "before a flush become one pass.",
      build: { b in
        try b.local(b.item(1, quantity: 5).record)
        try b.mirror(.record(b.item(2, quantity: 8).record))
      },
      steps: [
        .background, .importFinished, .importFinished, .importFinished, .flush, .foreground,
        .flush, .importFinished, .importFinished, .flush,
      ]),
    GoldenCase(
      name: "seed-10-thrown-pass-keeps-the-local-row",
      about: "A pass whose local write fails leaves both stores as they were (the local row "
        + "stays, the mirror's copy is rolled back); the next flush succeeds and copies it.",
      build: { b in
        try b.local(b.item(1, quantity: 5).record)
      }, steps: [.importFinished, .failNextLocalWrite, .flush, .flush]),
    GoldenCase(
      name: "resolution-keep-local-settles",
      about: "A both-edited conflict resolved by keeping the local side: a new version (updatedAt "
        + "= now) naming both leaves as parents, holding the local quantity in a new epoch (the "
        + "quantity was the field in dispute), goes to both stores; the checkpoint moves to it "
        + "and a later pass changes nothing.",
      build: { b in
        let agreed = b.item(1, quantity: 5)
        try b.agreed(agreed.record)
        try b.editLocal(b.item(1, quantity: 4, minutes: 20).record)
        try b.mirror(
          .record(b.item(1, quantity: 2, minutes: 30).record), parents: [.record(agreed.record)])
      }, steps: [.importFinished, .flush, .resolve(keep: "local"), .importFinished, .flush]),
  ]

  /// Every case, in folder order.
  static let all: [GoldenCase] = (tableRows + seedBehaviours + counters + fields).sorted {
    $0.name < $1.name
  }
}
