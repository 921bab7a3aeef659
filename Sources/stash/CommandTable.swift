import ArgumentParsing

/// Every `stash` command: names, arguments, options, help text and examples.
///
/// This is the one table the parser and the help are built from. Behaviour lives elsewhere:
/// each command's handler is a small file under `Commands/`, registered in
/// ``CommandRegistry``.
enum CommandTable {
  /// The version `stash --version` prints.
  static let version = "0.1.0"

  /// The whole tree, with `stash` at the root.
  static let root = CommandSpec(
    "stash",
    abstract: "Keep an inventory of what you have, offline, on every device",
    discussion: """
      Stash keeps items, locations and reminders in a folder on this device and works \
      without a network. Turn on sync to exchange changes with your other devices through a \
      shared cloud folder.

      Exit status: 0 done, 1 refused (bad input, not found, ambiguous, not enough stock), \
      2 usage mistake, 3 the folder is busy (another stash is writing it), 4 a damaged store, \
      5 'sync verify' found this device and the shared folder differ.

      Environment: STASH_NOW=SECONDS fixes the clock for scripts, in seconds since 1970 \
      written in plain digits (1764441600 or 1764441600.25, the years 1 to 9999); any other \
      value is refused (exit 1) and an empty one means the real clock. STASH_HOME, else \
      XDG_DATA_HOME/stash (when absolute), else HOME/.local/share/stash is the device folder.
      """,
    options: [
      OptionSpec(
        "home", .path, value: "DIR",
        help: "The device folder (default: $STASH_HOME, else $XDG_DATA_HOME/stash, else "
          + "~/.local/share/stash)",
        isGlobal: true),
      OptionSpec.flag("json", help: "Print machine-readable output", isGlobal: true),
    ],
    subcommands: [
      initCommand, add, list, show, consume, restock, delete, edit, duplicate,
      location, reminder, sync, conflicts, doctor, export, importCommand, history, undo,
    ],
    requiresSubcommand: true,
    examples: [
      "stash init --name kitchen",
      "stash add \"Koleston 7/1\" --quantity 3 --location bathroom",
      "stash list --low-stock",
    ],
    version: version)

  // MARK: - Shared pieces

  static let item = ArgumentSpec(
    "ITEM", help: "An id, a unique id prefix (4+ characters) or an exact name")

  static let quantity = OptionSpec(
    "quantity", .integer, value: "N", help: "How many units you have")
  static let unit = OptionSpec("unit", value: "U", help: "What one unit is, such as tube or box")
  static let brand = OptionSpec("brand", value: "B", help: "The brand")
  static let notes = OptionSpec("notes", value: "T", help: "Free-form notes")
  static let itemLocation = OptionSpec(
    "location", value: "L", help: "Where it is kept: a location id, id prefix or name")
  static let photo = OptionSpec("photo", .path, value: "FILE", help: "A photo of it to attach")
  static let lowStock = OptionSpec(
    "low-stock", .integer, value: "N", help: "Warn when the quantity falls to N or below")
  static let barcode = OptionSpec("barcode", value: "C", help: "The barcode printed on it")

  // MARK: - Items

  static let initCommand = CommandSpec(
    "init",
    abstract: "Create the device folder and its stores",
    options: [
      OptionSpec("name", value: "DEVICE", help: "A name for this device (default: the host name)")
    ],
    examples: ["stash init", "stash init --name kitchen --home ~/stash"])

  static let add = CommandSpec(
    "add",
    abstract: "Add an item",
    arguments: [ArgumentSpec("NAME", help: "The item's name")],
    options: [quantity, unit, brand, notes, itemLocation, photo, lowStock, barcode],
    examples: [
      "stash add \"Koleston 7/1\"",
      "stash add \"AA batteries\" --quantity 12 --unit battery --low-stock 4",
    ])

  static let list = CommandSpec(
    "list",
    abstract: "List items",
    options: [
      OptionSpec("location", value: "L", help: "Only items kept at this location"),
      OptionSpec.flag("low-stock", help: "Only items at or below their low-stock level"),
      pendingFilter,
    ],
    examples: [
      "stash list", "stash list --location bathroom --low-stock --json", "stash list --pending",
    ])

