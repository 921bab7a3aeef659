import Foundation
import MirrorStore
import StashBase
import StashModel
import StashTestSupport
import Testing

/// The mirror (`cloud.store`) is a local file too: a line with a valid checksum can still lie.
/// A version of the mirror's own file whose content does not match its hash, whose id does
/// not derive, or whose record fails its model's checks is never exported and never applied;
/// the sync says which file is damaged, and `doctor` reports it.
@Suite struct MirrorDamageTests {
  private func mirrorPath(_ cli: CLI) -> String {
    cli.home.appendingPathComponent("cloud.store").path
  }

  /// A device with one item, synced once: its mirror holds one exported version.
  private func syncedDevice(_ cli: CLI) throws -> URL {
    let cloud = cli.folder.appendingPathComponent("cloud")
    try FileManager.default.createDirectory(at: cloud, withIntermediateDirectories: true)
    #expect(try cli.run(["sync", "enable", "--cloud", cloud.path]).status == 0)
    #expect(try cli.run(["add", "Soap", "--quantity", "5"]).status == 0)
    #expect(try cli.run(["sync"]).status == 0)
    return cloud
  }

  /// The mirror's version of the item, as its line holds it.
  private func soapVersion(_ cli: CLI) throws -> JSONObject {
    let text = try String(contentsOfFile: mirrorPath(cli), encoding: .utf8)
    let line = try #require(text.split(separator: "\n").first { $0.contains("\"Soap\"") })
    guard case .object(let version)? = try JSONParser.parse(String(line))["op"]?["version"]
    else { throw ModelError("no version line") }
    return version
  }

  /// Appends a committed transaction adding `version` (pending export), framed and
  /// checksummed as the mirror writes its lines: a hand edit or another tool.
  private func append(_ version: JSONObject, to cli: CLI) throws {
    let path = mirrorPath(cli)
    let text = try String(contentsOfFile: path, encoding: .utf8)
    let last = try #require(text.split(separator: "\n").last)
    let sequence = try #require(try JSONParser.parse(String(last))["tx"]?.integer) + 1
    var body = version
    body["pending"] = .bool(true)
    var operation = [UInt8]()
    JSONWriter.write(.object(["version": .object(body)]), into: &operation)
    let framed = [
      "\"tx\":\(sequence),\"op\":" + String(decoding: operation, as: UTF8.self) + "}",
      "\"tx\":\(sequence),\"commit\":1}",
    ].map { body in
      let hex = String(CRC32.checksum(Array(body.utf8)), radix: 16)
      return "{\"crc\":\"\(String(repeating: "0", count: 8 - hex.count) + hex)\"," + body + "\n"
    }
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    try handle.seekToEnd()
    try handle.write(contentsOf: Data(framed.joined().utf8))
    try handle.close()
  }

  /// A child of `version` with `name`, its hash and id made to match (so only the model's
  /// checks can catch it) unless `keepingHash`.
  private func child(of version: JSONObject, name: String, keepingHash: Bool) throws -> JSONObject {
    guard case .object(var snapshot)? = version["snapshot"],
      case .object(var fields)? = snapshot["fields"], case .string(let parent)? = version["id"]
    else { throw ModelError("unexpected version shape") }
    fields["name"] = .string(name)
    snapshot["fields"] = .object(fields)
    var child = version
    child["snapshot"] = .object(snapshot)
    child["parents"] = .array([.string(parent)])
    child["generation"] = .integer(2)
    let parentID = try #require(VersionID(hex: parent))
    if !keepingHash {
      let hash = try Snapshot(json: snapshot, schemas: InventorySchemas.registry).hash
      child["hash"] = .string(hash.hex)
      child["id"] = .string(VersionID.derive(snapshot: hash, parents: [parentID]).hex)
    } else {
      child["id"] = .string(String(repeating: "ab", count: 32))
    }
    return child
  }

  private func sharedText(_ cloud: URL) throws -> String {
    try folderContents(cloud).values.map { String(decoding: $0, as: UTF8.self) }.joined()
  }

  @Test func aMirrorVersionWhoseContentDoesNotMatchItsHashIsNeverExported() throws {
    try withCLI { cli in
      let cloud = try syncedDevice(cli)
      try append(try child(of: try soapVersion(cli), name: "Soup", keepingHash: true), to: cli)
      let sync = try cli.run(["sync"])
      #expect((sync.standardOutput + sync.standardError).contains(mirrorPath(cli)), "\(sync)")
      #expect(try !sharedText(cloud).contains("Soup"), "the damaged version never travels")
      #expect(try cli.run(["doctor"]).status == 4)
    }
  }

  @Test func aMirrorVersionThatFailsItsModelsChecksIsNeitherAppliedNorExported() throws {
    try withCLI { cli in
      let cloud = try syncedDevice(cli)
      try append(try child(of: try soapVersion(cli), name: "", keepingHash: false), to: cli)
      let sync = try cli.run(["sync"])
      #expect(sync.status == 4, "\(sync)")
      #expect((sync.standardOutput + sync.standardError).contains(mirrorPath(cli)), "\(sync)")
      let shown = try cli.run(["show", "Soap", "--json"])
      #expect(shown.status == 0, "the inventory keeps its own row: \(shown)")
      #expect(try !sharedText(cloud).contains("\"name\":\"\""), "never exported")
      #expect(try cli.run(["doctor"]).status == 4)
    }
  }
}
