import Foundation
import StashBase
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

  /// A `default.store` that is a folder or a FIFO made `list` exit 1 ("Could not open ...")
  /// while `doctor` reported damage (exit 4), and a refused `list` left a new `lock` file; a
  /// `default.store` that is a link loop made `list` exit 1 and `doctor` exit 0. Every command
  /// now calls such a folder damaged (exit 4) and touches nothing.
  @Test(arguments: ["folder", "fifo", "loop"])
  func aStoreThatIsNotAFileIsDamageForEveryCommand(kind: String) throws {
    try withRawCLI { cli in
      let home = cli.sandbox + "/home"
      let store = home + "/default.store"
      try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
      switch kind {
      case "folder":
        try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: true)
      case "fifo": #expect(mkfifo(store, 0o600) == 0)
      default:
        try FileManager.default.createSymbolicLink(
          atPath: store, withDestinationPath: "default.store")
      }
      let before = FolderSnapshot(of: cli.sandbox)
      let environment: [String: Bytes] = ["STASH_HOME": Bytes(home), "STASH_NOW": Self.now]
      for command: [Bytes] in [
        ["list"], ["show", "Soap"], ["add", "Soap"], ["doctor"], ["doctor", "--json"],
      ] {
        let run = try cli.run(command, environment: environment)
        #expect(run.status == 4, "\(command): \(run)")
        #expect(run.standardOutput.isEmpty || command.first == "doctor", "\(command): \(run)")
        #expect((run.standardOutput + run.standardError).contains("default.store"), "\(run)")
        // Nothing opens what it cannot read (doctor included: it takes no lock, so creates
        // no 'lock').
        #expect(FolderSnapshot(of: cli.sandbox).differences(from: before) == [], "\(command)")
      }
    }
  }

  /// Found by fuzzing: `sync enable` opened the folder for writing, creating it, before the
  /// shared folder was checked, so a refusal left a new device folder behind.
  @Test func syncEnableCreatesNothingWhenItRefusesTheSharedFolder() throws {
    try withRawCLI { cli in
      let environment: [String: Bytes] = [
        "STASH_HOME": Bytes(cli.sandbox + "/home"), "STASH_NOW": Self.now,
      ]
      let run = try cli.run(["sync", "enable", "--cloud", "missing"], environment: environment)
      #expect(run.status == 1, "\(run)")
      #expect(!FileManager.default.fileExists(atPath: cli.sandbox + "/home"), "\(run)")
    }
  }

  /// Found by fuzzing: `--json` printed the result as JSON everywhere but in `sync enable` and
  /// `sync disable`.
  @Test(arguments: [["sync", "enable", "--cloud", "cloud"], ["sync", "disable"]])
  func syncEnableAndDisablePrintJSONWhenAsked(command: [String]) throws {
    try withRawCLI { cli in
      try FileManager.default.createDirectory(
        atPath: cli.sandbox + "/cloud", withIntermediateDirectories: true)
      let environment: [String: Bytes] = [
        "STASH_HOME": Bytes(cli.sandbox + "/home"), "STASH_NOW": Self.now,
      ]
      #expect(try cli.run(["init"], environment: environment).status == 0)
      let run = try cli.run(command.map { Bytes($0) } + ["--json"], environment: environment)
      #expect(run.status == 0, "\(run)")
      _ = try JSONParser.parse(run.standardOutput)
    }
  }

  /// Found by fuzzing: on a device entitled to sync whose mirror did not exist yet, `doctor`
  /// created `cloud.store` through `DeviceFolder.mirror`, and then said nothing was changed.
  @Test func doctorCreatesNoMirror() throws {
    try withRawCLI { cli in
      try FileManager.default.createDirectory(
        atPath: cli.sandbox + "/cloud", withIntermediateDirectories: true)
      let environment: [String: Bytes] = [
        "STASH_HOME": Bytes(cli.sandbox + "/home"), "STASH_NOW": Self.now,
      ]
      #expect(try cli.run(["init"], environment: environment).status == 0)
      let enable = try cli.run(
        ["sync", "enable", "--cloud", Bytes(cli.sandbox + "/cloud")], environment: environment)
      #expect(enable.status == 0, "\(enable)")
      let before = FolderSnapshot(of: cli.sandbox)
      let run = try cli.run(["doctor"], environment: environment)
      #expect(run.status == 0, "\(run)")
      #expect(FolderSnapshot(of: cli.sandbox).differences(from: before) == [])
    }
  }
}
