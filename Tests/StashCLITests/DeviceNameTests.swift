import Foundation
import StashBase
import StashTestSupport
import Testing

/// Default device names tell two device folders on one machine apart (issue 24, item 6).
@Suite struct DeviceNameTests {
  @Test func twoDeviceFoldersOnOneMachineGetNamesThatTellThemApart() throws {
    try withCLI { cli in
      var other = cli
      other.home = cli.folder.appendingPathComponent("other")
      let first = try cli.run(["init", "--json"]).json()
      let second = try other.run(["init", "--json"]).json()
      let names = [first, second].map { $0["name"]?.text ?? "" }
      let ids = [first, second].map { $0["device"]?.text ?? "" }
      #expect(names[0] != names[1], "\(names)")
      let host = ProcessInfo.processInfo.hostName
      for (name, id) in zip(names, ids) {
        #expect(name == "\(host)-\(id.prefix(4))", "\(name) for device \(id)")
      }
      // A name given is kept as it is, and a folder keeps the name it has.
      var named = cli
      named.home = cli.folder.appendingPathComponent("named")
      #expect(try named.run(["init", "--name", "salon", "--json"]).json()["name"]?.text == "salon")
      #expect(try cli.run(["init", "--json"]).json()["name"]?.text == names[0])
    }
  }

  /// A copy that becomes a device of its own, and a device given a new identity, take a
  /// default name that follows the new id; a chosen name stays.
  @Test func aDefaultNameFollowsANewDeviceID() throws {
    try withCLI { cli in
      let cloud = cli.folder.appendingPathComponent("cloud")
      try FileManager.default.createDirectory(at: cloud, withIntermediateDirectories: true)
      var named = cli
      named.home = cli.folder.appendingPathComponent("named")
      try named.run(["init", "--name", "salon"])
      for device in [cli, named] {
        try device.run(["sync", "enable", "--cloud", cloud.path])
        try device.run(["add", "Soap \(device.home.lastPathComponent)"])
        #expect(try device.run(["sync"]).status == 0)
      }
      let host = ProcessInfo.processInfo.hostName
      func identity(_ device: CLI) throws -> (id: String, name: String) {
        let json = try device.run(["init", "--json"]).json()
        return (json["device"]?.text ?? "", json["name"]?.text ?? "")
      }
      let original = try identity(cli)

      var copy = cli
      copy.home = cli.folder.appendingPathComponent("copy")
      try FileManager.default.copyItem(at: cli.home, to: copy.home)
      let write = try copy.run(["add", "Salt"])
      #expect(write.standardError.contains("was copied or restored"), "\(write)")
      let copied = try identity(copy)
      #expect(copied.id != original.id)
      #expect(copied.name == "\(host)-\(copied.id.prefix(4))", "\(copied)")
      #expect(try identity(cli) == original, "the original keeps its id and name")

      let renewed = try cli.run(["sync", "new-identity"])
      #expect(renewed.status == 0, "\(renewed)")
      let after = try identity(cli)
      #expect(after.id != original.id)
      #expect(after.name == "\(host)-\(after.id.prefix(4))", "\(after)")
      #expect(try named.run(["sync", "new-identity"]).status == 0)
      #expect(try identity(named).name == "salon")
    }
  }
}
