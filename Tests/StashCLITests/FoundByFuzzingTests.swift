import Foundation
import StashModel
import StashTestSupport
import Testing

/// Defects the fuzz tests found, each pinned by a plain test so it stays fixed.
@Suite struct FoundByFuzzingTests {
  static let now = Bytes("1764441600")

  /// `--photo fifo` and `import fifo` waited forever for a writer: the file was opened as a
  /// blocking read. Anything but a regular file is refused at once.
  @Test(arguments: [["add", "Box", "--photo"], ["edit", "Soap", "--photo"], ["import"]])
  func aFileArgumentThatIsNotARegularFileIsRefusedWithoutWaiting(command: [String]) throws {
    try withRawCLI { cli in
      let home = Bytes(cli.sandbox + "/home")
      let environment: [String: Bytes] = ["STASH_HOME": home, "STASH_NOW": Self.now]
      #expect(try cli.run(["add", "Soap"], environment: environment).status == 0)
      #expect(mkfifo(cli.sandbox + "/fifo", 0o600) == 0)
      try FileManager.default.createDirectory(
        atPath: cli.sandbox + "/folder", withIntermediateDirectories: true)
      let before = FolderSnapshot(of: cli.sandbox)
      for (file, kind) in [
        ("fifo", "not a regular file"), ("folder", "a folder"), ("/dev/zero", "not a regular file"),
      ] {
        let run = try cli.run(command.map { Bytes($0) } + [Bytes(file)], environment: environment)
        #expect(!run.raw.timedOut, "\(command) \(file): \(run)")
        #expect(run.status == 1, "\(command) \(file): \(run)")
        #expect(run.standardError.contains("'\(file)'"), "\(run)")
        #expect(run.standardError.contains(kind), "\(run)")
      }
      #expect(FolderSnapshot(of: cli.sandbox).differences(from: before) == [])
    }
  }
}