  static let show = CommandSpec(
    "show",
    abstract: "Show one item",
    arguments: [item],
    examples: ["stash show \"Koleston 7/1\"", "stash show 3f2b --json"])

  static let consume = CommandSpec(
    "consume",
    abstract: "Record that units of an item were used",
    arguments: [
      item,
      ArgumentSpec("N", .integer, help: "How many were used (default 1)", isRequired: false),
    ],
    examples: ["stash consume \"Koleston 7/1\"", "stash consume 3f2b 2"])

  static let restock = CommandSpec(
    "restock",
    abstract: "Record that units of an item were added",
    arguments: [item, ArgumentSpec("N", .integer, help: "How many were added")],
    examples: ["stash restock \"Koleston 7/1\" 3"])

  static let delete = CommandSpec(
    "delete",
    abstract: "Delete an item",
    arguments: [item],
    examples: ["stash delete 3f2b"])

  static let edit = CommandSpec(
    "edit",
    abstract: "Change an item's details",
    discussion:
      "Only the options given change. An empty --brand \"\" or --barcode \"\" removes it.",
    arguments: [item],
    options: [
      OptionSpec("name", value: "NAME", help: "A new name"),
      brand,
      OptionSpec("quantity", .integer, value: "N", help: "Set the quantity"),
      unit, notes, barcode, lowStock,
      OptionSpec.flag("no-low-stock", help: "Stop warning about low stock"),
      photo,
      OptionSpec.flag("no-photo", help: "Remove the photo"),
      itemLocation,
      OptionSpec.flag("no-location", help: "Forget where it is kept"),
    ],
    exclusive: [
      ["low-stock", "no-low-stock"], ["photo", "no-photo"], ["location", "no-location"],
    ],
    examples: [
      "stash edit 3f2b --brand Wella --low-stock 2", "stash edit 3f2b --no-photo",
      "stash edit \"Koleston 7/1\" --brand \"\" --no-low-stock",
    ])

  static let duplicate = CommandSpec(
    "duplicate",
    abstract: "Copy an item as a new item",
    arguments: [item],
    options: [OptionSpec("name", value: "NEW", help: "The copy's name (default: the same name)")],
    examples: ["stash duplicate \"Koleston 7/1\" --name \"Koleston 6/0\""])

  // MARK: - Tools

  static let doctor = CommandSpec(
    "doctor",
    abstract: "Check the device folder for damage and explain any found",
    options: [
      OptionSpec.flag(
        "repair", help: "Move a damaged last transaction or damaged rows to side files first")
    ],
    examples: ["stash doctor", "stash doctor --json", "stash doctor --repair"])

  static let export = CommandSpec(
    "export",
    abstract: "Write every item to standard output",
    discussion: """
      CSV has a header line (id, name, brand, quantity, unit, notes, location, \
      lowStockThreshold, barcode, photo, photoSize, createdAt, updatedAt). JSON lines hold \
      one item per line: the record as stored, its hash, and its location's name. Photo \
      bytes stay in the device folder. The output is always the format --format names, so \
      --json changes nothing here.
      """,
    options: [
      OptionSpec(
        "format", .choice(["csv", "jsonl"]), help: "The output format", isRequired: true),
      OptionSpec("output", .path, help: "Write to this new file instead of standard output"),
    ],
    examples: [
      "stash export --format csv > items.csv", "stash export --format jsonl --output items.jsonl",
    ])

  static let importCommand = CommandSpec(
    "import",
    abstract: "Add the items in a CSV or JSON-lines file",
    discussion: """
      The whole file is checked first: one bad line and nothing is imported. Items whose id \
      is already here are left alone, so importing a file twice adds nothing. Locations are \
      found by name, or created; photos whose bytes are not in this folder are left off.
      """,
    arguments: [ArgumentSpec("FILE", .path, help: "A file written by 'stash export'")],
    options: [
      OptionSpec(
        "format", .choice(["csv", "jsonl"]),
        help: "The file's format (default: CSV for a '.csv' name or a CSV header, else jsonl)")
    ],
    examples: ["stash import items.csv", "stash import --home ~/other items.jsonl"])
}
