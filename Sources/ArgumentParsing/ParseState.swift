/// The parser's progress through one command line.
struct ParseState {
  /// A token that answers the whole command line by itself.
  enum Answer {
    case help
    case version
  }

  private(set) var chain: CommandChain
  private(set) var optionsEnded = false
  /// Whether the line asked for help by name (`stash help sync`): the names after `help` lead
  /// to the command whose help is the answer.
  private(set) var isHelpByName = false
  private var options: [String: OptionSpec] = [:]
  private var values: [String: [ParsedValue]] = [:]
  private var given: [String] = []
  private var positionals: [String] = []

  init(root: CommandSpec) {
    chain = CommandChain(root: root)
    options = Self.lookup(chain.options)
  }

  static func isHelp(_ token: String) -> Bool {
    token == "-h" || token == "--help"
  }

  /// Reads one token, and the option value after it when it needs one.
  mutating func read(
    _ token: String,
    from arguments: [String],
    at index: inout Int
  ) throws(UsageError) -> Answer? {
    if optionsEnded {
      positionals.append(token)
    } else if token == "--" {
      optionsEnded = true
    } else if Self.isHelp(token) {
      return .help
    } else if token.hasPrefix("--") {
      return try readOption(token, from: arguments, at: &index)
    } else if token.hasPrefix("-") && !Self.isPositionalDash(token) {
      throw unknownOption(token)
    } else if isHelpByName {
      try enterForHelp(token)
    } else if chain.isAtRoot, token == ArgumentParser.helpCommand,
      chain.command.subcommand(named: token) == nil, !chain.command.subcommands.isEmpty
    {
      isHelpByName = true
    } else if !chain.command.subcommands.isEmpty {
      try enter(token)
    } else {
      positionals.append(token)
    }
    return nil
  }

