import Foundation
import JSONLines
import StashFiles
import StashTestSupport
import Testing

/// Paths a person types are handled without Foundation's path APIs, which trap on some.
@Suite struct PathsTests {
  @Test(arguments: [
    ("a", "/base/a"), ("a/b", "/base/a/b"), ("a/", "/base/a"), ("./a/../b", "/base/b"),
    ("", "/base"), (".", "/base"), ("../../..", "/"), ("/x//y/./z/", "/x/y/z"), ("/", "/"),
    ("/..", "/"), ("x/../../y", "/y"),
  ])
  func relativeAndOddPathsBecomeAbsolute(path: String, expected: String) {
    #expect(Paths.absolute(path, relativeTo: "/base") == expected)
  }

  @Test func oneLetterRelativePathsResolveAgainstTheCurrentFolder() {
    let here = Paths.currentFolder()
    #expect(Paths.absolute("a") == (here == "/" ? "/a" : here + "/a"))
    #expect(Paths.resolved("a/b").hasSuffix("/a/b"))
  }

  @Test func linksAndDotsToOneFolderResolveToOneText() throws {
    try withTemporaryFolder { folder in
      let real = folder.appendingPathComponent("real").path
      let link = folder.appendingPathComponent("link").path
      try FileManager.default.createDirectory(atPath: real, withIntermediateDirectories: true)
      try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
      let viaLink = Paths.resolved(link + "/inside/../inside")
      let direct = Paths.resolved(real + "/inside")
      #expect(viaLink == direct)
      #expect(Paths.isSameOrInside(viaLink, Paths.resolved(real)))
    }
  }

  @Test func insideComparesWholeComponents() {
    #expect(Paths.isSameOrInside("/a/b/c", "/a/b"))
    #expect(Paths.isSameOrInside("/a/b", "/a/b"))
    #expect(!Paths.isSameOrInside("/a/bc", "/a/b"))
    #expect(!Paths.isSameOrInside("/a", "/a/b"))
    #expect(Paths.isSameOrInside("/anything", "/"))
  }

  /// One spelling of temporary names, the shared folder's: every reader of any version skips
  /// it (it starts with `.` and ends in `.tmp`), and the spellings older versions left behind
  /// after a crash are still recognised as temporary.
  @Test func temporaryNamesHaveOneSpellingAndOldSpellingsAreStillRecognised() {
    #expect(TemporaryName.path(for: "/home/default.store") == "/home/.default.store.tmp")
    #expect(TemporaryName.path(for: "sync-keys", unique: "7") == ".sync-keys.7.tmp")
    #expect(
      TemporaryName.path(for: "/c/devices/d/000001.jsonl", unique: "u")
        == "/c/devices/d/.000001.jsonl.u.tmp")
    for name in [
      ".default.store.tmp", ".000001.jsonl.u.tmp", "default.store.tmp", "sync-keys.12.tmp",
      ".tmp-0F3A", "default.store.new-identity",
    ] {
      #expect(TemporaryName.isTemporary(name), "\(name)")
    }
    for name in ["default.store", "000001.jsonl", "default.store.torn-1", "tmp", ".tmpfile"] {
      #expect(!TemporaryName.isTemporary(name), "\(name)")
    }
  }
}
