import Foundation
import JSONLines
import Stash
import StashModel
import StashTestSupport
import Testing

/// `sync new-identity` rewrites the mirror, then the local store. A crash or a power cut
/// between the two leaves the mirror under the new id without this copy's unexported versions,
/// and the local store under the old one: `doctor` says so, `doctor --repair` finishes it, and
/// no local change is lost on the way (a checkpoint that named a dropped version is forgotten,
/// never trusted against the mirror).
@Suite struct InterruptedIdentityTests {
  @Test func repairFinishesAnInterruptedIdentityChangeAndKeepsAnUnexportedResolution() throws {
    try withTemporaryFolder { folder in
      let cloud = folder.appendingPathComponent("cloud")
      try FileManager.default.createDirectory(at: cloud, withIntermediateDirectories: true)
      let (a, b) = (folder.appendingPathComponent("a"), folder.appendingPathComponent("b"))
      for home in [a, b] { try openDevice(home).folder.enableSync(cloud: cloud.path) }
      let files = ScriptedFileSystem()
      let first = try openDevice(a)
      let second = try openDevice(b, fileSystem: files)
      try first.addItem(Item(name: "Soap", quantity: 5, createdAt: epoch))
      for device in [first, second] { _ = try device.folder.sync() }
      // A move against a recount: a conflict, which the second device resolves and does not
      // export: the resolution is pending in its mirror, and its checkpoint names it.
      try second.consume("Soap", count: 1)
      try first.recount("Soap", to: 9)
      for device in [first, second] { _ = try device.folder.sync() }
      let conflict = try #require(second.folder.conflicts().first)
      try second.folder.resolveConflict(conflict.id.rawValue, keep: .local)
      #expect(try second.item("Soap").quantity == 4)
      // The second rewrite fails: the mirror has the new id, the local store the old one.
      // (The header goes to a temporary name of the new store's own temporary name.)
      files.inject(.writeTo(suffix: "default.store.new-identity.tmp.tmp"))
      #expect(throws: StashError.self) { try second.folder.takeNewIdentity() }
      #expect(files.allFaultsFired)

      let examined = try DeviceFolder.examine(at: b.path)
      #expect(examined.findings.contains { $0.message.contains("identity did not finish") })
      let repaired = try DeviceFolder.repair(at: b.path)
      #expect(!repaired.isDamaged, "\(repaired.findings)")
      #expect(
        repaired.repairs.contains { $0.hasPrefix("Finished the change of this device's identity") },
        "\(repaired.repairs)")
      for home in [b, a, b] { _ = try openDevice(home, create: false).folder.sync() }
      // The dropped resolution is never silently replaced by the other side: it is the row, or
      // a side of a conflict the person sees.
      let device = try openDevice(b, create: false)
      let sides = device.folder.conflicts().flatMap(\.sides).compactMap { $0.snapshot?.record }
      let quantities = sides.compactMap { try? Item(record: $0).quantity }
      let shown = try device.item("Soap").quantity
      #expect(shown == 4 || quantities.contains(4), "Soap shows \(shown), conflicts \(quantities)")
    }
  }
}