  /// Checks what can only be checked at the end and returns the values.
  func finish() throws(UsageError) -> ParsedArguments {
    let command = chain.command
    if command.requiresSubcommand {
      let names = command.subcommands.map { "'\($0.name)'" }.joined(separator: ", ")
      throw chain.error(
        .missingSubcommand, "Missing subcommand for '\(chain.commandLine)'; use one of \(names)")
    }
    var values = self.values
    var remaining = positionals[...]
    for argument in command.arguments {
      let taken = argument.isVariadic ? remaining : remaining.prefix(1)
      remaining = remaining.dropFirst(taken.count)
      if taken.isEmpty && argument.isRequired {
        throw chain.error(
          .missingArgument,
          "Missing argument '<\(argument.name)>' for '\(chain.commandLine)'; usage: '\(usage)'")
      }
      for text in taken {
        values[argument.name, default: []].append(
          try convert(text, kind: argument.kind, subject: "<\(argument.name)>", sample: nil))
      }
    }
    if let extra = remaining.first {
      let hint = command.arguments.isEmpty ? "it takes no arguments" : "usage: '\(usage)'"
      throw chain.error(
        .unexpectedArgument, "Unexpected argument '\(extra)' for '\(chain.commandLine)'; \(hint)")
    }
    for option in chain.options where option.isRequired && values[option.name] == nil {
      throw chain.error(
        .missingOption,
        "Missing option '\(option.flagText)' for '\(chain.commandLine)'; add '\(option.label)'")
    }
    for group in command.exclusive {
      var used: [String] = []
      for name in given where group.contains(name) && !used.contains(name) { used.append(name) }
      if used.count > 1 {
        throw chain.error(
          .exclusiveOptions,
          "Options '--\(used[0])' and '--\(used[1])' cannot be used together; keep one of them")
      }
    }
    return ParsedArguments(
      path: chain.path,
      values: values,
      arguments: Dictionary(
        command.arguments.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a }),
      options: options)
  }

  /// The command and its positional arguments, for messages: `stash restock <ITEM> <N>`.
  private var usage: String {
    ([chain.commandLine] + chain.command.arguments.map(\.usage)).joined(separator: " ")
  }

  /// `-` alone and negative numbers such as `-3` or `-0.5` are positional values.
  private static func isPositionalDash(_ token: String) -> Bool {
    guard let second = token.dropFirst().first else { return true }
    return second.isASCII && (second.isNumber || second == ".")
  }

  private static func lookup(_ options: [OptionSpec]) -> [String: OptionSpec] {
    Dictionary(options.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
  }

  /// Moves down to the subcommand `name` for `help NAME…`; a command without subcommands
  /// has none to move to.
  private mutating func enterForHelp(_ name: String) throws(UsageError) {
    guard !chain.command.subcommands.isEmpty else {
      throw chain.error(
        .unknownCommand,
        "Unknown command '\(name)' for '\(chain.commandLine)', which has no subcommands")
    }
    try enter(name)
  }

  private mutating func enter(_ name: String) throws(UsageError) {
    guard let subcommand = chain.command.subcommand(named: name) else {
      let suggestion = Suggestion.closest(to: name, in: chain.command.subcommands.map(\.name))
      let hint = suggestion.map { "; did you mean '\($0)'?" } ?? ""
      throw chain.error(
        .unknownCommand, "Unknown command '\(name)' for '\(chain.commandLine)'\(hint)",
        suggestion: suggestion)
    }
    chain.append(subcommand)
    options = Self.lookup(chain.options)
    if let stray = given.first(where: { options[$0] == nil }) {
      throw chain.error(
        .unknownOption,
        "Option '--\(stray)' does not apply to '\(chain.commandLine)'; give it after the command"
          + " it belongs to")
    }
  }

  private mutating func readOption(
    _ token: String,
    from arguments: [String],
    at index: inout Int
  ) throws(UsageError) -> Answer? {
    let body = token.dropFirst(2)
    let equals = body.firstIndex(of: "=")
    let name = String(body[..<(equals ?? body.endIndex)])
    let inline = equals.map { String(body[body.index(after: $0)...]) }
    let isVersion = name == "version" && chain.acceptsVersion
    guard let option = options[name], !isVersion else {
      guard isVersion || name == "help" else { throw unknownOption("--" + name) }
      if let inline { throw flagGivenValue("--" + name, inline) }
      return isVersion ? .version : .help
    }
    if values[name] != nil && !option.isRepeatable {
      throw chain.error(
        .repeatedOption, "Option '\(option.flagText)' was given more than once; give it once")
    }
    let value: ParsedValue
    if option.kind == .flag {
      if let inline { throw flagGivenValue(option.flagText, inline) }
      value = ParsedValue(text: "")
    } else if let inline {
      value = try convert(inline, kind: option.kind, subject: option.flagText, sample: option)
    } else if index < arguments.count {
      let text = arguments[index]
      index += 1
      if Self.isHelp(text) { return .help }
      value = try convert(text, kind: option.kind, subject: option.flagText, sample: option)
    } else {
      let expected = expectation(option.kind, option)
      throw chain.error(.missingValue, "Missing value for '\(option.flagText)'; \(expected)")
    }
    values[name, default: []].append(value)
    given.append(name)
    return nil
  }

  private func convert(
    _ text: String,
    kind: ValueKind,
    subject: String,
    sample: OptionSpec?
  ) throws(UsageError) -> ParsedValue {
    switch kind.convert(text) {
    case .success(let value):
      return value
    case .failure(.invalid):
      if case .choice(let choices) = kind, let close = Suggestion.closest(to: text, in: choices) {
        throw chain.error(
          .invalidValue, "Invalid value '\(text)' for '\(subject)'; did you mean '\(close)'?",
          suggestion: close)
      }
      let what = text.isEmpty ? "Empty value" : "Invalid value '\(text)'"
      throw chain.error(.invalidValue, "\(what) for '\(subject)'; \(expectation(kind, sample))")
    case .failure(let problem):
      let size = problem == .tooLarge ? "large" : "small"
      let fix =
        kind == .integer
        ? "use a whole number from \(Int64.min) to \(Int64.max)"
        : "use a decimal number closer to zero"
      throw chain.error(
        .valueOutOfRange, "Value '\(text)' for '\(subject)' is too \(size); \(fix)")
    }
  }

  /// What a value should look like: "it takes a whole number, e.g. '--quantity 5'".
  private func expectation(_ kind: ValueKind, _ option: OptionSpec?) -> String {
    guard let option else {
      return "it takes \(kind.noun)" + (kind.sampleValue.map { ", e.g. '\($0)'" } ?? "")
    }
    let sample = kind.sampleValue ?? option.valueName ?? kind.defaultValueName ?? ""
    return "it takes \(kind.noun), e.g. '\(option.flagText) \(sample)'"
  }

  private func unknownOption(_ token: String) -> UsageError {
    if token == "--version" && chain.root.version != nil {
      let root = chain.root.name
      let message = "Option '--version' only works on '\(root)' itself; use '\(root) --version'"
      return chain.error(.unknownOption, message)
    }
    var candidates = chain.options.map(\.flagText) + ["--help"]
    if chain.acceptsVersion { candidates.append("--version") }
    let suggestion = Suggestion.closest(to: token, in: candidates)
    let hint = suggestion.map { "; did you mean '\($0)'?" } ?? ""
    return chain.error(
      .unknownOption, "Unknown option '\(token)' for '\(chain.commandLine)'\(hint)",
      suggestion: suggestion)
  }

  private func flagGivenValue(_ flag: String, _ value: String) -> UsageError {
    chain.error(
      .flagGivenValue, "Flag '\(flag)' takes no value; write '\(flag)' without '=\(value)'")
  }
}
