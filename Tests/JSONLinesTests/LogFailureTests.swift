import Foundation
import JSONLines
import StashFiles
import StashModel
import StashTestSupport
import Testing

/// A failed write or fsync is final: the log never writes on as if the bytes before were
/// durable, and never closes a descriptor twice.
@Suite struct LogFailureTests {
  private func freshLog(_ folder: URL, _ files: ScriptedFileSystem) throws -> (Log, String) {
    let path = folder.appendingPathComponent("a.store").path
    let log = try Log.create(at: path, header: testHeader, fileSystem: files)
    try log.append([operation(1)])
    try log.append([operation(2)])
    return (log, path)
  }

  @Test func afterAFailedFsyncTheNextAppendOpensTheFileAgainAndRereadsIt() throws {
    try withTemporaryFolder { folder in
      let files = ScriptedFileSystem()
      let (log, path) = try freshLog(folder, files)
      let size = try fileBytes(path).count
      files.inject(.synchronize)
      #expect(throws: LogError.self) { try log.append([operation(3)]) }
      let failed = try #require(files.calls.last { $0.operation == .fsync && $0.failed })
      files.clearLog()
      try log.append([operation(4)])
      let calls = files.calls
      // Not one more write through the descriptor whose fsync failed: the file is opened
      // again, read from its first byte, and written through the new descriptor.
      let open = try #require(calls.firstIndex { $0.operation == .open && $0.path == path })
      let write = try #require(calls.firstIndex { $0.operation == .write })
      #expect(open < write)
      #expect(calls[write].descriptor != failed.descriptor, "\(calls)")
      #expect(calls[open..<write].contains { $0.operation == .read && $0.path == path })
      #expect(!calls.contains { $0.descriptor == failed.descriptor && $0.operation != .close })
      #expect(try readLog(path).transactions == [[1], [2], [4]])
      #expect(try fileBytes(path).count > size)
    }
  }

  @Test func aFileChangedUnderAFailedLogIsNotWrittenOn() throws {
    try withTemporaryFolder { folder in
      let files = ScriptedFileSystem()
      let (log, path) = try freshLog(folder, files)
      files.inject(.synchronize)
      #expect(throws: LogError.self) { try log.append([operation(3)]) }
      // Something changes a committed byte meanwhile: the recheck finds it.
      var bytes = try fileBytes(path)
      bytes[lineEnds(bytes)[1] + 30] ^= 0x01
      try writeFile(path, bytes)
      #expect(throws: LogError.self) { try log.append([operation(4)]) }
      #expect(try fileBytes(path) == bytes)
    }
  }

  @Test(arguments: ["rename", "fsync folder"])
  func aFailedCompactionClosesItsTemporaryFileOnce(failing step: String) throws {
    try withTemporaryFolder { folder in
      let files = ScriptedFileSystem()
      let (log, _) = try freshLog(folder, files)
      let start = files.callCount
      try log.compact(to: [operation(2)])  // a dry run, to find the step's number
      let call = try #require(files.calls.last { $0.operation.rawValue == step })
      let (again, _) = try freshLog(folder.appendingPathComponent("b"), files)
      files.failCall(call.number - start)
      #expect(throws: LogError.self) { try again.compact(to: [operation(2)]) }
      #expect(files.allFaultsFired)
      #expect(files.doubleCloses == 0)
    }
  }

  @Test func aCompactionWhoseFolderFsyncFailedNeverWritesToTheReplacedFile() throws {
    try withTemporaryFolder { folder in
      let files = ScriptedFileSystem()
      let (log, _) = try freshLog(folder, files)
      let start = files.callCount
      try log.compact(to: [operation(1), operation(2)])
      let folderSync = try #require(files.calls.last { $0.operation == .fsyncFolder })
      let (again, otherPath) = try freshLog(folder.appendingPathComponent("b"), files)
      files.failCall(folderSync.number - start)
      #expect(throws: LogError.self) { try again.compact(to: [operation(1), operation(2)]) }
      // The new file took the old one's place; the log's descriptor still names the old one.
      do {
        try again.append([operation(3)])
        #expect(
          try readLog(otherPath).transactions == [[1, 2], [3]], "an append reaches the file")
      } catch {
        #expect(try readLog(otherPath).transactions == [[1, 2]])
      }
    }
  }

  @Test func everyReplacingWriteSynchronizesItsFolderAfterTheRename() throws {
    try withTemporaryFolder { folder in
      let files = ScriptedFileSystem()
      let (log, path) = try freshLog(folder, files)
      files.clearLog()
      try log.compact(to: [operation(2)])
      let blobs = BlobStore(deviceFolder: folder.path, fileSystem: files)
      try blobs.store(Array("photo bytes".utf8))
      let calls = files.calls
      let renames = calls.indices.filter { calls[$0].operation == .rename }
      #expect(renames.count == 2)
      for index in renames {
        let folderOfTarget = calls[index].path.components(separatedBy: " -> ")[1]
          .split(separator: "/").dropLast().joined(separator: "/")
        let synced = calls[(index + 1)...].first { $0.operation == .fsyncFolder }
        #expect(synced?.path == "/" + folderOfTarget, "\(calls[index])")
      }
      #expect(files.count("fsync folder") >= 2)
      #expect(try readLog(path).transactions == [[2]])
    }
  }
}
