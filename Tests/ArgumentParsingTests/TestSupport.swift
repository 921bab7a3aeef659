import Testing

@testable import ArgumentParsing

/// Command trees the tests parse against.
enum Specs {
  static let itemHelp = "An id, a unique id prefix (4+ characters) or an exact name"
  static let item = ArgumentSpec("ITEM", help: itemHelp)

  static let home = OptionSpec(
    "home", .path, value: "DIR",
    help: "The device folder (default: $STASH_HOME, else $XDG_DATA_HOME/stash, else "
      + "~/.local/share/stash)",
    isGlobal: true)

  /// A cut-down `stash` tree; `consume` matches the real tool's so the golden help is shared.
  static let stash = CommandSpec(
    "stash",
    abstract: "Keep an inventory of what you have",
    options: [home, .flag("json", help: "Print machine-readable output", isGlobal: true)],
    subcommands: [consume, add, edit, location, sync, reminder, importCommand, kinds],
    requiresSubcommand: true,
    examples: ["stash list"],
    version: "0.1.0")

  static let consume = CommandSpec(
    "consume",
    abstract: "Record that units of an item were used",
    arguments: [
      item, ArgumentSpec("N", .integer, help: "How many were used (default 1)", isRequired: false),
    ],
    examples: ["stash consume \"Koleston 7/1\"", "stash consume 3f2b 2"])

  static let add = CommandSpec(
    "add",
    abstract: "Add an item",
    arguments: [ArgumentSpec("NAME", help: "The item's name")],
    options: [
      OptionSpec("quantity", .integer, value: "N", help: "How many units you have"),
      OptionSpec("unit", value: "U", help: "What one unit is"),
      OptionSpec("notes", value: "T", help: "Free-form notes"),
      OptionSpec("location", value: "L", help: "Where it is kept"),
      OptionSpec("photo", .path, value: "FILE", help: "A photo to attach"),
      OptionSpec("low-stock", .integer, value: "N", help: "Warn at N or below"),
    ],
    examples: ["stash add Soap"])

  static let edit = CommandSpec(
    "edit",
    abstract: "Change an item",
    arguments: [item],
    options: [
      OptionSpec("photo", .path, value: "FILE", help: "A new photo"),
      .flag("no-photo", help: "Remove the photo"),
      OptionSpec("location", value: "L", help: "Where it is kept"),
      .flag("no-location", help: "Forget where it is kept"),
    ],
    exclusive: [["photo", "no-photo"], ["location", "no-location"]],
    examples: ["stash edit 3f2b --no-photo"])

  static let location = CommandSpec(
    "location",
    abstract: "Manage locations",
    subcommands: [
      CommandSpec(
        "add",
        abstract: "Add a location",
        arguments: [ArgumentSpec("NAME", help: "The location's name")],
        options: [
          OptionSpec("latitude", .decimal, value: "D", help: "Latitude in degrees"),
          OptionSpec("radius", .decimal, value: "D", help: "Radius in metres"),
        ],
        examples: ["stash location add shop --latitude 52.37"]),
      CommandSpec("list", abstract: "List locations", examples: ["stash location list"]),
    ],
    requiresSubcommand: true,
    examples: ["stash location list"])

  static let sync = CommandSpec(
    "sync",
    abstract: "Exchange changes",
    subcommands: [
      CommandSpec("status", abstract: "Show sync state", examples: ["stash sync status"]),
      CommandSpec(
        "enable",
        abstract: "Turn on sync",
        options: [OptionSpec("cloud", .path, value: "DIR", help: "The folder", isRequired: true)],
        examples: ["stash sync enable --cloud ~/Dropbox"]),
    ],
    examples: ["stash sync"])

  static let reminder = CommandSpec(
    "reminder",
    abstract: "Add a reminder",
    options: [
      OptionSpec("message", value: "TEXT", help: "What to say", isRequired: true),
      OptionSpec("trigger", .choice(["arrive", "leave"]), help: "When"),
    ],
    examples: ["stash reminder --message hi"])

  static let importCommand = CommandSpec(
    "import",
    abstract: "Import a file",
    arguments: [ArgumentSpec("FILE", .path, help: "The file")],
    examples: ["stash import items.csv"])

  /// One option of every kind, a repeatable option and a variadic argument.
  static let kinds = CommandSpec(
    "kinds",
    abstract: "Exercise every value kind",
    arguments: [ArgumentSpec("FILES", .path, help: "Files", isRequired: false, isVariadic: true)],
    options: [
      OptionSpec("int", .integer, help: "An integer"),
      OptionSpec("dec", .decimal, help: "A decimal"),
      OptionSpec("text", help: "Some text"),
      OptionSpec("file", .path, help: "A path"),
      OptionSpec("mode", .choice(["fast", "slow"]), help: "A choice"),
      OptionSpec("tag", value: "T", help: "A tag", isRepeatable: true),
      .flag("verbose", help: "A flag"),
    ],
    examples: ["stash kinds --int 5"])
}

/// Splits a command line on single spaces: `"add Soap --quantity 5"`.
func words(_ line: String) -> [String] {
  line.split(separator: " ").map(String.init)
}

/// Parses and returns the outcome, recording an issue (and rethrowing) on a usage error.
func outcome(_ arguments: [String], in root: CommandSpec = Specs.stash) throws -> ParseOutcome {
  try ArgumentParser(root: root).parse(arguments)
}

/// Parses a line that must name a command and returns its values.
func command(_ arguments: [String], in root: CommandSpec = Specs.stash) throws -> ParsedArguments {
  let result = try outcome(arguments, in: root)
  guard case .command(let parsed) = result else {
    Issue.record("Expected a command, got \(result)")
    throw UsageError(.unknownCommand, message: "not a command", path: [], rootName: "test")
  }
  return parsed
}

/// Parses a line that must fail and returns the usage error (`nil`, with an issue, otherwise).
func failure(
  _ arguments: [String],
  in root: CommandSpec = Specs.stash,
  sourceLocation: SourceLocation = #_sourceLocation
) -> UsageError? {
  do throws(UsageError) {
    let result = try ArgumentParser(root: root).parse(arguments)
    Issue.record("Expected a usage error, got \(result)", sourceLocation: sourceLocation)
    return nil
  } catch {
    return error
  }
}

/// The help text a line produced (`nil`, with an issue, when it produced something else).
func helpText(
  _ arguments: [String], in root: CommandSpec = Specs.stash,
  sourceLocation: SourceLocation = #_sourceLocation
) -> String? {
  guard case .help(let text) = try? outcome(arguments, in: root) else {
    Issue.record("Expected help for \(arguments)", sourceLocation: sourceLocation)
    return nil
  }
  return text
}

/// Golden help texts, shared by the parser tests and the tests of the built `stash` binary.
enum Golden {
  static let consumeHelp = """
    OVERVIEW: Record that units of an item were used

    USAGE: stash consume <ITEM> [<N>] [--home DIR] [--json]

    ARGUMENTS:
      <ITEM>                  An id, a unique id prefix (4+ characters) or an exact name
      <N>                     How many were used (default 1)

    OPTIONS:
      --home DIR              The device folder (default: $STASH_HOME, else $XDG_DATA_HOME/stash, else
                              ~/.local/share/stash)
      --json                  Print machine-readable output
      -h, --help              Show help for this command

    EXAMPLES:
      stash consume "Koleston 7/1"
      stash consume 3f2b 2
    """
}
