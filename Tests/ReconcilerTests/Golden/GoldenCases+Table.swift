import MirrorStore
import StashModel

/// One case per row of DESIGN.md's decision table, and the concurrent-leaves cases.
extension GoldenCase {
  static let tableRows: [GoldenCase] = [
    GoldenCase(
      name: "row-00-duplicate-ids",
      about: "Two local rows carry one record id: a duplicate diagnostic; nothing is touched "
        + "for the key (no copy, no checkpoint)."
    ) { b in
      try b.local(b.item(1, quantity: 5).record)
      try b.local(b.item(1, quantity: 3).record)
      try b.mirror(.record(b.item(1, quantity: 9).record))
    },
    GoldenCase(
      name: "row-01-agree",
      about: "The local row and the mirror's are the same version; the checkpoint is set to it."
    ) { b in
      let item = b.item(1)
      try b.local(item.record)
      try b.mirror(.record(item.record))
    },
    GoldenCase(
      name: "row-02-mirror-edit-applied-even-if-older",
      about: "Only the mirror changed since the checkpoint: its version is applied locally even "
        + "though its updatedAt is older than the local row's."
    ) { b in
      let agreed = b.item(1, quantity: 5, minutes: 10)
      try b.agreed(agreed.record)
      try b.mirror(
        .record(b.item(1, quantity: 4, minutes: 5).record), parents: [.record(agreed.record)])
    },
    GoldenCase(
      name: "row-02b-checkpoint-the-mirror-lost",
      about: "The local row is the checkpoint, but no mirror version holds it (the mirror set "
        + "aside a damaged last transaction after the checkpoint was saved); the mirror's only "
        + "version is an older one. Taking it would silently revert the row: the row is written "
        + "into the graph instead (as a root: nothing it derives from is known), and the two "
        + "merge two-way (here: a conflict on the quantity, each keeps its own)."
    ) { b in
      let older = b.item(1, quantity: 5)
      try b.mirror(.record(older.record), author: Fixed.device)
      let saved = b.item(1, quantity: 4, minutes: 20)
      try b.local(saved.record)
      try b.checkpoint(.record(saved.record))
    },
    GoldenCase(
      name: "row-03-local-edit-copied",
      about: "Only the local row changed: it is copied to the mirror with the checkpoint as its "
        + "parent."
    ) { b in
      let agreed = b.item(1, quantity: 5)
      try b.agreed(agreed.record)
      try b.editLocal(b.item(1, quantity: 4, minutes: 20).record)
    },
    GoldenCase(
      name: "row-04-both-edited",
      about: "Both sides recounted since the checkpoint (5 to 4 here, to 2 there): the local "
        + "row is written into the graph as a child of the checkpoint's version, the two leaves "
        + "do not merge (two recounts), and one conflict on the quantity holds both full "
        + "snapshots; each device keeps its own row."
    ) { b in
      let agreed = b.item(1, quantity: 5)
      try b.agreed(agreed.record)
      try b.editLocal(b.item(1, quantity: 4, minutes: 20).record)
      try b.mirror(
        .record(b.item(1, quantity: 2, minutes: 30).record), parents: [.record(agreed.record)])
    },
    GoldenCase(
      name: "row-05-local-only-insert",
      about: "A row only the local store has, never agreed: copied to the mirror."
    ) { b in
      try b.local(b.item(1, quantity: 3).record)
    },
    GoldenCase(
      name: "row-06-cloud-only-insert",
      about: "A version only the mirror has, never agreed: copied to the local store."
    ) { b in
      try b.mirror(.record(b.item(1, quantity: 8).record))
    },
    GoldenCase(
      name: "row-07-missing-in-mirror",
      about: "Both once agreed, and the mirror has no row and no tombstone: nothing changes; a "
        + "conflict whose mirror side is absent is recorded."
    ) { b in
      let item = b.item(1)
      try b.local(item.record)
      try b.checkpoint(.record(item.record))
    },
    GoldenCase(
      name: "row-08-missing-here",
      about: "Both once agreed, and the local store has no row and no tombstone: nothing "
        + "changes (the row is not restored); a conflict whose local side is absent is recorded."
    ) { b in
      let item = b.item(1)
      try b.mirror(.record(item.record))
      try b.checkpoint(.record(item.record))
    },
    GoldenCase(
      name: "row-09-deletion-to-mirror",
      about: "Deleted here; the mirror still has the deleted (agreed) version: the tombstone is "
        + "copied to the mirror, replacing it."
    ) { b in
      let item = b.item(1)
      try b.agreed(item.record)
      try b.deleteLocal(item.record.key, minutes: 20)
    },
    GoldenCase(
      name: "row-10-deleted-here-edited-there",
      about: "Deleted here, edited in the mirror since the agreement: the deletion is written "
        + "into the graph (so the other device sees it too), the edited row stays a leaf, the "
        + "deletion stays here, and a conflict keeps both."
    ) { b in
      let item = b.item(1)
      try b.agreed(item.record)
      try b.deleteLocal(item.record.key, minutes: 20)
      try b.mirror(
        .record(b.item(1, "Koleston 7/1 (new box)", minutes: 30).record),
        parents: [.record(item.record)])
    },
    GoldenCase(
      name: "row-11-deletion-arrives",
      about: "The mirror's row is a tombstone of the version the local row still is: the local "
        + "tombstone is written and the row removed, in one transaction."
    ) { b in
      let item = b.item(1)
      try b.agreed(item.record)
      try b.mirror(
        .tombstone(Tombstone(deleting: item.record, at: Fixed.time(30))),
        parents: [.record(item.record)])
    },
    GoldenCase(
      name: "row-12-edited-here-deleted-there",
      about: "Edited here, deleted in the mirror: the edit is written into the graph, the edited "
        + "row stays, and a conflict keeps both."
    ) { b in
      let item = b.item(1)
      try b.agreed(item.record)
      try b.editLocal(b.item(1, "Koleston 7/1 (new box)", minutes: 20).record)
      try b.mirror(
        .tombstone(Tombstone(deleting: item.record, at: Fixed.time(30))),
        parents: [.record(item.record)])
    },
    GoldenCase(
      name: "row-13-both-deleted",
      about: "Deleted on both sides (at different times): they agree on the deletion; the local "
        + "store keeps the mirror's tombstone so that every device holds the same one."
    ) { b in
      let item = b.item(1)
      try b.agreed(item.record)
      try b.deleteLocal(item.record.key, minutes: 20)
      try b.mirror(
        .tombstone(Tombstone(deleting: item.record, at: Fixed.time(30))),
        parents: [.record(item.record)])
    },
    GoldenCase(
      name: "row-14-deletion-travels",
      about: "A local tombstone the mirror has never seen: explicit deletions travel, so it is "
        + "copied to the mirror."
    ) { b in
      try b.localTombstone(Tombstone(deleting: b.item(1).record, at: Fixed.time(20)))
    },
    GoldenCase(
      name: "row-15-keep-mirror-tombstone",
      about: "The mirror's row is a tombstone and the local store has nothing: the tombstone is "
        + "kept locally."
    ) { b in
      let item = b.item(1)
      let version = try b.mirror(.record(item.record))
      try b.mirror(
        .tombstone(Tombstone(deleting: item.record, at: Fixed.time(30))),
        parents: [version.snapshot])
    },
    GoldenCase(
      name: "leaves-concurrent-versions",
      about: "Two devices recounted the agreed version concurrently (4 and 3: different epochs, "
        + "so they do not merge): the mirror shows two leaves. One conflict holds every leaf "
        + "(the quantity is in dispute: two recounts). The local row had no edit of its own (it "
        + "is an ancestor, not a side), yet it is not replaced by "
        + "the mirror's winner while the conflict is open (adopting a winner that does not "
        + "descend from this device's own state can swallow one of its moves later)."
    ) { b in
      let agreed = b.item(1)
      try b.agreed(agreed.record)
      try b.mirror(
        .record(b.item(1, quantity: 4, minutes: 20).record), parents: [.record(agreed.record)])
      try b.mirror(
        .record(b.item(1, quantity: 3, minutes: 25).record), parents: [.record(agreed.record)],
        author: DeviceID("00000000-0000-4000-8000-0000000000c1")!)
    },
    GoldenCase(
      name: "leaves-concurrent-deletions-agree",
      about: "Two devices deleted the agreed version concurrently: two tombstone leaves are an "
        + "agreement to delete, not a conflict; the deletion arrives locally."
    ) { b in
      let agreed = b.item(1)
      try b.agreed(agreed.record)
      try b.mirror(
        .tombstone(Tombstone(deleting: agreed.record, at: Fixed.time(20))),
        parents: [.record(agreed.record)])
      try b.mirror(
        .tombstone(Tombstone(deleting: agreed.record, at: Fixed.time(25))),
        parents: [.record(agreed.record)],
        author: DeviceID("00000000-0000-4000-8000-0000000000c1")!)
    },
  ]
}
