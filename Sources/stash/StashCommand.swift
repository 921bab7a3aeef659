import ArgumentParsing
import Foundation

/// The `stash` executable: parses the command line and runs the command's handler.
///
/// Exit statuses: 0 when done (and for `--help` and `--version`), 1 when a command failed or
/// is not implemented yet, 2 for a usage mistake (the message on standard error, then a line
/// `See 'stash <path> --help'`). A command that needs a subcommand, run alone, prints its help
/// on standard error and exits with 2.
@main
enum StashCommand {
  static func main() {
    exit(run(Array(CommandLine.arguments.dropFirst())))
  }

  /// Runs one command line and returns the exit status.
  static func run(_ arguments: [String]) -> Int32 {
    let parser = ArgumentParser(root: CommandTable.root)
    let outcome: ParseOutcome
    do throws(UsageError) {
      outcome = try parser.parse(arguments)
    } catch {
      return report(error, parser: parser)
    }
    switch outcome {
    case .help(let text):
      print(text)
      return 0
    case .version:
      print("\(CommandTable.root.name) \(CommandTable.version)")
      return 0
    case .command(let parsed):
      return dispatch(parsed, parser: parser)
    }
  }

  private static func dispatch(_ parsed: ParsedArguments, parser: ArgumentParser) -> Int32 {
    let command = ([CommandTable.root.name] + parsed.path).joined(separator: " ")
    guard let handler = CommandRegistry.handler(for: parsed.path) else {
      printError("'\(command)' is not implemented yet")
      return 1
    }
    do {
      return try handler.run(parsed)
    } catch let error as UsageError {
      return report(error, parser: parser)
    } catch {
      printError("\(error)")
      return 1
    }
  }

  private static func report(_ error: UsageError, parser: ArgumentParser) -> Int32 {
    if error.kind == .missingSubcommand, let help = parser.help(for: error.path) {
      printError(help)
    } else {
      printError(error.message)
      printError(error.helpHint)
    }
    return 2
  }

  private static func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
  }
}
