import Foundation
import Stash
import StashModel
import StashTestSupport
import Testing

// README, "Records as Codable types": the scorecard end to end (issue 24, item 7). The code
// between the markers is the README's, character for character (a test below compares them).
// README-SCORECARD-BEGIN
func scorecard(phone: String, tablet: String, sharedFolder: String) throws -> [Round] {
  let schemas = [Fight.schema, Round.schema]
  let folder = try SyncFolder.open(at: phone, schemas: schemas)
  let fight = Fight(title: "Ali v Frazier", scheduledRounds: 15, updatedAt: .now)
  try folder.write { tx in  // one transaction, one fsync: all of it, or none
    try tx.save(fight)
    for number in Int8(1)...15 {
      try tx.save(Round(fight: fight.id, number: number, red: 10, blue: 9, updatedAt: .now))
    }
  }
  let lastThree = try folder.all(
    Round.self,
    RecordQuery(Round.self).where("fight", equals: fight.id)
      .sorted(by: "number", descending: true).limited(to: 3))
  print(lastThree.map(\.number))  // [15, 14, 13], read through the index

  // Two devices through one shared folder: the phone exports, the tablet imports.
  try folder.enableSync(cloud: sharedFolder)  // from the next open on
  try SyncFolder.open(at: tablet, schemas: schemas).enableSync(cloud: sharedFolder)
  _ = try SyncFolder.open(at: phone, schemas: schemas).sync()
  let other = try SyncFolder.open(at: tablet, schemas: schemas)
  _ = try other.sync()

  // The tablet deletes the fight: its 15 rounds go in the same transaction, and travel so.
  try other.delete(Fight.self, id: fight.id)
  _ = try other.sync()
  let phoneAgain = try SyncFolder.open(at: phone, schemas: schemas)
  _ = try phoneAgain.sync()
  return phoneAgain.all(Round.self)  // empty, on both devices
}
// README-SCORECARD-END

@Suite struct ReadmeScorecardTests {
  @Test func theScorecardExampleRunsWritesQueriesCascadesAndSyncs() throws {
    try withTemporaryFolder { root in
      let cloud = root.appendingPathComponent("cloud")
      try FileManager.default.createDirectory(at: cloud, withIntermediateDirectories: true)
      let phone = root.appendingPathComponent("phone").path
      let tablet = root.appendingPathComponent("tablet").path
      let rounds = try scorecard(phone: phone, tablet: tablet, sharedFolder: cloud.path)
      #expect(rounds.isEmpty)
      let schemas = [Fight.schema, Round.schema]
      for home in [phone, tablet] {
        let folder = try SyncFolder.open(at: home, schemas: schemas)
        #expect(folder.all(Fight.self).isEmpty && folder.all(Round.self).isEmpty, "\(home)")
        #expect(folder.conflicts().isEmpty, "\(home)")
      }
    }
  }

  @Test func theReadmeShowsThisCodeCharacterForCharacter() throws {
    let here = URL(fileURLWithPath: #filePath)
    let source = try String(contentsOf: here, encoding: .utf8)
    let readme = try String(
      contentsOf: here.deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("README.md"), encoding: .utf8)
    let start = try #require(source.range(of: "// README-SCORECARD-BEGIN\n"))
    let stop = try #require(
      source.range(of: "// README-SCORECARD-END", range: start.upperBound..<source.endIndex))
    let code = String(source[start.upperBound..<stop.lowerBound])
    #expect(readme.contains("```swift\n" + code + "```"), "README and this file differ")
  }
}
