import ArgumentParsing

/// Every `stash-meters` command, as one table the parser and the help are built from (the
/// same `ArgumentParsing` module as `stash`).
enum MetersCommandTable {
  /// The version `stash-meters --version` prints.
  static let version = "0.1.0"

  // Every option and argument, declared once with the type `StashMeters` reads it as.

  static let home = Option<String?>(
    "home", .path, value: "DIR",
    help: "The meter folder (default: $STASH_METERS_HOME, else 'meters')", isGlobal: true)
  static let mac = Argument<String>("MAC", help: "The meter's MAC address, in any spelling")
  static let model = Argument<String?>("MODEL", help: "The meter's model")
  static let name = Argument<String>("NAME", help: "The new name")
  static let unit = Argument<String>("UNIT", .choice(["celsius", "fahrenheit"]), help: "The unit")
  static let peripheral = Argument<String?>("PERIPHERAL", help: "The name it advertised")
  static let folder = Argument<String>("DIR", .path, help: "The shared folder")
  static let conflict = Argument<String>("ID", help: "The conflict's id or a unique prefix")
  static let side = Argument<String>(
    "SIDE", .choice(["local", "mirror", "deleted"]), help: "The version to keep")

  /// The whole tree, with `stash-meters` at the root.
  static let root = CommandSpec(
    "stash-meters",
    abstract: "Seed 000's meter settings, synced like the inventory",
    discussion: """
      An example of a tool with its own schema on Stash's generic sync folder. The folder is \
      --home, else $STASH_METERS_HOME, else 'meters'. A legacy key-value store \
      ('legacy-key-value-store.json' in the folder) is imported once, by the first command.
      """,
    options: [home.spec],
    subcommands: [
      CommandSpec(
        "pair", abstract: "Add a meter (again after 'forget': the same id)",
        arguments: [mac.spec, model.spec],
        examples: ["stash-meters pair AA:BB:CC:DD:EE:FF TC66C"]),
      CommandSpec(
        "list", abstract: "Every meter, its name, unit, lease and sightings",
        examples: ["stash-meters list"]),
      CommandSpec(
        "rename", abstract: "Name a meter",
        arguments: [mac.spec, name.spec],
        examples: ["stash-meters rename aa:bb:cc:dd:ee:ff Kitchen"]),
      CommandSpec(
        "unit", abstract: "Set a meter's temperature unit",
        arguments: [mac.spec, unit.spec],
        examples: ["stash-meters unit aa:bb:cc:dd:ee:ff celsius"]),
      CommandSpec(
        "connect", abstract: "Take the connection lease (refused while another holds it)",
        arguments: [mac.spec], examples: ["stash-meters connect aa:bb:cc:dd:ee:ff"]),
      CommandSpec(
        "disconnect", abstract: "Give the connection lease up",
        arguments: [mac.spec], examples: ["stash-meters disconnect aa:bb:cc:dd:ee:ff"]),
      CommandSpec(
        "seen", abstract: "Record a sighting (at most once per 120 s per device)",
        arguments: [mac.spec, peripheral.spec],
        examples: ["stash-meters seen aa:bb:cc:dd:ee:ff"]),
      CommandSpec(
        "forget", abstract: "Delete a meter's settings",
        arguments: [mac.spec], examples: ["stash-meters forget aa:bb:cc:dd:ee:ff"]),
      CommandSpec(
        "sync", abstract: "Import, reconcile, export",
        subcommands: [
          CommandSpec(
            "enable", abstract: "Sync through a shared folder from the next run",
            arguments: [folder.spec],
            examples: ["stash-meters sync enable ~/Sync/meters"])
        ],
        examples: ["stash-meters sync"]),
      CommandSpec(
        "conflicts", abstract: "The open conflicts", examples: ["stash-meters conflicts"]),
      CommandSpec(
        "resolve", abstract: "Resolve a conflict",
        arguments: [conflict.spec, side.spec],
        examples: ["stash-meters resolve 3f2b local"]),
    ],
    requiresSubcommand: true,
    examples: ["stash-meters pair AA:BB:CC:DD:EE:FF", "stash-meters list"],
    version: version)
}
