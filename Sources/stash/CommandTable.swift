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
    options: [home.spec, json.spec],
    subcommands: [
      initCommand, add, list, show, consume, restock, delete, edit, duplicate,
      location, reminder, sync, conflicts, doctor, export, importCommand, history, undo,
    ],
    requiresSubcommand: true,
    examples: [
      "stash init --name kitchen",
      "stash add \"Koleston 7/1\" --quantity 3 --location bathroom",
      "stash list --low-stock",
      "stash help sync",
    ],
    version: version)

  // MARK: - Shared pieces

  // Every option and argument is declared once, with the type its handler reads it as
  // (`arguments[CommandTable.quantity]` is an `Int64?`); a command lists their specs.

  static let home = Option<String?>(
    "home", .path, value: "DIR",
    help: "The device folder (default: $STASH_HOME, else $XDG_DATA_HOME/stash, else "
      + "~/.local/share/stash)",
    isGlobal: true)
  static let json = Flag("json", help: "Print machine-readable output", isGlobal: true)

  static let item = Argument<String>(
    "ITEM", help: "An id, a unique id prefix (4+ characters) or an exact name")

  static let quantity = Option<Int64?>(
    "quantity", value: "N", help: "How many units you have")
  static let unit = Option<String?>(
    "unit", value: "U", help: "What one unit is, such as tube or box")
  static let brand = Option<String?>("brand", value: "B", help: "The brand")
  static let notes = Option<String?>("notes", value: "T", help: "Free-form notes")
  static let itemLocation = Option<String?>(
    "location", value: "L", help: "Where it is kept: a location id, id prefix or name")
  static let photo = Option<String?>(
    "photo", .path, value: "FILE", help: "A photo of it to attach")
  static let lowStock = Option<Int64?>(
    "low-stock", value: "N", help: "Warn when the quantity falls to N or below")
  static let barcode = Option<String?>("barcode", value: "C", help: "The barcode printed on it")
  static let newName = Option<String?>("name", value: "NAME", help: "A new name")

  // MARK: - Items

  static let deviceName = Option<String?>(
    "name", value: "DEVICE",
    help: "A name for this device (default: the host name and the start of its id)")
  static let itemName = Argument<String>("NAME", help: "The item's name")
  static let locationFilter = Option<String?>(
    "location", value: "L", help: "Only items kept at this location")
  static let lowStockFilter = Flag(
    "low-stock", help: "Only items at or below their low-stock level")
  static let consumed = Argument<Int64?>("N", help: "How many were used (default 1)")
  static let restocked = Argument<Int64>("N", help: "How many were added")
  static let recount = Option<Int64?>("quantity", value: "N", help: "Set the quantity")
  static let noLowStock = Flag("no-low-stock", help: "Stop warning about low stock")
  static let noPhoto = Flag("no-photo", help: "Remove the photo")
  static let noLocation = Flag("no-location", help: "Forget where it is kept")
  static let copyName = Option<String?>(
    "name", value: "NEW", help: "The copy's name (default: the same name)")

  static let initCommand = CommandSpec(
    "init",
    abstract: "Create the device folder and its stores",
    options: [deviceName.spec],
    examples: ["stash init", "stash init --name kitchen --home ~/stash"])

  static let add = CommandSpec(
    "add",
    abstract: "Add an item",
    arguments: [itemName.spec],
    options: [
      quantity.spec, unit.spec, brand.spec, notes.spec, itemLocation.spec, photo.spec,
      lowStock.spec, barcode.spec,
    ],
    examples: [
      "stash add \"Koleston 7/1\"",
      "stash add \"AA batteries\" --quantity 12 --unit battery --low-stock 4",
    ])

  static let list = CommandSpec(
    "list",
    abstract: "List items",
    options: [locationFilter.spec, lowStockFilter.spec, pendingFilter.spec],
    examples: [
      "stash list", "stash list --location bathroom --low-stock --json", "stash list --pending",
    ])

  static let show = CommandSpec(
    "show",
    abstract: "Show one item",
    arguments: [item.spec],
    examples: ["stash show \"Koleston 7/1\"", "stash show 3f2b --json"])

  static let consume = CommandSpec(
    "consume",
    abstract: "Record that units of an item were used",
    arguments: [item.spec, consumed.spec],
    examples: ["stash consume \"Koleston 7/1\"", "stash consume 3f2b 2"])

  static let restock = CommandSpec(
    "restock",
    abstract: "Record that units of an item were added",
    arguments: [item.spec, restocked.spec],
    examples: ["stash restock \"Koleston 7/1\" 3"])

  static let delete = CommandSpec(
    "delete",
    abstract: "Delete an item",
    arguments: [item.spec],
    examples: ["stash delete 3f2b"])

  static let edit = CommandSpec(
    "edit",
    abstract: "Change an item's details",
    discussion:
      "Only the options given change. An empty --brand \"\" or --barcode \"\" removes it.",
    arguments: [item.spec],
    options: [
      newName.spec, brand.spec, recount.spec, unit.spec, notes.spec, barcode.spec, lowStock.spec,
      noLowStock.spec, photo.spec, noPhoto.spec, itemLocation.spec, noLocation.spec,
    ],
    exclusive: [
      [lowStock.spec, noLowStock.spec], [photo.spec, noPhoto.spec],
      [itemLocation.spec, noLocation.spec],
    ].map { $0.map(\.name) },
    examples: [
      "stash edit 3f2b --brand Wella --low-stock 2", "stash edit 3f2b --no-photo",
      "stash edit \"Koleston 7/1\" --brand \"\" --no-low-stock",
    ])

  static let duplicate = CommandSpec(
    "duplicate",
    abstract: "Copy an item as a new item",
    arguments: [item.spec],
    options: [copyName.spec],
    examples: ["stash duplicate \"Koleston 7/1\" --name \"Koleston 6/0\""])

  // MARK: - Tools

  static let repair = Flag(
    "repair", help: "Move a damaged last transaction or damaged rows to side files first")
  static let exportFormat = Option<String>(
    "format", .choice(["csv", "jsonl"]), help: "The output format")
  static let output = Option<String?>(
    "output", .path, help: "Write to this new file instead of standard output")
  static let file = Argument<String>("FILE", .path, help: "A file written by 'stash export'")
  static let importFormat = Option<String?>(
    "format", .choice(["csv", "jsonl"]),
    help: "The file's format (default: CSV for a '.csv' name or a CSV header, else jsonl)")

  static let doctor = CommandSpec(
    "doctor",
    abstract: "Check the device folder for damage and explain any found",
    options: [repair.spec],
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
    options: [exportFormat.spec, output.spec],
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
    arguments: [file.spec],
    options: [importFormat.spec],
    examples: ["stash import items.csv", "stash import --home ~/other items.jsonl"])
}
