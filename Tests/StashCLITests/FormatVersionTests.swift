import Foundation
import Stash
import StashBase
import StashModel
import StashTestSupport
import Testing

/// Every file Stash writes carries its format version, and a version newer than this program
/// knows is refused with a message naming the file and both versions, never read as if it
/// were known and never rewritten: the file stays byte for byte as it was, and so does
/// everything else. (Older versions are upgraded by tested paths: `CounterUpgradeTests`,
/// `FrozenClockSyncTests`, `VersionIdentityTransportTests`, each over fixtures under
/// `Fixtures/formats/`.) The index beside `default.store` is derived and is ignored instead
/// (`IndexedOpenTests`).
@Suite struct FormatVersionTests {
  /// Two devices of one zone: this one synced, the other's segment in the shared folder.
  private func devices(_ cli: CLI) throws -> (cloud: URL, other: CLI) {
    let cloud = cli.folder.appendingPathComponent("cloud")
    try FileManager.default.createDirectory(at: cloud, withIntermediateDirectories: true)
    var other = cli
    other.home = cli.folder.appendingPathComponent("other")
    for device in [cli, other] {
      #expect(try device.run(["sync", "enable", "--cloud", cloud.path]).status == 0)
    }
    #expect(try cli.run(["add", "Soap"]).status == 0)
    #expect(try cli.run(["sync"]).status == 0)
    #expect(try other.run(["add", "Rinse"]).status == 0)
    #expect(try other.run(["sync"]).status == 0)
    return (cloud, other)
  }

  /// Rewrites the `"version":N` of `path`'s first line to 99, keeping the line's checksum
  /// valid when it has one (so that only the version can refuse it).
  private func makeNewer(_ path: String) throws {
    let text = try String(contentsOfFile: path, encoding: .utf8)
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let first = lines[0]
    let range = try #require(first.range(of: #""version":[0-9]+"#, options: .regularExpression))
    var changed = first.replacingCharacters(in: range, with: #""version":99"#)
    if changed.hasPrefix(#"{"crc":""#) {
      let body = String(changed.dropFirst(#"{"crc":"00000000","#.count))
      let hex = String(CRC32.checksum(Array(body.utf8)), radix: 16)
      changed = #"{"crc":""# + String(repeating: "0", count: 8 - hex.count) + hex + #"","# + body
    }
    lines[0] = changed
    try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: path))
  }

  @Test(arguments: ["default.store", "cloud.store", "zone.json", "segment"])
  func aNewerFormatIsRefusedAndLeftByteIdentical(_ file: String) throws {
    try withCLI { cli in
      let (cloud, other) = try devices(cli)
      let path: String
      switch file {
      case "zone.json": path = cloud.appendingPathComponent("zone.json").path
      case "segment":
        let id = try #require(try other.device(create: false).folder.deviceID)
        path = cloud.appendingPathComponent("devices/\(id.rawValue)/000001.jsonl").path
      default: path = cli.home.appendingPathComponent(file).path
      }
      try makeNewer(path)
      let before = try folderContents(cli.folder)
      let run = try cli.run(["sync"])
      let said = run.standardOutput + run.standardError
      #expect(said.contains("99"), "the newer version is named: \(run)")
      #expect(
        said.contains((path as NSString).lastPathComponent), "and the file: \(run)")
      switch file {
      case "default.store": #expect(run.status == 4, "\(run)")
      case "cloud.store", "zone.json": #expect(run.status == 4 || run.status == 1, "\(run)")
      default: #expect(run.status == 0, "a segment is one rejected file: \(run)")
      }
      #expect(try folderContents(cli.folder) == before, "nothing anywhere was rewritten")
      if file == "segment" {
        #expect(try cli.run(["show", "Rinse"]).status == 1, "its versions were not read")
      } else if file != "default.store" {
        #expect(try cli.run(["show", "Soap"]).status == 0, "the inventory works as usual")
      }
    }
  }
}
