import Foundation
import LocalStore
import MirrorStore
import Stash
import StashBase
import StashModel
import StashTestSupport

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A "device" of the zone that writes only what an honest one never would: garbage, versions
/// that fail the integrity or the model's checks, truncated and oversized (sparse) files,
/// self-parented versions, links to a file and a folder outside the shared folder, FIFOs, and
/// junk beside the zone's files. It writes in its own device folder, in `blobs/` and at the
/// top level, never over another device's files (nothing can tell such a forgery from the
/// real device: see the README's "Syncing two devices").
///
/// Its sync tool is instantaneous: every file lands in every device's view at once (so the
/// simulated sync tool never has to copy a FIFO or a sparse gigabyte).
struct HostileWriter {
  let device = DeviceID.make()
  let zone: String
  /// A file and a folder outside the shared folder that links point at: nothing may change
  /// them.
  let canary: URL
  let canaryBytes = Array("nobody may write here\n".utf8)
  /// What it wrote, by path relative to a view.
  private(set) var files = [String: File]()
  private var sequence: Int64 = 0

  init(_ simulation: Simulation) throws {
    let zoneFile = simulation.devices[0].view.appendingPathComponent("zone.json")
    guard
      case .object(let zoneObject) = try JSONParser.parse(
        String(contentsOf: zoneFile, encoding: .utf8)),
      case .string(let zone)? = zoneObject["zone"]
    else { throw ModelError("no zone in zone.json") }
    self.zone = zone
    canary = simulation.folder.appendingPathComponent("canary")
    try FileManager.default.createDirectory(
      at: canary.appendingPathComponent("room"), withIntermediateDirectories: true)
    try Data(canaryBytes).write(to: canary.appendingPathComponent("secret"))
  }

  /// Whether `path` (relative to a view) is the hostile writer's.
  func wrote(_ path: String) -> Bool {
    path.hasPrefix("devices/\(device.rawValue)/")
      || files.keys.contains { path == $0 || path.hasPrefix($0 + "/") }
  }

  /// Problems with the canary: changed bytes, or anything new next to it.
  func canaryProblems() -> [String] {
    let secret = canary.appendingPathComponent("secret")
    var problems = [String]()
    if (try? Data(contentsOf: secret)).map(Array.init) != canaryBytes {
      problems.append("hostile: the file a link pointed at changed")
    }
    let inside = (try? FileManager.default.subpathsOfDirectory(atPath: canary.path)) ?? []
    if Set(inside) != ["secret", "room"] {
      problems.append("hostile: something was written through a link: \(inside.sorted())")
    }
    return problems
  }

  /// The next segment name in its own device folder.
  mutating func nextSegment() -> String {
    sequence += 1
    return "devices/\(device.rawValue)/" + String(format: "%06lld", sequence) + ".jsonl"
  }

  /// One kind of bad file, as the relative path and a way to make it in a view.
  enum File {
    case bytes([UInt8])
    case sparse(Int64)
    case link(to: URL)
    case fifo
    case folder
  }

