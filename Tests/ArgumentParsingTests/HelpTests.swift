import ArgumentParsing
import Testing

@Suite struct HelpTests {
  @Test func rendersTheGoldenHelpOfConsume() throws {
    #expect(helpText(["consume", "--help"]) == Golden.consumeHelp)
  }

  @Test(arguments: [
    ["--help"], ["-h"], ["--json", "-h"],
  ])
  func showsTheRootHelpAtTheRoot(arguments: [String]) throws {
    let text = try #require(helpText(arguments))
    #expect(
      text.hasPrefix("OVERVIEW: Keep an inventory of what you have\n\nUSAGE: stash <subcommand>\n"))
    #expect(text.contains("\n  --version               Show the version\n"))
    #expect(
      text.contains(
        "\nSUBCOMMANDS:\n  consume                 Record that units of an item were used\n"))
  }

  @Test(arguments: [
    ["consume", "-h"], ["consume", "3f2b", "--help"], ["-h", "consume"],
    ["consume", "--help", "x", "y", "z"],
  ])
  func showsTheHelpOfTheCommandReachedSoFar(arguments: [String]) throws {
    let text = try #require(helpText(arguments))
    let expected =
      arguments[0] == "-h" ? "OVERVIEW: Keep an inventory" : "OVERVIEW: Record that units"
    #expect(text.hasPrefix(expected))
  }

  @Test func showsTheHelpOfANestedSubcommand() throws {
    let text = try #require(helpText(words("location add --help")))
    #expect(
      text == """
        OVERVIEW: Add a location

        USAGE: stash location add <NAME> [--latitude D] [--radius D] [--home DIR] [--json]

        ARGUMENTS:
          <NAME>                  The location's name

        OPTIONS:
          --latitude D            Latitude in degrees
          --radius D              Radius in metres
          --home DIR              The device folder (default: $STASH_HOME, else $XDG_DATA_HOME/stash, else
                                  ~/.local/share/stash)
          --json                  Print machine-readable output
          -h, --help              Show help for this command

        EXAMPLES:
          stash location add shop --latitude 52.37
        """)
  }

  @Test func listsSubcommandsAndBothUsageFormsOfARunnableGroup() throws {
    let text = try #require(helpText(words("sync --help")))
    #expect(
      text.contains("USAGE: stash sync [--home DIR] [--json]\n       stash sync <subcommand>\n"))
    #expect(
      text.contains(
        "\n\nSUBCOMMANDS:\n  status                  Show sync state\n  enable                  Turn on sync\n"
      ))
  }

  @Test func showsHelpWhenALineWithAMistakeAlsoAsksForIt() throws {
    let text = try #require(helpText(words("consume --bogus --help")))
    #expect(text == Golden.consumeHelp)
    #expect(helpText(words("lcation --help"))?.hasPrefix("OVERVIEW: Keep an inventory") == true)
  }

  @Test func showsHelpWhenHelpIsGivenWhereAValueBelongs() throws {
    #expect(
      helpText(words("add Soap --quantity --help"))?.hasPrefix("OVERVIEW: Add an item") == true)
  }

  @Test func refusesAValueForHelp() throws {
    let error = try #require(failure(["consume", "--help=yes"]))
    #expect(error.kind == .flagGivenValue)
  }

  @Test func groupsExclusiveOptionsAndMarksRequiredOnesInTheUsage() throws {
    let edit = try #require(helpText(words("edit -h")))
    #expect(
      edit.contains(
        "USAGE: stash edit <ITEM> [--photo FILE | --no-photo] [--location L | --no-location] "
          + "[--home DIR]\n                  [--json]\n"))
    let reminder = try #require(helpText(words("reminder -h")))
    #expect(
      reminder.contains(
        "USAGE: stash reminder --message TEXT [--trigger arrive|leave] [--home DIR] [--json]\n"))
    #expect(reminder.contains("\n  --trigger arrive|leave  When\n"))
  }

  @Test func marksRepeatableOptionsAndVariadicArgumentsInTheUsage() throws {
    let text = try #require(helpText(words("kinds -h")))
    #expect(text.contains("USAGE: stash kinds [<FILES> ...] [--int N] "))
    #expect(text.contains(" [--tag T ...] "))
    #expect(text.contains("\n  --mode fast|slow        A choice\n"))
  }

  @Test func putsTheTextOfALongLabelOnTheNextLine() throws {
    let root = CommandSpec(
      "tool", abstract: "A tool",
      options: [OptionSpec("a-very-long-option-name", value: "VALUE", help: "Long")],
      examples: ["tool"])
    let text = try #require(ArgumentParser(root: root).help(for: []))
    #expect(text.contains("\n  --a-very-long-option-name VALUE\n                          Long\n"))
  }

  @Test func wrapsTheUsageAndTheDiscussionAtTheFormatterWidth() throws {
    let root = CommandSpec(
      "tool", abstract: "A tool",
      discussion: "One two three four five six seven.\nEight nine.",
      options: (1...4).map { OptionSpec("option-\($0)", help: "Option \($0)") },
      examples: ["tool"])
    let parser = ArgumentParser(root: root, formatter: HelpFormatter(width: 40))
    let text = try #require(parser.help(for: []))
    #expect(
      text.hasPrefix(
        """
        OVERVIEW: A tool

        One two three four five six seven.
        Eight nine.

        USAGE: tool [--option-1 TEXT]
                    [--option-2 TEXT]
                    [--option-3 TEXT]
                    [--option-4 TEXT]

        OPTIONS:
        """))
  }

  @Test func returnsNoHelpForAnUnknownPath() {
    #expect(ArgumentParser(root: Specs.stash).help(for: ["nope"]) == nil)
    #expect(HelpFormatter().usage(for: ["sync"], in: Specs.stash)?.count == 2)
  }
}

@Suite struct HelpWrappingTests {
  @Test func wrapsRowsAndExamplesAtTheWidthAndKeepsExamplesPastable() throws {
    let root = CommandSpec(
      "tool", abstract: "A tool whose overview is long enough to need a second line here",
      options: [
        OptionSpec("colour", help: "One two three four five six seven eight nine ten eleven")
      ],
      examples: ["tool --colour \"a long quoted value that stays whole\" --colour b --colour c"])
    let text = try #require(
      ArgumentParser(root: root, formatter: HelpFormatter(width: 50)).help(for: []))
    for line in text.split(separator: "\n") { #expect(line.count <= 50, "\(line)") }
    #expect(
      text.hasPrefix(
        "OVERVIEW: A tool whose overview is long enough to\n          need a second line here\n"))
    #expect(
      text.contains(
        "  --colour TEXT           One two three four five\n"
          + "                          six seven eight nine ten\n"))
    #expect(
      text.contains(
        "  tool --colour \\\n      \"a long quoted value that stays whole\" \\\n"
          + "      --colour b --colour c"))
  }
}
