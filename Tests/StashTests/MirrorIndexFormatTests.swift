import Foundation
import JSONLines
import MirrorStore
import StashModel
import StashTestSupport
import Testing

/// `Fixtures/formats/mirror-index-2`: a mirror of 59 versions (`MirrorHistory` seed 21, 40
/// steps) and its `cloud.store.index` of format 2, written by the format-2 code (1e8787d),
/// before the summary section `sync status` reads. A derived file of an older format is
/// ignored, and the next whole read writes the current one.
@Suite struct MirrorIndexFormatTests {
  @Test func aFormat2IndexIsIgnoredAndTheNextWholeReadWritesTheCurrentFormat() throws {
    try withTemporaryFolder { folder in
      let copy = folder.appendingPathComponent("whole")
      try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
      for name in ["cloud.store", "cloud.store.index"] {
        try FileManager.default.copyItem(
          at: Fixtures.url("formats/mirror-index-2/\(name)"),
          to: folder.appendingPathComponent(name))
      }
      try FileManager.default.copyItem(
        at: Fixtures.url("formats/mirror-index-2/cloud.store"),
        to: copy.appendingPathComponent("cloud.store"))
      let indexURL = folder.appendingPathComponent("cloud.store.index")
      // Pointed at this copy of its store, so that only its format can set it aside.
      try IndexFormatTests.repoint(
        index: indexURL, at: folder.appendingPathComponent("cloud.store"),
        tag: "stash.mirror.index")
      #expect(try Data(contentsOf: indexURL)[19] == 2)
      let storeID = MirrorIndexTests.storeID
      let whole = try MirrorHistory.open(copy, storeID: storeID).content
      let focus = Set(MirrorHistory(seed: 21).keys.prefix(5))
      let focused = try MirrorHistory.open(
        folder, storeID: storeID, focus: focus, policy: MirrorHistory.eager)
      guard case .ignored(let reason) = focused.indexUse else {
        Issue.record("the format-2 index was used (\(focused.indexUse))")
        return
      }
      #expect(reason.contains("an older format (version 2)"), "\(reason)")
      expectSameWhole(focused.content, whole, "format 2")
      // The whole read writes the index in the current format, and the next open uses it.
      focused.maintainIndex()
      #expect(try Data(contentsOf: indexURL)[19] == UInt8(MirrorStore.indexKind.version))
      let again = try MirrorHistory.open(
        folder, storeID: storeID, focus: focus, policy: MirrorHistory.eager)
      guard case .used = again.indexUse else {
        Issue.record("the rewritten index was not used (\(again.indexUse))")
        return
      }
      expectSame(again.content, whole, keys: focus, "rewritten")
    }
  }
}
