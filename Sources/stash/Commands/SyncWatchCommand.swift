import ArgumentParsing
import Foundation
import Stash
import StashBase
import StashModel
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Set by SIGINT and SIGTERM while `stash sync --watch` runs (an atomic store: all a signal
/// handler may do).
private let stopRequested = Atomic<Bool>(false)

/// `stash sync --watch [--interval SECONDS]`: exchanges whenever this device or the shared
/// folder changed, until SIGINT or SIGTERM (``LiveSync``).
///
/// Each exchange is one `stash sync` (``Session/sync(progress:)``): the folder opened as
/// cheaply as its sync state allows, which after another device's edit or a local one is from
/// the indexes for the records changed (at 100,000 items, about 20 ms); its lock held only for
/// that exchange, its import gate closed at its start. A folder kept open whole between
/// exchanges cost more at that size (about 1 s an exchange: a whole folder maintains the
/// digest and both indexes over every record). A signal is acted on between exchanges, so one that
/// started always finishes: nothing is left half-done.
enum SyncWatch {
  static func run(_ arguments: ParsedArguments, in session: Session) throws -> Int32 {
    let seconds = arguments[CommandTable.interval] ?? 1
    guard seconds.isFinite, seconds >= 0.05, seconds <= 3600 else {
      throw UsageError(
        .invalidValue,
        message: "Invalid value '\(seconds)' for '--interval'; give seconds from 0.05 to 3600",
        path: SyncCommand.path, rootName: CommandTable.root.name)
    }
    // Every exchange opens the folder again: none is kept until the process exits.
    var session = session
    session.keepsFolders = false
    // Opened once to refuse a folder that cannot sync before watching, then let go.
    let shared = try session.openForSyncing().folder.settings.cloudFolder
    let watch = LiveSync(
      home: session.home, sharedFolder: shared,
      interval: .milliseconds(Int64((seconds * 1000).rounded())))
    signal(SIGINT) { _ in stopRequested.store(true, ordering: .relaxed) }
    signal(SIGTERM) { _ in stopRequested.store(true, ordering: .relaxed) }
    if !session.wantsJSON {
      say(
        "Watching '\(session.home)' and its shared folder every \(secondsText(seconds)); "
          + "stop with Ctrl-C", session)
    }
    watch.run(
      exchange: { () throws(StashError) -> SyncRunReport in try session.sync { _, _ in } },
      until: { stopRequested.load(ordering: .relaxed) },
      tell: { event in tell(event, session) })
    if !session.wantsJSON { say("Stopped", session) }
    return ExitStatus.done
  }

  private static func tell(_ event: LiveSync.Event, _ session: Session) {
    switch event {
    case .exchanged(let report):
      guard report.movedAnything else { return }
      if session.wantsJSON {
        session.output.json(SyncCommand.json(report))
        fflush(nil)
      } else {
        say(line(report), session)
      }
    case .failed(let error, let wait):
      let seconds = Double(wait.components.seconds)
      // The watch syncs again by itself: a remedy of running sync again is left out.
      let reason = error.hint == .syncAgain ? error.message : error.forPerson
      if session.wantsJSON {
        session.output.json([
          "failure": .string(reason), "retryIn": .double(seconds),
        ])
        fflush(nil)
      } else {
        say(
          "Exchange failed: \(reason); trying again in \(secondsText(seconds))",
          session)
      }
    }
  }

  /// One exchange on one line: what arrived, what left, conflicts, what waits.
  static func line(_ report: SyncRunReport) -> String {
    var parts = [
      "arrived \(Format.count(report.versionsImported, "version")) "
        + "(\(Format.count(report.appliedLocally, "change")) applied here)",
      "left \(Format.count(report.versionsExported, "version"))",
    ]
    if !report.newConflicts.isEmpty {
      parts.append("new conflicts \(report.newConflicts.count) ('stash conflicts' lists them)")
    }
    if report.settledConflicts > 0 { parts.append("settled \(report.settledConflicts)") }
    if !report.waiting.isEmpty { parts.append("waiting for \(report.waiting.count) file(s)") }
    if !report.rejectedSegments.isEmpty {
      parts.append("rejected \(report.rejectedSegments.count) file(s)")
    }
    if let failure = report.passError?.forPerson { parts.append(failure) }
    if let stopped = report.exportStopped { parts.append("export stopped: \(stopped.forPerson)") }
    if let failure = report.exportError?.forPerson { parts.append("export failed: \(failure)") }
    let line = parts.joined(separator: "; ")
    return line.prefix(1).uppercased() + line.dropFirst()
  }

  /// `1 s`, `0.2 s`.
  private static func secondsText(_ seconds: Double) -> String {
    seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
  }

  /// Prints a line now (standard output is a pipe or a file more often than not here).
  private static func say(_ text: String, _ session: Session) {
    session.output.line(text)
    fflush(nil)
  }
}
