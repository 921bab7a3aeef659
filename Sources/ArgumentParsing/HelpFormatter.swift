/// Renders a command's help from its spec.
///
/// The layout is fixed and pinned by a golden test: OVERVIEW (and the discussion), USAGE,
/// ARGUMENTS, OPTIONS, SUBCOMMANDS and EXAMPLES, separated by blank lines, with table rows
/// indented two spaces and their descriptions starting at column 27 (a label too long for that
/// gets its description on the next line). Every line is wrapped at ``width``: the usage line,
/// the discussion, a row's description (continued at column 27) and an example (continued
/// with a shell ` \` and four spaces, so that it still pastes as one command). Only a single
/// word longer than the width stays over it.
public struct HelpFormatter: Sendable {
  /// The column at which every line wraps.
  public var width: Int

  /// Creates a formatter.
  ///
  /// The default width suits a terminal of 100 columns.
  ///
  /// - Parameter width: The column at which lines wrap (at least 40 is used).
  public init(width: Int = 100) {
    self.width = max(40, width)
  }

  /// The help text of a command in a tree.
  ///
  /// The text has no trailing newline.
  ///
  /// - Parameters:
  ///   - path: Subcommand names below the root, such as `["location", "add"]`.
  ///   - root: The root of the command tree.
  /// - Returns: The help text, or `nil` for an unknown path.
  public func help(for path: [String], in root: CommandSpec) -> String? {
    CommandChain(root: root, path: path).map(help(for:))
  }

  /// The usage lines of a command in a tree, without the `USAGE: ` prefix.
  ///
  /// A command that runs by itself and also has subcommands gets two lines.
  ///
  /// - Parameters:
  ///   - path: Subcommand names below the root.
  ///   - root: The root of the command tree.
  /// - Returns: The usage lines, unwrapped, or `nil` for an unknown path.
  public func usage(for path: [String], in root: CommandSpec) -> [String]? {
    CommandChain(root: root, path: path).map(usageForms(for:)).map { forms in
      forms.map { $0.joined(separator: " ") }
    }
  }

  func help(for chain: CommandChain) -> String {
    let command = chain.command
    var sections: [[String]] = [
      wrap(
        command.abstract.split(separator: " ").map(String.init), first: "OVERVIEW:",
        rest: "          ", separatedFromFirst: true)
    ]
    if let discussion = command.discussion {
      sections.append(
        discussion.split(separator: "\n", omittingEmptySubsequences: false).flatMap {
          wrap(String($0).split(separator: " ").map(String.init), first: "", rest: "")
        })
    }
    let prefix = "USAGE: "
    let forms = usageForms(for: chain)
    sections.append(
      forms.enumerated().flatMap { offset, words in
        let lead = offset == 0 ? prefix : String(repeating: " ", count: prefix.count)
        let head = lead + words.prefix(chain.commands.count).joined(separator: " ") + " "
        let indent = String(repeating: " ", count: head.count <= width / 2 ? head.count : 7)
        let body = Array(words.dropFirst(chain.commands.count))
        return body.isEmpty ? [String(head.dropLast())] : wrap(body, first: head, rest: indent)
      })
    if !command.arguments.isEmpty {
      sections.append(
        ["ARGUMENTS:"] + command.arguments.flatMap { row("<\($0.name)>", $0.help) })
    }
    var optionRows = chain.options.flatMap { row($0.label, $0.help) }
    if chain.acceptsVersion { optionRows += row("--version", "Show the version") }
    optionRows += row("-h, --help", "Show help for this command")
    sections.append(["OPTIONS:"] + optionRows)
    if !command.subcommands.isEmpty {
      sections.append(["SUBCOMMANDS:"] + command.subcommands.flatMap { row($0.name, $0.abstract) })
    }
    if !command.examples.isEmpty {
      sections.append(["EXAMPLES:"] + command.examples.flatMap(example))
    }
    return sections.map { $0.joined(separator: "\n") }.joined(separator: "\n\n")
  }

  /// Each usage form as words: the command names first, then arguments and options.
  private func usageForms(for chain: CommandChain) -> [[String]] {
    let command = chain.command
    let names = chain.commands.map(\.name)
    let subcommandForm = names + ["<subcommand>"]
    if command.requiresSubcommand { return [subcommandForm] }
    var words = names + command.arguments.map(\.usage)
    var grouped = Set<String>()
    for option in chain.options where !grouped.contains(option.name) {
      if let group = command.exclusive.first(where: { $0.contains(option.name) }) {
        let members = group.compactMap { name in chain.options.first { $0.name == name } }
        words.append("[" + members.map(\.label).joined(separator: " | ") + "]")
        grouped.formUnion(group)
      } else {
        let text = option.label + (option.isRepeatable ? " ..." : "")
        words.append(option.isRequired ? text : "[\(text)]")
      }
    }
    return command.subcommands.isEmpty ? [words] : [words, subcommandForm]
  }

  /// One table row: the label padded to column 27, or alone with the text on the next line;
  /// the text wrapped at the width and continued at column 27.
  private func row(_ label: String, _ text: String) -> [String] {
    let column = 26
    let lead = "  " + label
    let indent = String(repeating: " ", count: column)
    let words = text.split(separator: " ").map(String.init)
    if lead.count + 2 <= column {
      return wrap(
        words, first: lead + String(repeating: " ", count: column - lead.count), rest: indent)
    }
    return [lead] + wrap(words, first: indent, rest: indent)
  }

  /// One example, indented two spaces; a long one is split between words outside quotes, each
  /// line but the last ending with ` \\`, so that it still pastes as one shell command.
  private func example(_ text: String) -> [String] {
    let line = "  " + text
    guard line.count > width else { return [line] }
    var words: [String] = []
    var word = ""
    var quote: Character?
    for character in text {
      if character == " " && quote == nil {
        if !word.isEmpty { words.append(word) }
        word = ""
        continue
      }
      if character == "\"" || character == "'" {
        if quote == nil { quote = character } else if quote == character { quote = nil }
      }
      word.append(character)
    }
    if !word.isEmpty { words.append(word) }
    var lines: [String] = []
    var current = "  "
    var hasWord = false
    for word in words {
      // Room for the word and, unless it is the last line, the ` \\` that continues it.
      if hasWord && current.count + 1 + word.count + 2 > width {
        lines.append(current + " \\")
        current = "      "
        hasWord = false
      }
      current += (hasWord ? " " : "") + word
      hasWord = true
    }
    lines.append(current)
    return lines
  }

  /// Greedy word wrap: the first line starts with `first`, later ones with `rest`.
  private func wrap(
    _ words: [String], first: String, rest: String, separatedFromFirst: Bool = false
  ) -> [String] {
    var lines: [String] = []
    var line = first
    var lineHasWord = separatedFromFirst
    for word in words {
      if lineHasWord && line.count + 1 + word.count > width {
        lines.append(line)
        line = rest
        lineHasWord = false
      }
      line += (lineHasWord ? " " : "") + word
      lineHasWord = true
    }
    lines.append(line)
    return lines
  }
}
