import Foundation
import StashModel
import StashTestSupport
import Testing

/// Where the device folder is, however it is spelled: relative homes (Foundation's path
/// handling trapped on a first component of one character), `HOME` and `XDG_DATA_HOME`, values
/// that are not UTF-8, and homes that cannot be a folder (doctor agrees with list).
@Suite struct HomeTests {
  static let now = Bytes("1764441600")

  // MARK: - Relative homes (Foundation's path handling trapped on one-character components)

  @Test(arguments: ["a", "a/b", "a/", "./a", "a//b/./c/", "ab", "a/../b"])
  func aRelativeHomeIsAFolderBelowTheCurrentOne(home: String) throws {
    try withRawCLI { cli in
      let list = try cli.run(["--home", Bytes(home), "list"], environment: ["STASH_NOW": Self.now])
      #expect(list.status == 0, "\(list)")
      #expect(list.standardOutput.hasPrefix("No items yet"), "\(list)")
      let add = try cli.run(
        ["--home", Bytes(home), "add", "Soap"], environment: ["STASH_NOW": Self.now])
      #expect(add.status == 0, "\(add)")
      let store = URL(fileURLWithPath: cli.sandbox).appendingPathComponent(home)
        .appendingPathComponent("default.store").standardizedFileURL.path
      #expect(FileManager.default.fileExists(atPath: store), "\(add)")
    }
  }

  @Test func aRelativeXDGDataHomeIsIgnoredAsTheSpecificationSays() throws {
    try withRawCLI { cli in
      let user = cli.sandbox + "/user"
      let environment: [String: Bytes] = [
        "XDG_DATA_HOME": "x", "HOME": Bytes(user), "STASH_NOW": Self.now,
      ]
      let list = try cli.run(["list"], environment: environment)
      #expect(list.status == 0, "\(list)")
      let add = try cli.run(["add", "Soap"], environment: environment)
      #expect(add.status == 0, "\(add)")
      #expect(FileManager.default.fileExists(atPath: user + "/.local/share/stash/default.store"))
      #expect(!FileManager.default.fileExists(atPath: cli.sandbox + "/x"))
    }
  }

  @Test(arguments: ["x", "x/y", "."])
  func aRelativeHOMEWithoutAnotherChoiceIsRefused(home: String) throws {
    try withRawCLI { cli in
      let before = FolderSnapshot(of: cli.sandbox)
      for arguments: [Bytes] in [["list"], ["add", "Soap"], ["doctor"]] {
        let run = try cli.run(arguments, environment: ["HOME": Bytes(home), "STASH_NOW": Self.now])
        #expect(run.status == 1, "\(arguments): \(run)")
        #expect(run.standardError.contains("HOME '\(home)'"), "\(run)")
        #expect(run.standardError.contains("--home DIR"), "\(run)")
      }
      #expect(FolderSnapshot(of: cli.sandbox).differences(from: before) == [])
    }
  }

  // MARK: - doctor agrees with list

  @Test(arguments: ["file", "loop", "below a file"])
  func doctorRefusesAHomeThatCannotBeAFolderAsListDoes(kind: String) throws {
    try withRawCLI { cli in
      let fileManager = FileManager.default
      var home = cli.sandbox + "/home"
      switch kind {
      case "file": try Data("x".utf8).write(to: URL(fileURLWithPath: home))
      case "loop":
        try fileManager.createSymbolicLink(atPath: home, withDestinationPath: cli.sandbox + "/loop")
        try fileManager.createSymbolicLink(atPath: cli.sandbox + "/loop", withDestinationPath: home)
      default:
        try Data("x".utf8).write(to: URL(fileURLWithPath: home))
        home += "/inner"
      }
      let before = FolderSnapshot(of: cli.sandbox)
      let environment: [String: Bytes] = ["STASH_HOME": Bytes(home), "STASH_NOW": Self.now]
      let list = try cli.run(["list"], environment: environment)
      let doctor = try cli.run(["doctor"], environment: environment)
      #expect(list.status == 1, "\(list)")
      #expect(doctor.status == list.status, "\(doctor)")
      #expect(doctor.standardError == list.standardError)
      #expect(doctor.standardOutput.isEmpty)
      #expect(list.standardError.contains("'\(home)'"), "\(list)")
      #expect(FolderSnapshot(of: cli.sandbox).differences(from: before) == [])
    }
  }

  // MARK: - Environment values that are not UTF-8

  @Test(arguments: ["STASH_HOME", "XDG_DATA_HOME", "HOME", "STASH_NOW"])
  func aVariableThatIsNotUTF8IsRefusedNotRepaired(name: String) throws {
    try withRawCLI { cli in
      var environment: [String: Bytes] = [
        "HOME": Bytes(cli.sandbox + "/user"), "STASH_NOW": Self.now,
      ]
      environment[name] = Bytes(raw: Array((cli.sandbox + "/x").utf8) + [0xFF])
      let before = FolderSnapshot(of: cli.sandbox)
      let run = try cli.run(["add", "Soap"], environment: environment)
      #expect(run.status == 1, "\(run)")
      #expect(run.standardError.hasPrefix("\(name) '"), "\(run)")
      #expect(run.standardError.contains("x\\xFF' is not valid UTF-8"), "\(run)")
      #expect(FolderSnapshot(of: cli.sandbox).differences(from: before) == [])
    }
  }
}
