import Foundation
import Testing

/// An import larger than one segment reaches an encrypted folder's other device whole or not
/// yet, as a plain folder's does (issue 24, item 3: what one transaction writes travels as one
/// unit).
@Suite struct EncryptedUnitTests {
  @Test func aSealedExportOfSeveralSegmentsIsAppliedOnlyOnceEveryPartHasArrived() throws {
    try withCLI { cli in
      let pair = try EncryptedPair(cli)
      let (a, b) = (pair.a, pair.b)
      let count = 4_500
      let csv = cli.folder.appendingPathComponent("tubes.csv")
      let rows = (0..<count).map { "Tube \($0),1" }
      try Data((["name,quantity"] + rows).joined(separator: "\n").utf8).write(to: csv)
      let imported = try a.run(["import", csv.path])
      #expect(imported.status == 0, "\(imported)")
      _ = try syncJSON(a)
      let devices = try FileManager.default.contentsOfDirectory(
        atPath: pair.cloud.appendingPathComponent("devices").path)
      let device = try #require(devices.first { segments(in: pair.cloud, of: $0).count >= 2 })
      let written = segments(in: pair.cloud, of: device)
      // Its last part is still on its way.
      let last = pair.cloud.appendingPathComponent(try #require(written.last))
      let aside = cli.folder.appendingPathComponent("in-transit")
      try FileManager.default.moveItem(at: last, to: aside)
      _ = try syncJSON(b)
      #expect(try itemNames(b).isEmpty, "none of the import before all of it is here")
      try FileManager.default.moveItem(at: aside, to: last)
      _ = try syncJSON(b)
      #expect(try itemNames(b).count == count)
    }
  }
}
