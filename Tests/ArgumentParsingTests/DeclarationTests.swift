import ArgumentParsing
import Testing

/// A small tree declared the way `stash` declares its commands: typed values whose specs the
/// commands list, read back by handlers through the same values.
private enum Declared {
  static let home = Option<String?>(
    "home", .path, value: "DIR",
    help: "The device folder (default: $STASH_HOME, else $XDG_DATA_HOME/stash, else "
      + "~/.local/share/stash)",
    isGlobal: true)
  static let json = Flag("json", help: "Print machine-readable output", isGlobal: true)
  static let item = Argument<String>("ITEM", help: Specs.itemHelp)
  static let count = Argument<Int64?>("N", help: "How many were used (default 1)")
  static let quantity = Option<Int64?>("quantity", value: "N", help: "How many units you have")
  static let radius = Option<Double?>("radius", value: "D", help: "Radius in metres")
  static let message = Option<String>("message", value: "TEXT", help: "What to say")
  static let format = Option<String?>("format", .choice(["csv", "jsonl"]), help: "The format")
  static let tags = Option<[String]>("tag", value: "T", help: "A tag")
  static let files = Argument<[String]>("FILES", .path, help: "Files")

  static let consume = CommandSpec(
    "consume",
    abstract: "Record that units of an item were used",
    arguments: [item.spec, count.spec],
    examples: ["stash consume \"Koleston 7/1\"", "stash consume 3f2b 2"])

  static let note = CommandSpec(
    "note",
    abstract: "Note something",
    arguments: [files.spec],
    options: [quantity.spec, radius.spec, message.spec, format.spec, tags.spec],
    examples: ["stash note --message hi"])

  static let root = CommandSpec(
    "stash",
    abstract: "Keep an inventory of what you have",
    options: [home.spec, json.spec],
    subcommands: [consume, note],
    requiresSubcommand: true,
    examples: ["stash consume 3f2b"])
}

@Suite struct DeclarationTests {
  @Test func aDeclaredCommandHasTheGoldenHelpOfItsSpecs() throws {
    let text = try #require(helpText(words("consume --help"), in: Declared.root))
    #expect(text == Golden.consumeHelp)
    #expect(Declared.consume == Specs.consume)
  }

  @Test func aDeclaredOptionIsTheSpecWrittenByHand() {
    #expect(Declared.home.spec == Specs.home)
    #expect(
      Declared.quantity.spec
        == OptionSpec("quantity", .integer, value: "N", help: "How many units you have"))
    #expect(
      Declared.json.spec == .flag("json", help: "Print machine-readable output", isGlobal: true))
    #expect(
      Declared.format.spec == OptionSpec("format", .choice(["csv", "jsonl"]), help: "The format"))
  }

  @Test func aDeclaredOptionAppearsInHelpExactlyAsBefore() throws {
    let handWritten = CommandSpec(
      "note", abstract: "Note something",
      arguments: [ArgumentSpec("FILES", .path, help: "Files", isRequired: false, isVariadic: true)],
      options: [
        OptionSpec("quantity", .integer, value: "N", help: "How many units you have"),
        OptionSpec("radius", .decimal, value: "D", help: "Radius in metres"),
        OptionSpec("message", value: "TEXT", help: "What to say", isRequired: true),
        OptionSpec("format", .choice(["csv", "jsonl"]), help: "The format"),
        OptionSpec("tag", value: "T", help: "A tag", isRepeatable: true),
      ],
      examples: ["stash note --message hi"])
    var root = Declared.root
    root.subcommands = [handWritten]
    let expected = try #require(HelpFormatter().help(for: ["note"], in: root))
    let declared = try #require(HelpFormatter().help(for: ["note"], in: Declared.root))
    #expect(declared == expected)
    #expect(
      declared.contains(
        "USAGE: stash note [<FILES> ...] [--quantity N] [--radius D] --message TEXT"
          + " [--format csv|jsonl]\n                  [--tag T ...] [--home DIR] [--json]\n"))
    #expect(declared.contains("\n  --tag T                 A tag\n"))
  }

  @Test func theValueTypeDecidesWhetherAValueIsRequiredRepeatedOrVariadic() {
    #expect(Declared.message.spec.isRequired && !Declared.message.spec.isRepeatable)
    #expect(!Declared.quantity.spec.isRequired && !Declared.quantity.spec.isRepeatable)
    #expect(!Declared.tags.spec.isRequired && Declared.tags.spec.isRepeatable)
    #expect(Declared.item.spec.isRequired && !Declared.item.spec.isVariadic)
    #expect(!Declared.count.spec.isRequired && !Declared.count.spec.isVariadic)
    #expect(!Declared.files.spec.isRequired && Declared.files.spec.isVariadic)
    #expect(Declared.files.spec.kind == .path && Declared.count.spec.kind == .integer)
    #expect(Declared.radius.spec.kind == .decimal)
  }

  @Test func aHandlerReadsEachValueWithItsType() throws {
    let parsed = try command(
      words("--home /tmp/h note a b --quantity -3 --radius 2.5 --message hi --tag x --tag y"),
      in: Declared.root)
    let quantity: Int64? = parsed[Declared.quantity]
    let radius: Double? = parsed[Declared.radius]
    let message: String = parsed[Declared.message]
    #expect(quantity == -3)
    #expect(radius == 2.5)
    #expect(message == "hi")
    #expect(parsed[Declared.tags] == ["x", "y"])
    #expect(parsed[Declared.files] == ["a", "b"])
    #expect(parsed[Declared.format] == nil)
    #expect(parsed[Declared.home] == "/tmp/h")
    #expect(parsed[Declared.json] == false)
  }

  @Test func valuesLeftOutReadAsAbsent() throws {
    let parsed = try command(words("note --message hi --json --format=csv"), in: Declared.root)
    #expect(parsed[Declared.quantity] == nil)
    #expect(parsed[Declared.tags].isEmpty)
    #expect(parsed[Declared.files].isEmpty)
    #expect(parsed[Declared.home] == nil)
    #expect(parsed[Declared.json])
    #expect(parsed[Declared.format] == "csv")
    #expect(parsed.isGiven(Declared.message.spec))
    #expect(!parsed.isGiven(Declared.radius.spec))
    #expect(Declared.note.options.filter(parsed.isGiven).map(\.name) == ["message", "format"])
  }

  @Test func aRequiredArgumentIsReadWithoutUnwrapping() throws {
    let parsed = try command(words("consume 3f2b"), in: Declared.root)
    let item: String = parsed[Declared.item]
    #expect(item == "3f2b")
    #expect(parsed[Declared.count] == nil)
    #expect(try command(words("consume 3f2b 2"), in: Declared.root)[Declared.count] == 2)
  }

  @Test func aDeclaredRequiredOptionIsStillRefusedWhenMissing() throws {
    let error = try #require(failure(words("note"), in: Declared.root))
    #expect(error.kind == .missingOption)
    #expect(error.message == "Missing option '--message' for 'stash note'; add '--message TEXT'")
  }
}
