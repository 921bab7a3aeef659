import Testing

@testable import Stash

/// What a watch by descriptor (kqueue's, on Apple platforms) opens and closes as the paths
/// it watches come, go and are replaced (``DescriptorWatches``, tested on every platform).
@Suite struct DescriptorWatchesTests {
  typealias Identity = DescriptorWatches<Int>.Identity

  /// A file system of paths naming inodes, and a log of what the watches did.
  final class Files {
    var inodes: [String: UInt64] = [:]
    var refused: Set<String> = []
    var opened: [String] = []
    var closed: [Int] = []
    private var nextHandle = 0
    private(set) var handles: [String: Int] = [:]

    func identify(_ path: String) -> Identity? {
      inodes[path].map { Identity(device: 1, inode: $0) }
    }

    func open(_ path: String) -> (handle: Int, identity: Identity)? {
      guard !refused.contains(path), let identity = identify(path) else { return nil }
      nextHandle += 1
      opened.append(path)
      handles[path] = nextHandle
      return (nextHandle, identity)
    }

    func update(_ watches: inout DescriptorWatches<Int>, to paths: [String]) {
      watches.update(to: paths, identify: identify, open: open, close: { self.closed.append($0) })
      opened.sort()
    }
  }

  @Test func eachPathIsOpenedOnceWhileItNamesTheSameFile() {
    let files = Files()
    files.inodes = ["/home": 1, "/home/default.store": 2, "/cloud": 3]
    var watches = DescriptorWatches<Int>()
    files.update(&watches, to: ["/home", "/home/default.store", "/cloud", "/cloud"])
    #expect(files.opened == ["/cloud", "/home", "/home/default.store"])
    files.opened = []
    files.update(&watches, to: ["/home", "/home/default.store", "/cloud"])
    #expect(files.opened.isEmpty && files.closed.isEmpty)
    #expect(watches.watched.count == 3)
  }

  @Test func aReplacedFileIsWatchedAgainAndTheOldWatchClosed() {
    let files = Files()
    files.inodes = ["/home": 1, "/home/default.store": 2]
    var watches = DescriptorWatches<Int>()
    files.update(&watches, to: ["/home", "/home/default.store"])
    let old = files.handles["/home/default.store"]!
    files.opened = []
    files.inodes["/home/default.store"] = 9  // a compaction renamed a new file over it
    files.update(&watches, to: ["/home", "/home/default.store"])
    #expect(files.closed == [old])
    #expect(files.opened == ["/home/default.store"])
    #expect(watches.watched["/home/default.store"]?.identity.inode == 9)
  }

  @Test func aVanishedPathIsClosedAndOpenedWhenItComesBack() {
    let files = Files()
    files.inodes = ["/home": 1, "/cloud": 3]
    var watches = DescriptorWatches<Int>()
    files.update(&watches, to: ["/home", "/cloud"])
    let cloud = files.handles["/cloud"]!
    files.inodes["/cloud"] = nil  // the share unmounted
    files.opened = []
    files.update(&watches, to: ["/home", "/cloud"])
    #expect(files.closed == [cloud] && files.opened.isEmpty)
    #expect(watches.watched["/cloud"] == nil)
    files.inodes["/cloud"] = 3  // mounted again: the same inode, a new watch
    files.update(&watches, to: ["/home", "/cloud"])
    #expect(files.opened == ["/cloud"])
    #expect(watches.watched["/cloud"] != nil)
  }

  @Test func aPathThatCannotBeOpenedIsTriedAgainAtTheNextUpdate() {
    let files = Files()
    files.inodes = ["/cloud": 3]
    files.refused = ["/cloud"]
    var watches = DescriptorWatches<Int>()
    files.update(&watches, to: ["/cloud"])
    #expect(files.opened.isEmpty && watches.watched.isEmpty)
    files.refused = []
    files.update(&watches, to: ["/cloud"])
    #expect(files.opened == ["/cloud"])
  }

  @Test func aPathNoLongerWantedIsClosedAndCloseAllClosesTheRest() {
    let files = Files()
    files.inodes = ["/cloud/devices/a": 4, "/cloud/devices/b": 5]
    var watches = DescriptorWatches<Int>()
    files.update(&watches, to: ["/cloud/devices/a", "/cloud/devices/b"])
    let a = files.handles["/cloud/devices/a"]!
    let b = files.handles["/cloud/devices/b"]!
    files.update(&watches, to: ["/cloud/devices/b"])
    #expect(files.closed == [a])
    watches.closeAll { files.closed.append($0) }
    #expect(files.closed == [a, b] && watches.watched.isEmpty)
  }
}
