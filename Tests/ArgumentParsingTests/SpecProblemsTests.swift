import ArgumentParsing
import Testing

@Suite struct SpecProblemsTests {
  @Test func findsNoProblemsInTheTestTree() {
    #expect(Specs.stash.problems().isEmpty)
  }

  static let broken: [(String, CommandSpec)] = [
    (
      "option '--a' repeats",
      CommandSpec(
        "t", abstract: "T", options: [OptionSpec("a", help: "A"), OptionSpec("a", help: "A")])
    ),
    ("is reserved", CommandSpec("t", abstract: "T", options: [.flag("help", help: "H")])),
    (
      "has a value name",
      CommandSpec("t", abstract: "T", options: [OptionSpec("a", .flag, value: "X", help: "A")])
    ),
    (
      "is a flag", CommandSpec("t", abstract: "T", arguments: [ArgumentSpec("A", .flag, help: "A")])
    ),
    (
      "follows an optional one",
      CommandSpec(
        "t", abstract: "T",
        arguments: [ArgumentSpec("A", help: "A", isRequired: false), ArgumentSpec("B", help: "B")])
    ),
    (
      "is not last",
      CommandSpec(
        "t", abstract: "T",
        arguments: [ArgumentSpec("A", help: "A", isVariadic: true), ArgumentSpec("B", help: "B")])
    ),
    (
      "both subcommands and positional arguments",
      CommandSpec(
        "t", abstract: "T", arguments: [ArgumentSpec("A", help: "A")],
        subcommands: [CommandSpec("s", abstract: "S")])
    ),
    (
      "requires a subcommand but has none",
      CommandSpec("t", abstract: "T", requiresSubcommand: true)
    ),
    (
      "unknown option '--b'",
      CommandSpec("t", abstract: "T", options: [.flag("a", help: "A")], exclusive: [["a", "b"]])
    ),
    (
      "subcommand 's' repeats",
      CommandSpec(
        "t", abstract: "T",
        subcommands: [CommandSpec("s", abstract: "S"), CommandSpec("s", abstract: "S")])
    ),
    (
      "'t' > 's': option '--g' repeats",
      CommandSpec(
        "t", abstract: "T", options: [.flag("g", help: "G", isGlobal: true)],
        subcommands: [CommandSpec("s", abstract: "S", options: [.flag("g", help: "G")])])
    ),
  ]

  @Test(arguments: broken)
  func findsMistakesInACommandTree(expected: String, spec: CommandSpec) {
    let problems = spec.problems()
    #expect(problems.count == 1)
    #expect(problems.first?.contains(expected) == true, "\(problems)")
  }

  @Test func findsCommandsByPath() {
    #expect(Specs.stash.descendant(at: ["location", "add"])?.abstract == "Add a location")
    #expect(Specs.stash.descendant(at: [])?.name == "stash")
    #expect(Specs.stash.descendant(at: ["location", "nope"]) == nil)
    #expect(Specs.stash.subcommand(named: "sync")?.subcommands.count == 2)
  }
}
