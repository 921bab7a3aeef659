import Foundation
import StashTestSupport
import Testing

/// The pieces the hardening and fuzz tests stand on: a bounded child process with raw bytes,
/// and byte-exact snapshots of a folder tree.
@Suite struct HarnessTests {
  @Test func aChildThatRunsTooLongIsKilledAndSaysSo() throws {
    try withTemporaryFolder { folder in
      let outcome = try BoundedProcess.run(
        "/bin/sleep", arguments: [Array("30".utf8)], environment: [], scratch: folder.path,
        timeout: 0.2)
      #expect(outcome.timedOut)
      #expect(outcome.signal == SIGKILL)
    }
  }

  @Test func argumentsAndTheFolderReachTheChildAsGiven() throws {
    try withTemporaryFolder { folder in
      let outcome = try BoundedProcess.run(
        "/bin/sh",
        arguments: [Array("-c".utf8), Array("pwd; printf '%s' \"$0\"".utf8), [0x61, 0xFF]],
        environment: [], in: folder.path, scratch: folder.path, timeout: 30)
      #expect(outcome.status == 0)
      #expect(!outcome.timedOut)
      let real = try #require(realpath(folder.path, nil))
      defer { free(real) }
      #expect(outcome.output == Array((String(cString: real) + "\n").utf8) + [0x61, 0xFF])
    }
  }

  @Test func aSnapshotSeesEveryChangeAndRestoresTheTree() throws {
    try withTemporaryFolder { folder in
      let root = folder.path
      try FileManager.default.createDirectory(
        atPath: root + "/a/b", withIntermediateDirectories: true)
      try Data("one".utf8).write(to: URL(fileURLWithPath: root + "/a/b/file"))
      try FileManager.default.createSymbolicLink(
        atPath: root + "/link", withDestinationPath: "a/nowhere")
      #expect(mkfifo(root + "/fifo", 0o600) == 0)
      let odd = Array((root + "/").utf8) + [0x6E, 0xFF, 0]
      #expect(
        odd.withUnsafeBufferPointer {
          creat(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), 0o600)
        } >= 0)
      let before = FolderSnapshot(of: root)
      #expect(before.entries.count == 6)
      try Data("two".utf8).write(to: URL(fileURLWithPath: root + "/a/b/file"))
      chmod(root + "/a", 0o711)
      try Data().write(to: URL(fileURLWithPath: root + "/new"))
      let after = FolderSnapshot(of: root)
      #expect(after.differences(from: before) == ["a", "a/b/file", "new"])
      #expect(after.restore(at: root) == [])
      #expect(before.restore(at: root) == [])
      #expect(FolderSnapshot(of: root) == before)
    }
  }
}
