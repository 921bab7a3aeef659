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
    /// Whether the repair finished a change of identity the power cut interrupted.
    var identityFinished = false
  }

  let workload: Workload
  let root: URL
  let files: any FileSystem
  /// The device whose command the power cut interrupted.
  let device: Workload.Device
  let before: PowerCutExpectation
  let after: PowerCutExpectation

  static func options(
    _ files: any FileSystem, _ access: SyncFolder.Access
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
    var base = name
    if TemporaryName.isTemporary(base), base.hasPrefix("."), base.hasSuffix(".tmp") {
      base = String(base.dropFirst().dropLast(4))
    }
    return base == "lock" || base == "sync.state" || base == "sync.seal"
      || base == "sync-times.json"
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
        result.identityFinished = repaired.repairs.contains {
          $0.hasPrefix("Finished the change of this device's identity")
        }
        seen = try PowerCutObservation.read(home, files: files)
      }
      guard let seen else { return result }
      let (old, new) = (before.observed[device]!, after.observed[device]!)
      // A finished identity change forgets the agreement its first half dropped (the
      // checkpoint of a version never exported): the same items, not the same store.
      let sameAsOld = result.identityFinished ? seen.items == old.items : seen.local == old.local
      let sameAsNew = result.identityFinished ? seen.items == new.items : seen.local == new.local
      if !sameAsOld && !sameAsNew {
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
      let converged = try PowerCutExpectation.converge(workload, root, files)
      // Whether the command left nothing, everything, or a part (its mirror transactions,
      // written before the local one) that the syncs may finish.
      let untouched = seen.local == old.local && seen.versions == old.versions
      let allowed =
        result.finished
        ? [after.converged] : untouched ? [before.converged] : [before.converged, after.converged]
      guard !allowed.contains(converged) else { return result }
      let expected = allowed.last!
      if result.identityFinished && Self.onlyInConflicts(converged, expected) { return result }
      let differences = Workload.Device.allCases.map { device in
        "\(device): "
          + converged[device]!.differences(from: expected[device]!).joined(separator: ", ")
          + "; conflicts \(converged[device]!.conflicts) (expected \(expected[device]!.conflicts))"
      }
      fail(
        "after syncing, the devices differ from what was expected (the command "
          + (result.finished ? "finished" : "not done") + "): "
          + differences.joined(separator: "; "))
    } catch {
      fail("\(error)")
    }
    return result
  }

  /// Whether every item `converged` shows otherwise than `expected` is in an open conflict
  /// on some device, with the expected quantity among its sides: kept where a person sees it.
  static func onlyInConflicts(
    _ converged: [Workload.Device: PowerCutSettled], _ expected: [Workload.Device: PowerCutSettled]
  ) -> Bool {
    Workload.Device.allCases.allSatisfy { device in
      let shown = converged[device]!
      return Set(shown.items.keys).union(expected[device]!.items.keys).allSatisfy { name in
        guard shown.items[name] != expected[device]!.items[name] else { return true }
        guard let quantity = expected[device]!.items[name] else { return false }
        return converged.values.contains { $0.conflicts[name]?.contains(quantity) == true }
      }
    }
  }
}
