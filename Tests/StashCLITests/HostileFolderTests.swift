import Foundation
import Stash
import StashBase
import StashModel
import StashTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Files in the shared folder that would make `stash sync` hang, crash, allocate a terabyte or
/// write outside its own files. Each case ends with a sync that finishes and says why.
@Suite struct HostileFolderTests {
  /// Device A made the zone and exported an item; B has synced once (it belongs to the zone).
  private struct Pair {
    let a: CLI
    let b: CLI
    let cloud: String
    let zone: String
    let aID: DeviceID

    init(_ cli: CLI) throws {
      cloud = cli.folder.appendingPathComponent("cloud").path
      try FileManager.default.createDirectory(atPath: cloud, withIntermediateDirectories: true)
      var a = cli
      a.home = cli.folder.appendingPathComponent("device-a")
      var b = cli
      b.home = cli.folder.appendingPathComponent("device-b")
      for device in [a, b] { try device.run(["sync", "enable", "--cloud", cloud]) }
      try a.run(["add", "Soap", "--quantity", "5"])
      for device in [a, b] {
        let synced = try device.run(["sync"])
        #expect(synced.status == 0, "\(synced)")
      }
      self.a = a
      self.b = b
      let text = try String(contentsOfFile: cloud + "/zone.json", encoding: .utf8)
      let object = try JSONParser.parse(text)
      zone = try #require(object["zone"]?.text)
      aID = try #require(try a.device(create: false).folder.deviceID)
    }

    /// A segment of a device nobody knows, holding `versions`.
    func drop(_ versions: [HostileSegment.Version]) throws -> String {
      let writer = DeviceID.make()
      let relative = "devices/\(writer.rawValue)/000001.jsonl"
      try write(HostileSegment.bytes(zone: zone, device: writer, versions: versions), relative)
      return relative
    }

    func write(_ bytes: [UInt8], _ relative: String) throws {
      let url = URL(fileURLWithPath: cloud + "/" + relative)
      try FileManager.default.createDirectory(
        at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      try Data(bytes).write(to: url)
    }

    func path(_ relative: String) -> String { cloud + "/" + relative }
  }

