import ArgumentParsing

/// The commands that tell where this device stands: `sync verify`, and the `--pending` filter
/// of `list` (the specs; the handlers are under `Commands/`).
extension CommandTable {
  static let syncVerify = CommandSpec(
    "verify",
    abstract: "Compare this device with the shared folder and name what differs",
    discussion: """
      Compares every record and deletion on this device with what the shared folder holds \
      (the mirror, with complete segments not imported yet read as if imported), and shows \
      both digests: two devices that hold the same inventory show the same digest. Nothing \
      is written.

      Exit status: 0 the same, 5 they differ: a record differs or has an open conflict here, \
      something waits to be exported or for the sync tool, a file in the shared folder is \
      rejected, another zone there holds changes this device does not have, or a photo this \
      device holds is missing there (each is named); 1 sync is off or the shared folder \
      cannot be used, 3 busy, 4 damaged.
      """,
    examples: ["stash sync verify", "stash sync verify --json"])

  static let pendingFilter = Flag(
    "pending", help: "Only items with changes (and deletions) that have not left this device")
}

extension CommandTable {
  /// `history` and `undo` also find a deleted item by its id or an id prefix.
  static let historyItem = Argument<String>(
    "ITEM", help: "An id, a unique id prefix or an exact name")

  static let history = CommandSpec(
    "history",
    abstract: "Show every version of an item: who changed it, when, and what",
    discussion: """
      Reads the shared folder's versions this device has seen (with the device that wrote \
      each) and this device's own store, so changes not synced yet are shown too. A \
      deleted item is found by its id or an id prefix.
      """,
    arguments: [historyItem.spec],
    examples: ["stash history \"Koleston 7/1\"", "stash history 3f2b --json"])

  static let undo = CommandSpec(
    "undo",
    abstract: "Revert this device's last change to an item, as a new change",
    discussion: """
      The undo is an edit like any other and travels with the next sync: a consume is \
      undone by a restock, a recount by a recount, an edit by setting the fields back, an \
      addition by a deletion, a deletion by adding the item again as a new item. A field \
      another device changed since is left alone and the undo refused. Undoing again \
      reverts the undo.
      """,
    arguments: [historyItem.spec],
    examples: ["stash undo \"Koleston 7/1\""])
}
