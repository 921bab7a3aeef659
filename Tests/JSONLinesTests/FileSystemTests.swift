import Foundation
import JSONLines
import StashFiles
import StashTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The primitives of the file-system seam that the transport relies on to treat a shared
/// folder as untrusted: publishing without replacing, refusing links, not blocking on a FIFO.
@Suite struct FileSystemTests {
  let files = POSIXFileSystem()

  @Test func linkPublishesANewNameAndNeverReplacesOne() throws {
    try withTemporaryFolder { folder in
      let first = folder.appendingPathComponent("first").path
      let second = folder.appendingPathComponent("second").path
      let published = folder.appendingPathComponent("published").path
      try Data("one".utf8).write(to: URL(fileURLWithPath: first))
      try Data("two".utf8).write(to: URL(fileURLWithPath: second))
      try files.link(first, to: published)
      let refusal = #expect(throws: FileSystemError.self) { try files.link(second, to: published) }
      #expect(refusal?.code == EEXIST)
      #expect(try String(contentsOfFile: published, encoding: .utf8) == "one")
    }
  }

  @Test func identityTellsKindsApartAndCanDescribeALinkItself() throws {
    try withTemporaryFolder { folder in
      let file = folder.appendingPathComponent("file").path
      let link = folder.appendingPathComponent("link").path
      try Data("x".utf8).write(to: URL(fileURLWithPath: file))
      try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: file)
      #expect(try files.identity(atPath: file)?.kind == .regular)
      #expect(try files.identity(atPath: folder.path)?.kind == .directory)
      #expect(try files.identity(atPath: link)?.kind == .regular)
      #expect(try files.identity(atPath: link, followingLinks: false)?.kind == .symbolicLink)
      let fifo = folder.appendingPathComponent("fifo").path
      #expect(mkfifo(fifo, 0o600) == 0)
      #expect(try files.identity(atPath: fifo)?.kind == .other)
    }
  }

  @Test func noFollowRefusesALinkAsTheLastComponent() throws {
    try withTemporaryFolder { folder in
      let file = folder.appendingPathComponent("file").path
      let link = folder.appendingPathComponent("link").path
      try Data("x".utf8).write(to: URL(fileURLWithPath: file))
      try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: file)
      #expect(throws: FileSystemError.self) {
        _ = try files.open(link, .readOnly, options: .noFollow)
      }
      let descriptor = try files.open(file, .readOnly, options: .noFollow)
      files.close(descriptor)
    }
  }

  @Test func nonBlockingOpensAFIFOWithoutWaitingForAWriter() throws {
    try withTemporaryFolder { folder in
      let fifo = folder.appendingPathComponent("fifo").path
      #expect(mkfifo(fifo, 0o600) == 0)
      // An ordinary open would wait here forever for a writer.
      let descriptor = try files.open(fifo, .readOnly, options: [.noFollow, .nonBlocking])
      defer { files.close(descriptor) }
      #expect(try files.identity(of: descriptor).kind == .other)
    }
  }
}
