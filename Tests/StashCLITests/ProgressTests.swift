import Foundation
import StashTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A long import shows how far it has come on standard error, only when that is a terminal:
/// a pipe, a file or a script never sees the progress line.
@Suite struct ProgressTests {
  /// A pseudo-terminal: the child writes to `device`, the test reads `controller`.
  private struct PseudoTerminal {
    let controller: Int32
    let device: String

    init() throws {
      #if os(Linux)
        // posix_openpt and friends are not visible through Glibc; /dev/ptmx with the two
        // ioctls they wrap is the same thing (TIOCSPTLCK unlocks, TIOCGPTN gives the number;
        // the values are Linux's on every architecture Swift runs on).
        controller = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard controller >= 0, ioctl(controller, UInt(0x4004_5431), &unlock) == 0,
          ioctl(controller, UInt(0x8004_5430), &number) == 0
        else { throw POSIXError(.ENOTTY) }
        device = "/dev/pts/\(number)"
      #else
        controller = posix_openpt(O_RDWR | O_NOCTTY)
        guard controller >= 0, grantpt(controller) == 0, unlockpt(controller) == 0,
          let name = ptsname(controller)
        else { throw POSIXError(.ENOTTY) }
        device = String(cString: name)
      #endif
      _ = fcntl(controller, F_SETFL, fcntl(controller, F_GETFL) | O_NONBLOCK)
    }

    /// Everything written to the terminal so far.
    func drain() -> String {
      var bytes = [UInt8]()
      var buffer = [UInt8](repeating: 0, count: 4096)
      while true {
        let count = read(controller, &buffer, buffer.count)
        guard count > 0 else { break }
        bytes += buffer[..<count]
      }
      return String(decoding: bytes, as: UTF8.self)
    }
  }

  /// A CSV of `count` items, as `stash export` writes it.
  private func exportedCSV(_ cli: CLI, count: Int) throws -> String {
    for number in 1...count {
      #expect(try cli.run(["add", "Tube \(number)", "--quantity", "\(number)"]).status == 0)
    }
    let export = try cli.run(["export", "--format", "csv"])
    #expect(export.status == 0, "\(export)")
    let path = cli.folder.appendingPathComponent("items.csv").path
    try Data(export.standardOutput.utf8).write(to: URL(fileURLWithPath: path))
    return path
  }

  @Test func anImportOnATerminalShowsItsProgressAndAPipeNeverSeesIt() throws {
    try withCLI { cli in
      let file = try exportedCSV(cli, count: 3)
      var other = cli
      other.home = cli.folder.appendingPathComponent("other")
      let terminal = try PseudoTerminal()
      defer { close(terminal.controller) }
      let child = try Subprocess(
        CLI.binary.path, ["import", file], environment: other.environment,
        standardError: terminal.device)
      let (status, output, _) = child.wait()
      #expect(status == 0, "\(String(decoding: output, as: UTF8.self))")
      let shown = terminal.drain()
      #expect(shown.contains("Importing 3 of 3"), "\(shown.debugDescription)")
      #expect(shown.hasSuffix("\r\u{1B}[K"), "the line is cleared: \(shown.debugDescription)")

      var third = cli
      third.home = cli.folder.appendingPathComponent("third")
      let piped = try third.run(["import", file])
      #expect(piped.status == 0, "\(piped)")
      #expect(!piped.standardError.contains("Importing"), "\(piped)")
    }
  }

  @Test func aSyncOnATerminalShowsTheSegmentsItReads() throws {
    try withCLI { cli in
      let cloud = cli.folder.appendingPathComponent("cloud")
      try FileManager.default.createDirectory(at: cloud, withIntermediateDirectories: true)
      #expect(try cli.run(["sync", "enable", "--cloud", cloud.path]).status == 0)
      #expect(try cli.run(["add", "Soap"]).status == 0)
      #expect(try cli.run(["sync"]).status == 0)
      var other = cli
      other.home = cli.folder.appendingPathComponent("other")
      #expect(try other.run(["sync", "enable", "--cloud", cloud.path]).status == 0)
      let terminal = try PseudoTerminal()
      defer { close(terminal.controller) }
      let child = try Subprocess(
        CLI.binary.path, ["sync"], environment: other.environment,
        standardError: terminal.device)
      let (status, output, _) = child.wait()
      #expect(status == 0, "\(String(decoding: output, as: UTF8.self))")
      let shown = terminal.drain()
      #expect(shown.contains("segment 1 of 1"), "\(shown.debugDescription)")
      #expect(try other.run(["show", "Soap"]).status == 0, "and the sync did its work")
    }
  }

  @Test func doctorOnATerminalShowsThePhotosItChecks() throws {
    try withCLI { cli in
      let photo = cli.folder.appendingPathComponent("tube.jpg")
      try Data("not really a jpeg".utf8).write(to: photo)
      #expect(try cli.run(["add", "Koleston 7/1", "--photo", photo.path]).status == 0)
      let terminal = try PseudoTerminal()
      defer { close(terminal.controller) }
      let child = try Subprocess(
        CLI.binary.path, ["doctor"], environment: cli.environment,
        standardError: terminal.device)
      let (status, output, _) = child.wait()
      #expect(status == 0, "\(String(decoding: output, as: UTF8.self))")
      let shown = terminal.drain()
      #expect(shown.contains("Checking photos: 1 of 1"), "\(shown.debugDescription)")
      let piped = try cli.run(["doctor"])
      #expect(!piped.standardError.contains("Checking"), "\(piped)")
    }
  }
}
