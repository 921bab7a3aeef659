import Foundation
import JSONLines
import LocalStore
import MirrorStore
import Stash
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
    guard let content = device.content else { throw ModelError("no inventory in '\(home)'") }
    var versions: Set<String> = []
    switch device.mirror {
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
  var converged: [Workload.Device: [String]]
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
      observed: observed, converged: try PowerCutCheck.converge(workload, place, files))
    found[state.position] = expectation
    return expectation
  }
}

/// The checks of one state a power cut left (see ``PowerCutTests``).
struct PowerCutCheck {
  /// What the check found.
  struct Result: Sendable {
    /// Whether the state's stores, side files, segments and photos were checked in depth
    /// (doctor, repair, syncs): once for each distinct set of them.
    var deep = false
    /// Whether a store needed `doctor --repair` (it held a damaged last transaction).
    var repaired = false
    /// Whether the command in progress is there (it changed the local store, and that change
    /// survived).
    var finished = false
  }

  let workload: Workload
  let root: URL
  let files: any FileSystem
  /// The device whose command the power cut interrupted.
  let device: Workload.Device
  let before: PowerCutExpectation
  let after: PowerCutExpectation

  static func options(
    _ files: any FileSystem, _ access: DeviceFolder.Access
  ) -> DeviceFolder.Options {
    var options = DeviceFolder.Options(
      createIfMissing: false, lockTimeout: 10, fileSystem: files, access: access)
    options.index = LocalStore.IndexPolicy(minimumRows: 1)
    options.mirrorIndex = MirrorStore.IndexPolicy(minimumVersions: 1)
    return options
  }

  /// Whether a file of the state is derived (an index, the digest, the seal, the sync times:
  /// rebuilt when stale, and readers may write them again) or the lock.
  static func isDerived(_ path: String) -> Bool {
    let name = path.split(separator: "/").last.map(String.init) ?? path
    let base = name.hasSuffix(".tmp") ? String(name.dropLast(4)) : name
    return base == "lock" || base == "sync.seal" || base == "sync-times.json"
      || base.hasSuffix(".index") || base.hasSuffix(".digest")
  }

  /// Runs the checks, telling `fail` what does not hold: what a reader sees every time, and
  /// when `deep`, what `doctor` finds, what `doctor --repair` leaves, and what both devices
  /// hold after syncing.
  func run(deep: Bool, fail: (String) -> Void) -> Result {
    var result = Result(deep: deep)
    let home = Workload.home(device, in: root)
    do {
      let snapshot = FolderSnapshot(of: home)
      var seen: PowerCutObservation?
      do {
        seen = try PowerCutObservation.read(home, files: files)
      } catch {
        fail("\(device) does not open for reading: \(error)")
      }
      var report: DoctorReport?
      if deep {
        report = try DeviceFolder.examine(at: home, options: Self.options(files, .reading))
      }
      let changed = FolderSnapshot(of: home).differences(from: snapshot).filter {
        !Self.isDerived($0)
      }
      if !changed.isEmpty { fail("reading \(device) changed \(changed)") }
      if deep && (report?.isDamaged == true || seen == nil) {
        result.repaired = true
        let repaired = try DeviceFolder.repair(at: home, options: Self.options(files, .writing))
        if repaired.isDamaged {
          fail("doctor --repair leaves \(device) damaged: \(repaired.findings.map(\.message))")
        }
        if repaired.repairs.isEmpty { fail("doctor --repair says nothing of what it did") }
        seen = try PowerCutObservation.read(home, files: files)
      }
      guard let seen else { return result }
      let (old, new) = (before.observed[device]!, after.observed[device]!)
      if seen.local != old.local && seen.local != new.local {
        fail("\(device)'s inventory is neither before nor after the command: \(seen.items)")
      }
      // A sync adds versions transaction by transaction; a new identity drops some.
      let between =
        old.versions.isSubset(of: seen.versions) && seen.versions.isSubset(of: new.versions)
      if !between && seen.versions != old.versions && seen.versions != new.versions {
        fail(
          "\(device)'s mirror is neither before, after nor between: \(seen.versions.count) versions"
        )
      }
      result.finished = seen.local == new.local && old.local != new.local
      guard deep else { return result }
      let converged = try Self.converge(workload, root, files)
      let allowed =
        old.local == new.local
        ? [before.converged, after.converged]
        : [result.finished ? after.converged : before.converged]
      if !allowed.contains(converged) {
        let expected = allowed.first!
        let differences = Workload.Device.allCases.map { device in
          let (got, wanted) = (Set(converged[device]!), Set(expected[device]!))
          return "\(device) holds \(got.subtracting(wanted).sorted()) instead of "
            + "\(wanted.subtracting(got).sorted())"
        }
        fail(
          "after syncing, \(differences.joined(separator: ", ")) (the command "
            + (result.finished ? "finished)" : "not done)"))
      }
    } catch {
      fail("\(error)")
    }
    return result
  }

  /// Syncs the device, the other, and the device again, as `stash sync` does; returns what
  /// each holds after.
  static func converge(
    _ workload: Workload, _ root: URL, _ files: any FileSystem
  ) throws -> [Workload.Device: [String]] {
    let run = Workload.Run(workload: workload, root: root, fileSystem: files)
    for device in [Workload.Device.a, .b, .a, .b] {
      let report = try run.open(device).sync()
      if let failure = report.passError ?? report.exportError { throw failure }
      if !report.rejectedSegments.isEmpty {
        throw ModelError("\(device) rejected \(report.rejectedSegments)")
      }
    }
    var items: [Workload.Device: [String]] = [:]
    for device in Workload.Device.allCases {
      items[device] = try run.open(device).items().map { "\($0.name) \($0.quantity)" }.sorted()
    }
    return items
  }
}
