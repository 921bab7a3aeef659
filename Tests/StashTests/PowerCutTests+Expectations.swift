import Foundation
import JSONLines
import LocalStore
import MirrorStore
import Stash
import StashFiles
import StashModel
import StashTestSupport
import StashWorkload
import Testing

/// What a reader sees in one device folder.
struct PowerCutObservation: Sendable, Equatable {
  /// The local store's content (``StoreDigest/local(_:)``).
  var local: String
  /// The mirror's versions (none without a mirror).
  var versions: Set<String>
  /// Every item as `name quantity`, sorted.
  var items: [String]

  /// Opens the folder for reading, as `stash list` does, and once more as a one-record
  /// command does (from the index, holding only `item-1`), which must agree.
  static func read(_ home: String, files: any FileSystem) throws -> PowerCutObservation {
    let device = try DeviceFolder.open(at: home, options: PowerCutCheck.options(files, .reading))
    guard let content = device.folder.content else { throw ModelError("no inventory in '\(home)'") }
    var versions: Set<String> = []
    switch device.folder.mirror {
    case .available(let mirror): versions = StoreDigest.versions(mirror.content)
    case .unavailable(let reason): throw ModelError("the mirror does not open: \(reason)")
    case .notEntitled: break
    }
    let items = device.items().map { "\($0.name) \($0.quantity)" }.sorted()
    var focused = PowerCutCheck.options(files, .reading)
    focused.focus(on: [("item", "item-1")])
    let one = try DeviceFolder.open(at: home, options: focused)
    let quantity = (try? one.item("item-1")).map { "item-1 \($0.quantity)" }
    if quantity != items.first(where: { $0.hasPrefix("item-1 ") }) {
      throw ModelError("a one-record open sees \(quantity ?? "no item-1"), a whole one \(items)")
    }
    return PowerCutObservation(local: StoreDigest.local(content), versions: versions, items: items)
  }
}

/// What both devices hold at a moment when nothing was lost: what a reader sees, and what each
/// device shows after both sync twice from there.
struct PowerCutExpectation: Sendable {
  var observed: [Workload.Device: PowerCutObservation]
  var converged: [Workload.Device: PowerCutSettled]
}

/// What a device shows after syncing: each item's quantity, and for each item in an open
/// conflict, the quantities its sides hold.
struct PowerCutSettled: Sendable, Equatable, CustomStringConvertible {
  var items: [String: Int64] = [:]
  var conflicts: [String: Set<Int64>] = [:]

  var description: String {
    items.keys.sorted().map { "\($0) \(items[$0]!)" }.joined(separator: ", ")
      + conflicts.keys.sorted().map { "; conflict on \($0): \(conflicts[$0]!.sorted())" }.joined()
  }

  /// The items whose quantity differs from `other`'s, as `name: this (other)`.
  func differences(from other: PowerCutSettled) -> [String] {
    Set(items.keys).union(other.items.keys).sorted().compactMap { name in
      items[name] == other.items[name]
        ? nil
        : "\(name): \(items[name].map(String.init) ?? "none") "
          + "(\(other.items[name].map(String.init) ?? "none"))"
    }
  }
}

extension PowerCutExpectation {
  /// Syncs both devices twice, as `stash sync` does; returns what each shows after.
  static func converge(
    _ workload: Workload, _ root: URL, _ files: any FileSystem
  ) throws -> [Workload.Device: PowerCutSettled] {
    let run = Workload.Run(workload: workload, root: root, fileSystem: files)
    for device in [Workload.Device.a, .b, .a, .b] {
      let report = try run.open(device).folder.sync()
      if let failure = report.passError ?? report.exportError { throw failure }
      if !report.rejectedSegments.isEmpty {
        throw ModelError("\(device) rejected \(report.rejectedSegments)")
      }
    }
    var settled: [Workload.Device: PowerCutSettled] = [:]
    for device in Workload.Device.allCases {
      let folder = try run.open(device)
      var shown = PowerCutSettled()
      for item in folder.items() { shown.items[item.name] = item.quantity }
      for conflict in folder.folder.conflicts() {
        let sides = conflict.sides.compactMap { $0.snapshot?.record }.compactMap {
          try? Item(record: $0)
        }
        guard let name = sides.first?.name else { continue }
        shown.conflicts[name, default: []].formUnion(sides.map(\.quantity))
      }
      settled[device] = shown
    }
    return settled
  }
}

/// The expectations at each moment between two commands, computed once.
final class ExpectationCache {
  private let workload: Workload
  private let folder: URL
  private var found: [Int: PowerCutExpectation] = [:]

  init(workload: Workload, folder: URL) {
    self.workload = workload
    self.folder = folder
  }

  /// The expectation of the state that keeps everything written (`state` from
  /// ``PowerCutReplay/sample(_:using:)`` with ``PowerCutChoice/allKept``).
  func expectation(
    _ state: PowerCutState, _ replay: PowerCutReplay
  ) throws -> PowerCutExpectation {
    if let known = found[state.position] { return known }
    let place = folder.appendingPathComponent("expected-\(state.position)")
    defer { try? FileManager.default.removeItem(at: place) }
    let files = try state.write(to: place.path, identities: replay.identities)
    var observed: [Workload.Device: PowerCutObservation] = [:]
    for device in Workload.Device.allCases {
      observed[device] = try PowerCutObservation.read(
        Workload.home(device, in: place), files: files)
    }
    let expectation = PowerCutExpectation(
      observed: observed, converged: try PowerCutExpectation.converge(workload, place, files))
    found[state.position] = expectation
    return expectation
  }
}
