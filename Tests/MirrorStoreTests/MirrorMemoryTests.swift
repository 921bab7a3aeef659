import Foundation
import MirrorStore
import StashModel
import StashTestSupport
import Testing

/// What a whole mirror keeps in memory per record (issue 26, item 4), measured by
/// `StashHeapProbe` in a process of its own (the heap in use before and after, with nothing
/// else running), so that other tests' allocations never count.
@Suite struct MirrorMemoryTests {
  /// A record with one version (every record after a first sync or a second device's
  /// import) is held inline: no dictionary of versions and no set of leaves of its own. With
  /// them (bb6585b) a record took 845 bytes here, inline 502, and 423 with a snapshot's
  /// tombstone boxed (the mirror's entry, at the dictionary's load, and where its line is).
  @Test func aRecordWithOneVersionCostsItsEntryAndNoDictionaryOfItsOwn() throws {
    let probe = builtExecutable("StashHeapProbe")
    try #require(
      FileManager.default.isExecutableFile(atPath: probe.path),
      "No 'StashHeapProbe' at \(probe.path); run 'swift build' first")
    let run = try Subprocess(probe.path, ["mirror", "20000"], environment: [:]).wait()
    let output = String(decoding: run.output, as: UTF8.self)
    try #require(run.status == 0, "the probe failed: \(output)")
    guard output != "unsupported\n" else { return }
    let words = output.split(whereSeparator: \.isWhitespace)
    let perRecord = try #require(words.count == 2 ? Int(words[1]) : nil, "\(output)")
    #expect(perRecord < 650, "\(perRecord) bytes a record")
  }

  /// A snapshot is a record's size (and its case): a tombstone, 72 bytes inline, is boxed.
  /// Inline it made every snapshot 73 bytes and every mirror version 184 (136 now), in the
  /// mirror and in everything a pass keeps per record.
  @Test func aSnapshotTakesNoMoreRoomThanARecord() {
    #expect(MemoryLayout<Snapshot>.size <= MemoryLayout<Record>.size + 1)
    #expect(MemoryLayout<MirrorVersion>.size <= 136)
  }
}
