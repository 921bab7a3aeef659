import Foundation
import Stash
import StashModel
import StashTestSupport
import Testing

/// The README's "Embedding Stash" example, compiled and run, so the README cannot drift from
/// the API. Keep the two in step.
@Suite struct ReadmeExampleTests {
  @Test func theEmbeddingExampleRuns() throws {
    try withTemporaryFolder { root in
      let shared = root.appendingPathComponent("shared")
      try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
      let home = root.appendingPathComponent("home").path

      // From the README (with `home` for DeviceFolder.defaultHome()):
      let device = try DeviceFolder.open(at: home)
      let tube = try device.addItem(
        Item(name: "Koleston 7/1", quantity: 5, unit: "tube", createdAt: .now()))
      try device.consume(tube.id.rawValue)  // by id, id prefix, or exact name
      print(device.items().map { "\($0.name): \($0.quantity)" })

      let folder = device.folder  // records, sync, conflicts, settings
      if let problem = folder.mirrorProblem { print(problem) }  // never thrown
      try folder.enableSync(cloud: shared.path)  // from the next open
      let report = try DeviceFolder.open(at: folder.home).folder.sync()
      for conflict in folder.conflicts() { print(conflict.kind, conflict.sides.count) }

      #expect(device.items().first?.quantity == 4)
      #expect(report.versionsExported == 1)
    }
  }
}