  /// Runs `stash sync` on `device`, giving up after five minutes so that a hang fails the test
  /// instead of the whole run (`timeout` is missing on macOS: there a hang would hang).
  private func guardedSync(_ device: CLI, _ extra: [String] = []) throws -> Run {
    let arguments = (["sync"] + extra).map { "'\($0)'" }.joined(separator: " ")
    let run = try device.shell(
      #"if command -v timeout >/dev/null; then exec timeout -s KILL 300 "$0" "#
        + arguments + #"; else exec "$0" "# + arguments + "; fi")
    #expect(run.status != 137, "sync hung: \(run)")
    #expect(run.status < 124, "sync crashed or hung: \(run)")
    return run
  }

  private func makeFIFO(_ path: String) throws {
    try FileManager.default.createDirectory(
      atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    #expect(mkfifo(path, 0o600) == 0)
  }

  private func makeSparse(_ path: String, size: Int64) throws {
    try FileManager.default.createDirectory(
      atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    let descriptor = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
    #expect(descriptor >= 0)
    #expect(ftruncate(descriptor, off_t(size)) == 0)
    close(descriptor)
  }

  @Test(arguments: ["fifo", "sparse"])
  func aZoneFileThatIsNotASmallRegularFileIsRefusedWithItsName(_ kind: String) throws {
    try withCLI { cli in
      let pair = try Pair(cli)
      let zone = pair.path("zone.json")
      try FileManager.default.removeItem(atPath: zone)
      if kind == "fifo" { try makeFIFO(zone) } else { try makeSparse(zone, size: 1 << 40) }
      let before = pair.b.storeBytes()
      let run = try guardedSync(pair.b)
      #expect(run.status == 4, "\(run)")
      #expect(run.standardError.contains("zone.json"), "\(run)")
      #expect(pair.b.storeBytes() == before)
    }
  }

  @Test(arguments: ["fifo", "sparse"])
  func aSegmentThatIsNotASmallRegularFileIsRejected(_ kind: String) throws {
    try withCLI { cli in
      let pair = try Pair(cli)
      let relative = "devices/\(DeviceID.make().rawValue)/000001.jsonl"
      if kind == "fifo" {
        try makeFIFO(pair.path(relative))
      } else {
        try makeSparse(pair.path(relative), size: 1 << 40)
      }
      let run = try guardedSync(pair.b, ["--json"])
      #expect(run.status == 0, "\(run)")
      let rejected = try run.json()["rejectedSegments"]?.elements.compactMap(\.text) ?? []
      #expect(rejected.contains { $0.contains(relative) }, "\(run)")
    }
  }

  @Test(arguments: ["fifo", "sparse terabyte", "sparse gigabyte"])
  func aPhotoThatIsNotASmallRegularFileIsRejected(_ kind: String) throws {
    try withCLI { cli in
      let pair = try Pair(cli)
      let digest = SHA256.hash(Array("the real photo".utf8))
      let claimed: Int64 = kind == "sparse gigabyte" ? 1 << 30 : 14
      let photo = BlobRef(digest: digest, size: claimed)
      let blob = pair.path("blobs/\(digest.hex)")
      switch kind {
      case "fifo": try makeFIFO(blob)
      case "sparse terabyte": try makeSparse(blob, size: 1 << 40)
      default: try makeSparse(blob, size: 1 << 30)
      }
      let item = HostileSegment.item(name: "Pictured", photo: photo)
      _ = try pair.drop([HostileSegment.Version(.record(item))])
      let run = try guardedSync(pair.b, ["--json"])
      #expect(run.status == 0, "\(run)")
      #expect(try pair.b.run(["show", "Pictured"]).status == 1, "the item never arrives")
      let report = try run.json()
      let problems =
        (report["rejectedSegments"]?.elements ?? []) + (report["waiting"]?.elements ?? [])
      #expect(!problems.isEmpty, "\(run)")
      // The version itself is sound (id, hash, model): only its photo may hold it back.
      #expect(problems.allSatisfy { "\($0)".contains(digest.hex.prefix(12)) }, "\(run)")
    }
  }

  @Test func anImportedGenerationOfInt64MaxIsRejectedForIt() throws {
    try withCLI { cli in
      let pair = try Pair(cli)
      let item = HostileSegment.item(name: "Ancient")
      _ = try pair.drop([HostileSegment.Version(.record(item), generation: .max)])
      let run = try guardedSync(pair.b, ["--json"])
      let rejected = try run.json()["rejectedSegments"]?.elements ?? []
      #expect(rejected.contains { "\($0)".contains("generation") }, "\(run)")
      #expect(try pair.b.run(["show", "Ancient"]).status == 1)
    }
  }

  /// The highest generation a segment may carry (2^53, `CloudLimits.generation`) arrives, and
  /// the edits built on it (one generation more each) export without overflowing.
  @Test func theHighestAcceptedGenerationCrashesNoLaterSync() throws {
    try withCLI { cli in
      let pair = try Pair(cli)
      let item = HostileSegment.item(name: "Ancient")
      _ = try pair.drop([HostileSegment.Version(.record(item), generation: 1 << 53)])
      _ = try guardedSync(pair.b)
      #expect(try pair.b.run(["show", "Ancient"]).status == 0, "it arrived")
      let restock = try pair.b.run(["restock", "Ancient", "1"])
      #expect(restock.status == 0, "\(restock)")
      let again = try guardedSync(pair.b)
      #expect(again.status == 0, "\(again)")
    }
  }

  @Test func anImportedQuantityOfInt64MinNeverCrashesRestock() throws {
    try withCLI { cli in
      let pair = try Pair(cli)
      _ = try pair.drop([
        HostileSegment.Version(.record(HostileSegment.item(name: "Debt", quantity: .min)))
      ])
      let run = try guardedSync(pair.b, ["--json"])
      // Refused for what it is (a negative quantity), not for a flaw of the test's segment.
      let rejected = try run.json()["rejectedSegments"]?.elements ?? []
      #expect(rejected.contains { "\($0)".contains("quantity") }, "\(run)")
      let restock = try pair.b.run(["restock", "Debt", "1"])
      #expect(restock.status == 1, "\(restock)")
    }
  }

  @Test func aSegmentNamedWithTheLargestNumberCrashesNoExport() throws {
    try withCLI { cli in
      let pair = try Pair(cli)
      try pair.write(
        Array("garbage\n".utf8), "devices/\(pair.aID.rawValue)/9223372036854775807.jsonl")
      try pair.a.run(["restock", "Soap", "1"])
      let run = try guardedSync(pair.a)
      #expect(run.status == 0, "\(run)")
    }
  }

  @Test func aPhotoLargerThanOtherDevicesAcceptIsRefusedWhenAttached() throws {
    try withCLI { cli in
      let photo = cli.folder.appendingPathComponent("huge.jpg").path
      try makeSparse(photo, size: 51 << 20)
      let run = try cli.run(["add", "Poster", "--photo", photo])
      #expect(run.status == 1, "\(run)")
      #expect(run.standardError.contains("50 MiB"), "\(run)")
      #expect(try cli.run(["show", "Poster"]).status == 1)
    }
  }

  @Test func aDirectoryAsZoneFileIsNamedInTheMessage() throws {
    try withCLI { cli in
      let pair = try Pair(cli)
      try FileManager.default.removeItem(atPath: pair.path("zone.json"))
      try FileManager.default.createDirectory(
        atPath: pair.path("zone.json"), withIntermediateDirectories: true)
      let run = try guardedSync(pair.b)
      #expect(run.status == 4, "\(run)")
      #expect(run.standardError.contains("zone.json") && !run.standardError.contains("fd "))
    }
  }
}
