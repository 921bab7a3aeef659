import MirrorStore
import StashModel

/// Counters: stock moves that add up across devices (DESIGN, "Counters").
extension GoldenCase {
  private static let here = Fixed.device
  private static let there = Fixed.otherDevice
  private static let third = DeviceID("00000000-0000-4000-8000-0000000000c1")!
  private static let recountEpoch = CounterEpoch("00000000-0000-4000-8000-00000000e0c1")!

  /// The other device's item in counters-06, after using `units` tubes of the agreed 5.
  private static func used(_ units: Int64, minutes: Double) -> Item {
    var item = Item(
      id: Fixed.id(1), name: "Koleston 7/1", quantity: 5, unit: "tube",
      createdAt: Fixed.created, updatedAt: Fixed.time(minutes))
    item.stock = Counter(base: 5, decrements: [there: units])
    return item
  }

  /// counters-06's late version: the other device's first use, over the agreed version.
  private static let usedOnce: MirrorVersion = {
    var agreed = used(0, minutes: 0)
    agreed.stock = Counter(base: 5)
    return MirrorVersion(
      snapshot: .record(used(1, minutes: 25).record),
      parents: [VersionID.derive(snapshot: agreed.record.snapshotHash, parents: [])],
      generation: 2, author: there, authoredAt: Fixed.time(25))
  }()

  static let counters: [GoldenCase] = [
    GoldenCase(
      name: "counters-01-two-moves-merge",
      about: "Both devices showed 5 tubes; each used one offline. The moves merge (each device's "
        + "larger tally): 3 tubes on both, the latest updatedAt, no conflict. The local row is "
        + "written into the graph first (a child of the checkpoint's version); the merged "
        + "version names both leaves, and a resolved 'merged' record keeps both sides."
    ) { b in
      let agreed = b.item(1)
      try b.agreed(agreed.record)
      try b.editLocal(b.item(1, stock: Counter(base: 5, decrements: [here: 1]), minutes: 20).record)
      try b.mirror(
        .record(b.item(1, stock: Counter(base: 5, decrements: [there: 1]), minutes: 30).record),
        parents: [.record(agreed.record)])
    },
    GoldenCase(
      name: "counters-02-moves-on-three-devices",
      about: "From 10 tubes: this device used 2; of two other devices, one restocked 5 and one "
        + "used 1, concurrently (two mirror leaves). All three sides merge: 12."
    ) { b in
      let agreed = b.item(1, quantity: 10)
      try b.agreed(agreed.record)
      try b.editLocal(
        b.item(1, stock: Counter(base: 10, decrements: [here: 2]), minutes: 20).record)
      try b.mirror(
        .record(b.item(1, stock: Counter(base: 10, increments: [there: 5]), minutes: 25).record),
        parents: [.record(agreed.record)])
      try b.mirror(
        .record(b.item(1, stock: Counter(base: 10, decrements: [third: 1]), minutes: 30).record),
        parents: [.record(agreed.record)], author: third)
    },
    GoldenCase(
      name: "counters-03-recount-against-move",
      about: "This device used one tube; the other device recounted ('there are 8'). A recount "
        + "cannot be ordered against a move: a both-edited conflict on the quantity, each device "
        + "keeps its own row, and this device's side is written into the graph so that the "
        + "other device records the same conflict."
    ) { b in
      let agreed = b.item(1)
      try b.agreed(agreed.record)
      try b.editLocal(b.item(1, stock: Counter(base: 5, decrements: [here: 1]), minutes: 20).record)
      try b.mirror(
        .record(b.item(1, stock: .recount(to: 8, epoch: recountEpoch), minutes: 30).record),
        parents: [.record(agreed.record)])
    },
    GoldenCase(
      name: "counters-04-below-zero",
      about: "2 tubes were there; this device used 2 and the other used 1. The merge would be -1: "
        + "a below-zero conflict keeps every side, each device keeps its own row."
    ) { b in
      let agreed = b.item(1, quantity: 2)
      try b.agreed(agreed.record)
      try b.editLocal(b.item(1, stock: Counter(base: 2, decrements: [here: 2]), minutes: 20).record)
      try b.mirror(
        .record(b.item(1, stock: Counter(base: 2, decrements: [there: 1]), minutes: 30).record),
        parents: [.record(agreed.record)])
    },
    GoldenCase(
      name: "counters-05-merge-equal-to-a-side",
      about: "The mirror's side already holds this device's move and one more (and the later "
        + "updatedAt), so the merge equals it: a new version with that snapshot, naming both "
        + "sides, is written (its id differs from the side's, so there is no cycle) and the "
        + "mirror has one leaf again."
    ) { b in
      let agreed = b.item(1)
      try b.agreed(agreed.record)
      try b.editLocal(b.item(1, stock: Counter(base: 5, decrements: [here: 1]), minutes: 20).record)
      try b.mirror(
        .record(
          b.item(1, stock: Counter(base: 5, decrements: [here: 1, there: 1]), minutes: 30).record),
        parents: [.record(agreed.record)])
    },
    GoldenCase(
      name: "counters-06-merge-after-a-partial-delivery",
      about: "The other device used one tube, then another (two versions); only the second has "
        + "arrived, naming a parent not here yet (its generation says so). This device's own "
        + "move is written into the graph, and the merge waits for the missing version "
        + "(DESIGN rule 3): merging on a partial graph finds no common ancestor and conflicts. "
        + "Once the first version arrives, every side is in one epoch and they merge with this "
        + "device's move: 5 - 1 - 2 = 2.",
      build: { b in
        let agreed = b.item(1)
        try b.agreed(agreed.record)
        try b.editLocal(
          b.item(1, stock: Counter(base: 5, decrements: [here: 1]), minutes: 20).record)
        try b.mirror(.record(Self.used(2, minutes: 30).record), over: [Self.usedOnce.id])
      },
      steps: [.importFinished, .flush, .arrive(Self.usedOnce), .importFinished, .flush]),
    GoldenCase(
      name: "counters-07-resolution-starts-a-new-epoch",
      about: "A recount against a move, resolved by keeping this device's side (4 tubes, one "
        + "used): the resolution is a recount at 4 in a new epoch, so a concurrent branch of the "
        + "discarded side can never merge with it and undo the choice.",
      build: { b in
        let agreed = b.item(1)
        try b.agreed(agreed.record)
        try b.editLocal(
          b.item(1, stock: Counter(base: 5, decrements: [here: 1]), minutes: 20).record)
        try b.mirror(
          .record(b.item(1, stock: .recount(to: 8, epoch: recountEpoch), minutes: 30).record),
          parents: [.record(agreed.record)])
      }, steps: [.importFinished, .flush, .resolve(keep: "local"), .importFinished, .flush]),
  ]
}
