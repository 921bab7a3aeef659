import Foundation
import Stash
import StashModel
import StashTestSupport
import Testing

/// The README's "Embedding Stash" example, compiled and run, so the README cannot drift from
/// the API. Keep the two in step.
@Suite struct ReadmeExampleTests {
  @Test func theEmbeddingExampleRuns() throws {
    try withTemporaryFolder { folder in
      let shared = folder.appendingPathComponent("shared")
      try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
      let home = folder.appendingPathComponent("home").path

      // From the README (with `home` for DeviceFolder.defaultHome()):
      let device = try DeviceFolder.open(at: home)
      let tube = try device.addItem(
        Item(name: "Koleston 7/1", quantity: 5, unit: "tube", createdAt: .now()))
      try device.consume(tube.id.rawValue)  // by id, id prefix, or exact name
      print(device.items().map { "\($0.name): \($0.quantity)" })

      if case .unavailable(let reason) = device.mirror { print(reason) }  // never thrown
      try device.enableSync(cloud: shared.path)  // from the next open
      let report = try DeviceFolder.open(at: device.home).sync()
      for conflict in device.conflicts() { print(conflict.kind, conflict.sides.count) }

      #expect(device.items().first?.quantity == 4)
      #expect(report.versionsExported == 1)
    }
  }
}