  /// A bad file at random: its path and content.
  mutating func random(
    shared: [RecordID], using random: inout SeededRandom
  ) -> (String, File) {
    let key = shared.randomElement(using: &random) ?? .make()
    func segment(_ versions: [HostileSegment.Version], count: Int? = nil) -> [UInt8] {
      HostileSegment.bytes(
        zone: zone, device: device, sequence: sequence, versions: versions, count: count)
    }
    let photo = "blobs/" + SHA256.hash(Array("photo \(sequence)".utf8)).hex
    switch Int.random(in: 0..<14, using: &random) {
    case 0:
      let name = nextSegment()
      return (
        name,
        .bytes(
          (0..<Int.random(in: 1...300, using: &random)).map { _ in
            UInt8.random(in: 0...255, using: &random)
          })
      )
    case 1:  // fails the model's checks: a negative quantity, an empty name
      let name = nextSegment()
      let bad =
        Bool.random(using: &random)
        ? HostileSegment.item(id: key, quantity: -5) : HostileSegment.item(id: key, name: "")
      return (name, .bytes(segment([.init(.record(bad))])))
    case 2:  // a hash that does not match its content
      let name = nextSegment()
      var version = HostileSegment.Version(.record(HostileSegment.item(id: key)))
      version.snapshot = .record(HostileSegment.item(id: key, name: "Swapped"))
      var bytes = segment([version])
      let good = Array(HostileSegment.item(id: key).snapshotHash.hex.utf8)
      bytes = replacing(Array(version.snapshot.hash.hex.utf8), with: good, in: bytes)
      return (name, .bytes(bytes))
    case 3:  // truncated: announces two versions, holds one and a half
      let name = nextSegment()
      let whole = segment([
        .init(.record(HostileSegment.item(id: key, name: "Half"))),
        .init(.record(HostileSegment.item(name: "Other half"))),
      ])
      return (name, .bytes(Array(whole.prefix(whole.count - 40))))
    case 4:
      return (nextSegment(), .sparse(1 << 30))  // a sparse gigabyte: past every limit
    case 5:
      return (photo, .sparse(1 << 30))
    case 6:  // names itself as a parent
      let name = nextSegment()
      let record = HostileSegment.item(id: key, name: "Ouroboros")
      let id = VersionID(naming: record.snapshotHash)
      return (name, .bytes(segment([.init(.record(record), generation: 2, parents: [id], id: id)])))
    case 7:  // a generation past the limit, and an id that does not derive
      let name = nextSegment()
      let record = HostileSegment.item(id: key, name: "Ancient")
      return Bool.random(using: &random)
        ? (name, .bytes(segment([.init(.record(record), generation: .max)])))
        : (
          name,
          .bytes(segment([.init(.record(record), id: VersionID(naming: record.snapshotHash))]))
        )
    case 8:
      return (nextSegment(), .link(to: canary.appendingPathComponent("secret")))
    case 9:
      return (photo, .link(to: canary.appendingPathComponent("secret")))
    case 10:  // a whole "device folder" that is a link to a folder outside
      return (
        "devices/\(DeviceID.make().rawValue)", .link(to: canary.appendingPathComponent("room"))
      )
    case 11:
      return Bool.random(using: &random) ? (nextSegment(), .fifo) : (photo, .fifo)
    case 12:  // a photo whose bytes do not match its name
      return (photo, .bytes(Array("not the photo".utf8)))
    default:  // junk a person or a tool leaves in a shared folder
      let names = ["notes.txt", "Thumbs.db", "devices/README", "devices/junk.jsonl", "blobs/x"]
      let name = names.randomElement(using: &random)! + "-\(sequence)"
      sequence += 1
      return Bool.random(using: &random) ? (name, .bytes(Array("junk".utf8))) : (name, .folder)
    }
  }

  private func replacing(_ old: [UInt8], with new: [UInt8], in bytes: [UInt8]) -> [UInt8] {
    guard
      let start = (0...(bytes.count - old.count)).first(where: {
        bytes[$0..<$0 + old.count].elementsEqual(old)
      })
    else { return bytes }
    return Array(bytes[..<start]) + new + Array(bytes[(start + old.count)...])
  }

  /// Makes everything it wrote in a new device's view.
  mutating func replay(into view: URL) throws {
    for (relative, file) in files.sorted(by: { $0.key < $1.key }) {
      try make(relative, file, in: view)
    }
  }

  /// Makes `file` at `relative` in `view` (skipped where something is already there).
  mutating func make(_ relative: String, _ file: File, in view: URL) throws {
    files[relative] = file
    let url = view.appendingPathComponent(relative)
    let manager = FileManager.default
    try manager.createDirectory(
      at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    var status = stat()
    guard lstat(url.path, &status) != 0 else { return }
    switch file {
    case .bytes(let bytes): try Data(bytes).write(to: url)
    case .sparse(let size):
      guard manager.createFile(atPath: url.path, contents: nil) else {
        throw ModelError("could not create \(url.path)")
      }
      guard truncate(url.path, off_t(size)) == 0 else { throw ModelError("truncate failed") }
    case .link(let target): try manager.createSymbolicLink(at: url, withDestinationURL: target)
    case .fifo: guard mkfifo(url.path, 0o600) == 0 else { throw ModelError("mkfifo failed") }
    case .folder: try manager.createDirectory(at: url, withIntermediateDirectories: true)
    }
  }
}

extension Simulation {
  /// The hostile writer's step: one bad file, in every view.
  mutating func dropHostileFile() throws {
    guard var writer = hostile, !quiescing else { return }
    let (relative, file) = writer.random(shared: shared, using: &random)
    for device in devices { try writer.make(relative, file, in: device.view) }
    hostile = writer
    totals.hostileFiles += 1
  }

  /// What a hostile writer must never achieve: a write outside the shared folder, or a live
  /// row that fails the model's checks.
  mutating func checkHostileEffects(_ folder: DeviceFolder) {
    guard let hostile else { return }
    problems += hostile.canaryProblems()
    for stored in folder.folder.content.map({ Array($0.rows.values) }) ?? [] {
      do {
        try stored.record.schema.validate(stored.record)
      } catch {
        problems.append("hostile: a live row fails the model's checks: \(error)")
      }
    }
  }
}
