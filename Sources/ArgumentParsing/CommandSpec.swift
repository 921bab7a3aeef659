/// The declaration of one command: its help text, arguments, options and subcommands.
///
/// A command-line tool is one tree of these values, with the tool itself at the root. The
/// parser walks the tree by subcommand name, checks everything against the specs, and the help
/// formatter renders the same specs, so one table describes both parsing and help.
public struct CommandSpec: Sendable, Hashable {
  /// The name typed on the command line, such as `"add"`, or the tool's name at the root.
  ///
  /// Names are lowercase words joined by `-`.
  public var name: String

  /// One line saying what the command does, shown after OVERVIEW and in SUBCOMMANDS lists.
  ///
  /// Write it in sentence case without a trailing period.
  public var abstract: String

  /// An optional paragraph shown under the overview in the command's help.
  ///
  /// Help wraps it at the formatter's width; explicit line breaks are kept.
  public var discussion: String?

  /// Complete example command lines, shown under EXAMPLES, such as `"stash consume 3f2b 2"`.
  ///
  /// Every command should have at least one.
  public var examples: [String]

  /// The positional arguments, in the order they are matched.
  ///
  /// Required arguments come before optional ones; only the last may be variadic. A command
  /// with subcommands takes no positional arguments of its own.
  public var arguments: [ArgumentSpec]

  /// The options this command declares, in the order help lists them.
  ///
  /// Global options declared here are also accepted by every subcommand below this one.
  public var options: [OptionSpec]

  /// Groups of option names that cannot be used together, such as `[["photo", "no-photo"]]`.
  ///
  /// Giving two options from one group is a usage error naming both. Names are long names
  /// without dashes.
  public var exclusive: [[String]]

  /// The commands below this one, such as `add` and `list` below `location`.
  ///
  /// A subcommand name is matched by the first positional value given to this command.
  public var subcommands: [CommandSpec]

  /// Whether the command needs a subcommand to run.
  ///
  /// When `true` (like `stash location`), running the command alone is a usage error of kind
  /// ``UsageError/Kind/missingSubcommand``, whose caller shows the command's help. When `false`
  /// (like `stash sync`), the command runs by itself and its subcommands are extra actions.
  public var requiresSubcommand: Bool

  /// The tool's version, which makes `--version` available at the root.
  ///
  /// Only the root's value is used; the parser reports ``ParseOutcome/version`` for it.
  public var version: String?

  /// Declares a command.
  ///
  /// Only the name and abstract are required; everything else defaults to empty.
  ///
  /// - Parameters:
  ///   - name: The name typed on the command line.
  ///   - abstract: One line saying what the command does.
  ///   - discussion: An optional paragraph for the command's help.
  ///   - arguments: The positional arguments, in matching order.
  ///   - options: The options, in help order.
  ///   - exclusive: Groups of option names that cannot be used together.
  ///   - subcommands: The commands below this one.
  ///   - requiresSubcommand: Whether the command needs a subcommand to run.
  ///   - examples: Complete example command lines.
  ///   - version: The tool's version (root only), which enables `--version`.
  public init(
    _ name: String,
    abstract: String,
    discussion: String? = nil,
    arguments: [ArgumentSpec] = [],
    options: [OptionSpec] = [],
    exclusive: [[String]] = [],
    subcommands: [CommandSpec] = [],
    requiresSubcommand: Bool = false,
    examples: [String] = [],
    version: String? = nil
  ) {
    self.name = name
    self.abstract = abstract
    self.discussion = discussion
    self.arguments = arguments
    self.options = options
    self.exclusive = exclusive
    self.subcommands = subcommands
    self.requiresSubcommand = requiresSubcommand
    self.examples = examples
    self.version = version
  }

  /// The direct subcommand with the given name.
  ///
  /// Only this command's own subcommands are searched, not deeper ones.
  ///
  /// - Parameter name: The subcommand's name, such as `"add"`.
  /// - Returns: The subcommand, or `nil` when there is none by that name.
  public func subcommand(named name: String) -> CommandSpec? {
    subcommands.first { $0.name == name }
  }

  /// The command reached by following a path of subcommand names from this command.
  ///
  /// An empty path returns this command.
  ///
  /// - Parameter path: Subcommand names below this command, such as `["location", "add"]`.
  /// - Returns: The command, or `nil` when a name along the path is unknown.
  public func descendant(at path: [String]) -> CommandSpec? {
    chain(to: path)?.last
  }

  /// Mistakes in this command tree that would make parsing or help ambiguous.
  ///
  /// The parser refuses (with a precondition failure) to work with a tree that has any, so a
  /// test that builds the tool's parser catches them. Checks: unique names per command
  /// (options, arguments and subcommands), reserved names (`help`, `version`), flags used as
  /// arguments, required arguments after optional ones, variadic arguments that are not last,
  /// positional arguments on commands with subcommands, `requiresSubcommand` without
  /// subcommands, and exclusive groups naming unknown options.
  ///
  /// - Returns: One line per problem, naming the command; empty when the tree is sound.
  public func problems() -> [String] {
    problems(inherited: [])
  }

  /// The commands from this one down a path of subcommand names, this one first.
  func chain(to path: [String]) -> [CommandSpec]? {
    var chain = [self]
    for name in path {
      guard let next = chain[chain.count - 1].subcommand(named: name) else { return nil }
      chain.append(next)
    }
    return chain
  }

  private func problems(inherited: [String]) -> [String] {
    var found: [String] = []
    let place = "'\(name)'"
    let optionNames = options.map(\.name)
    var seen = Set(inherited)
    for option in optionNames {
      if !seen.insert(option).inserted { found.append("\(place): option '--\(option)' repeats") }
      if option == "help" || option == "version" {
        found.append("\(place): option name '--\(option)' is reserved")
      }
    }
    for option in options where option.kind == .flag && option.valueName != nil {
      found.append("\(place): flag '--\(option.name)' has a value name")
    }
    var argumentNames = Set<String>()
    var sawOptional = false
    for (index, argument) in arguments.enumerated() {
      if !argumentNames.insert(argument.name).inserted || seen.contains(argument.name) {
        found.append("\(place): argument '\(argument.name)' repeats a name")
      }
      if argument.kind == .flag { found.append("\(place): argument '\(argument.name)' is a flag") }
      if argument.isRequired && sawOptional {
        found.append("\(place): required argument '\(argument.name)' follows an optional one")
      }
      if argument.isVariadic && index != arguments.count - 1 {
        found.append("\(place): variadic argument '\(argument.name)' is not last")
      }
      sawOptional = sawOptional || !argument.isRequired
    }
    if !subcommands.isEmpty && !arguments.isEmpty {
      found.append("\(place): has both subcommands and positional arguments")
    }
    if requiresSubcommand && subcommands.isEmpty {
      found.append("\(place): requires a subcommand but has none")
    }
    for group in exclusive {
      for member in group where !optionNames.contains(member) {
        found.append("\(place): exclusive group names unknown option '--\(member)'")
      }
    }
    var subcommandNames = Set<String>()
    for subcommand in subcommands where !subcommandNames.insert(subcommand.name).inserted {
      found.append("\(place): subcommand '\(subcommand.name)' repeats")
    }
    let passedDown = inherited + options.filter(\.isGlobal).map(\.name)
    for subcommand in subcommands {
      found += subcommand.problems(inherited: passedDown).map { "'\(name)' > " + $0 }
    }
    return found
  }
}
