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
}
