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

      Exit status: 0 the same (and nothing waiting to export), 5 they differ (the records \
      are listed), 1 sync is off or the shared folder cannot be used, 3 busy, 4 damaged.
      """,
    examples: ["stash sync verify", "stash sync verify --json"])

  static let pendingFilter = OptionSpec.flag(
    "pending", help: "Only items with changes that have not left this device")
}
