// stash: the command-line tool.
//
// It owns parsing (the table in CommandTable*.swift), printing (Views/) and exit statuses
// (Failure.swift). Every decision about records is made by the `Stash` facade; this module
// must never import JSONLines, LocalStore, MirrorStore, Reconciler or CloudFolder (a test
// reads the sources to check). Decisions made here, where DESIGN.md is silent:
//
// - Reading commands on a folder without a store print an empty result (`[]` with --json)
//   and create nothing; writing commands check their input first and create the folder
//   only when they are about to write. `--json` on a writing command prints the result.
// - A usage mistake (exit 2) is anything wrong with the shape of the command line: unknown
//   names, missing or malformed values, `edit` with nothing to change, a `--keep` that is no
//   resolution choice. Values that parse but are refused by the model or the store (a
//   negative quantity, a latitude of 200, an unknown item, an argument that is not UTF-8,
//   a home that is a file) are refusals (exit 1).
// - The environment is input too: a `STASH_NOW` that is not a usable time, a home variable
//   that is not UTF-8, or a relative `HOME` that would decide the folder is refused (exit 1,
//   not 2: it is not the command line, and 'See --help' would not help), before any command
//   runs. `--help` and usage mistakes are answered first.
// - A `default.store` that is not a file (a folder, a FIFO, a link loop) is damage (exit 4)
//   for every command, as `doctor` says.
// - Colour only on a terminal without NO_COLOR; every message goes to standard error, and
//   everything printed has its control and bidi characters escaped (TerminalText).
import ArgumentParsing
import Foundation
import StashBase

/// The `stash` executable: reads the raw command line, parses it, and runs the command's
/// handler.
///
/// Every failure, whatever its source, is turned into a message and an exit status by
/// ``Failure`` (the one place that maps errors to exit codes): 0 done (and `--help`,
/// `--version`), 1 refused, 2 usage, 3 store busy, 4 damaged store. A command that needs a
/// subcommand, run alone, prints its help on standard error, then the message and the
/// `See '… --help'` line every usage mistake ends with, and exits with 2.
@main
enum StashCommand {
  static func main() {
    // Before any thread: one malloc arena keeps a whole-store command's peak lower.
    MallocArenas.limit(to: 1)
    if let problem = DescriptorHeadroom.problem() {
      Failure.printError(problem)
      exit(ExitStatus.refused)
    }
    let status: Int32
    do {
      status = run(try RawArguments.read(), environment: RawEnvironment.read())
    } catch {
      status = Failure.report(error)
    }
    exit(status)
  }

  /// Runs one command line (the arguments after the tool's name) and returns the exit status.
  static func run(_ arguments: [String], environment: RawEnvironment) -> Int32 {
    // Help is wrapped to standard output's width (COLUMNS, the terminal, else 80).
    let width = TerminalWidth.columns(environment: environment.values)
    let parser = ArgumentParser(
      root: CommandTable.root, formatter: HelpFormatter(width: width))
    do {
      switch try parser.parse(arguments) {
      case .help(let text):
        print(text)
        return ExitStatus.done
      case .version:
        print("\(CommandTable.root.name) \(CommandTable.version)")
        return ExitStatus.done
      case .command(let parsed):
        guard let handler = CommandRegistry.handler(for: parsed.path) else {
          throw NotImplemented(command: ([CommandTable.root.name] + parsed.path))
        }
        let session = try Session(arguments: parsed, environment: environment)
        return try handler.run(parsed, in: session)
      }
    } catch {
      return Failure.report(error, parser: parser)
    }
  }
}
