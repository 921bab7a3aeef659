import ArgumentParsing
import Foundation
import Stash
import StashModel

/// The exit statuses `stash` uses.
enum ExitStatus {
  /// The command did what was asked (also `--help` and `--version`).
  static let done: Int32 = 0
  /// Refused: bad input, not found, ambiguous, not enough stock, a failed save.
  static let refused: Int32 = 1
  /// The command line itself is wrong (the message ends with a `See '... --help'` line).
  static let usage: Int32 = 2
  /// Another process holds the device folder's lock.
  static let busy: Int32 = 3
  /// A store (or, for `stash doctor`, a photo) is damaged.
  static let damaged: Int32 = 4
  /// `stash sync verify`: this device and the shared folder differ.
  static let differs: Int32 = 5
  /// The shared folder is encrypted and this device lacks its key, or the key given is wrong
  /// (not a sync key, or not this folder's); nothing was changed.
  static let key: Int32 = 6
}

/// A declared command whose handler is not written yet.
struct NotImplemented: Error, CustomStringConvertible {
  let command: [String]
  var description: String { "'\(command.joined(separator: " "))' is not implemented yet" }
}

/// Turns any error a command throws into a message on standard error and an exit status.
///
/// This is the one place that maps errors to exit codes.
enum Failure {
  /// Reports `error` on standard error and returns the exit status it deserves.
  ///
  /// - Parameters:
  ///   - error: What the command threw.
  ///   - parser: The parser, to show a command's help when a subcommand is missing. Every
  ///     usage error, that one too, ends with its message and the `See '… --help'` line.
  /// - Returns: The exit status.
  static func report(_ error: any Error, parser: ArgumentParser? = nil) -> Int32 {
    switch error {
    case let usage as UsageError:
      if usage.kind == .missingSubcommand, let help = parser?.help(for: usage.path) {
        printTrusted(help + "\n")
      }
      printError(usage.message)
      printError(usage.helpHint)
      return ExitStatus.usage
    case let failure as StashError:
      printError(failure.forPerson)
      switch failure.category {
      case .refused: return ExitStatus.refused
      case .busy: return ExitStatus.busy
      case .damaged: return ExitStatus.damaged
      case .key: return ExitStatus.key
      }
    case let invalid as ModelError:
      printError(invalid.message)
      return ExitStatus.refused
    default:
      printError("\(error)")
      return ExitStatus.refused
    }
  }

  /// Prints a one-line message on standard error, with every control character in it (a
  /// line feed too) written as `\u{…}` (``TerminalText``), since messages echo what people
  /// typed. This is the only way messages reach standard error.
  static func printError(_ text: String) {
    printTrusted(TerminalText.neutralized(text))
  }

  /// Prints text this tool wrote itself (help) on standard error, as it is.
  private static func printTrusted(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
  }
}

extension StashError {
  /// The message with its advice worded as this tool's command, when the library gave a
  /// ``Hint``: the library's last clause (after the last `; `) is replaced.
  var forPerson: String { Hint.worded(message, hint) }
}

extension StoreNotice {
  /// The notice with its advice worded as this tool's command (see ``Hint/worded(_:_:)``).
  var forPerson: String { Hint.worded(message, hint) }
}

extension ExportStop {
  /// Why the export stopped, with its advice worded as this tool's command.
  var forPerson: String { Hint.worded(message, hint) }
}

extension DoctorReport.Finding {
  /// The finding with its advice worded as this tool's command, when it has a hint.
  var forPerson: String { Hint.worded(message, hint) }
}

extension Hint {
  /// A library message with its advice worded as this tool's command, when it has a hint:
  /// the library's last clause (after the last `; `) is replaced.
  static func worded(_ message: String, _ hint: Hint?) -> String {
    guard let hint else { return message }
    let reason =
      message.range(of: "; ", options: .backwards).map { String(message[..<$0.lowerBound]) }
      ?? message
    return reason + "; " + hint.advice
  }

  /// What to do, as `stash` commands.
  var advice: String {
    switch self {
    case .initialize: "run 'stash init' first"
    case .enableSync: "'stash sync enable --cloud DIR' turns it on"
    case .syncAgain: "run 'stash sync' again"
    case .newIdentity: "run 'stash sync new-identity'"
    case .examine: "'stash doctor' shows what is wrong"
    case .repair: "run 'stash doctor --repair'"
    case .listConflicts: "'stash conflicts' lists the open ones"
    case .list(let model):
      "'\(model == "item" ? "stash list" : "stash \(model) list")' shows what there is"
    case .export: "export it again with 'stash export'"
    case .showConflict(let id): "'stash conflicts show \(id)' shows its sides"
    case .showHistory(let item): "'stash history \(item)' shows who changed it"
    case .joinZone(let zone):
      "if both are one inventory, run 'stash sync join-zone \(zone)' here (on the devices of one "
        + "zone only)"
    case .addKey: "enter it with 'stash sync add-key --key-file FILE' ('-': standard input)"
    case .joinWithKey:
      "join it with 'stash sync enable --cloud DIR --key-file FILE' ('-': standard input)"
    }
  }
}
