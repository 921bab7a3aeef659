import Foundation
import JSONLines
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
}
