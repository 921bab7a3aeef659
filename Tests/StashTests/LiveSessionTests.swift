import Foundation
import StashModel
import StashTestSupport
import Synchronization
import Testing

@testable import Stash

/// Two live sessions (``LiveSync/events(exchange:)``) on one machine (issue 27, item 1).
@Suite struct LiveSessionTests {
  /// With file-system events and by polling alone (what a platform without events, or a
  /// share that sends none, gets).
  @Test(arguments: [true, false])
  func twoLiveSessionsConvergeAfterAConsumeOnEachWithNoSyncCall(events: Bool) async throws {
    try await twoSessions(interval: .milliseconds(50), events: events, checks: 400)
  }

  /// A change ends the wait at once where the platform has file-system events (inotify on
  /// Linux; kqueue on Apple platforms, where the stores are watched as files): with five
  /// minutes between polls, each consume arrives long before the next poll.
  @Test(.enabled(if: FileEvents() != nil))
  func fileEventsEndTheWaitBeforeThePollingInterval() async throws {
    try await twoSessions(interval: .seconds(300), events: true, checks: 2_400)
  }

  /// A session's loop waits on a thread of its own, never on one of ``StashIO``'s, which the
  /// `async` operations share (a session would hold it for its whole life).
  @Test func aSessionHoldsNoThreadOfTheIOPool() async throws {
    try await withTemporaryFolderAsync { root in
      let (homes, cloud) = try Self.syncingDevices(["a"], in: root)
      let home = homes[0]
      let options = DeviceFolder.Options(createIfMissing: false, clock: { epoch })
      let path = home.path
      let live = LiveSync(home: path, sharedFolder: cloud, interval: .milliseconds(20))
      let onPool = Tally()
      let session = Task {
        for await _ in live.events(exchange: { () throws(StashError) in
          if StashIO.isCurrent { onPool.add() }
          return try DeviceFolder.sync(at: path, options: options)
        }) {
          return true
        }
        return false
      }
      #expect(await session.value, "no exchange")
      #expect(onPool.count == 0, "the exchange ran on the I/O pool")
    }
  }

  /// Device folders `names` under `root`, each syncing with the shared folder `cloud` there.
  static func syncingDevices(
    _ names: [String], in root: URL
  ) throws -> (homes: [URL], cloud: String) {
    let cloud = root.appendingPathComponent("cloud").path
    try FileManager.default.createDirectory(atPath: cloud, withIntermediateDirectories: true)
    let homes = names.map { root.appendingPathComponent($0) }
    for home in homes { try openDevice(home).folder.enableSync(cloud: cloud) }
    return (homes, cloud)
  }

  /// Two devices with a live session each (polling every `interval`, on file-system events
  /// if `events`): a consume on a, then one on b, each expected on the other device within
  /// `checks` looks 25 ms apart. Counted, not timed: under the full suite the checking task
  /// can wait long for a thread (long synchronous tests hold the cooperative pool), and a
  /// deadline on the clock then failed while the sessions, on their own threads, had synced.
  func twoSessions(interval: Duration, events: Bool, checks: Int) async throws {
    try await withTemporaryFolderAsync { root in
      let (homes, cloud) = try Self.syncingDevices(["a", "b"], in: root)
      let tube = try openDevice(homes[0]).addItem(
        Item(name: "Koleston 7/1", quantity: 5, createdAt: epoch))
      for home in homes + homes { _ = try openDevice(home).folder.sync() }
      let options = DeviceFolder.Options(createIfMissing: false, clock: { epoch })
      let sessions = homes.map { home in
        let path = home.path
        var live = LiveSync(home: path, sharedFolder: cloud, interval: interval)
        live.usesFileEvents = events
        return Task {
          var exchanges = 0
          for await event in live.events(exchange: { () throws(StashError) in
            try DeviceFolder.sync(at: path, options: options)
          }) {
            if case .exchanged = event { exchanges += 1 }
          }
          return exchanges
        }
      }
      func quantity(_ home: URL) throws -> Int64? {
        try openDevice(home).items().first { $0.id == tube.id }?.quantity
      }
      func arrives(_ value: Int64, at home: URL) async throws -> Bool {
        for _ in 0..<checks {
          if try quantity(home) == value { return true }
          try await Task.sleep(for: .milliseconds(25))
        }
        return false
      }
      _ = try openDevice(homes[0]).consume(tube.id.rawValue)
      #expect(try await arrives(4, at: homes[1]), "not there after \(checks) checks")
      _ = try openDevice(homes[1]).consume(tube.id.rawValue)
      #expect(try await arrives(3, at: homes[0]), "not there after \(checks) checks")
      for session in sessions { session.cancel() }
      for session in sessions { #expect(await session.value > 0) }
    }
  }

  @Test func inTheBackgroundNoExchangeRunsAndTheForegroundCatchesUp() async throws {
    try await withTemporaryFolderAsync { root in
      let (homes, cloud) = try Self.syncingDevices(["a"], in: root)
      let home = homes[0]
      let tube = try openDevice(home).addItem(
        Item(name: "Koleston 7/1", quantity: 5, createdAt: epoch))
      let options = DeviceFolder.Options(createIfMissing: false, clock: { epoch })
      let path = home.path
      let live = LiveSync(home: path, sharedFolder: cloud, interval: .milliseconds(20))
      let exchanges = Tally()
      let session = Task {
        for await event in live.events(exchange: { () throws(StashError) in
          try DeviceFolder.sync(at: path, options: options)
        }) {
          if case .exchanged = event { exchanges.add() }
        }
      }
      func reaches(_ count: Int) async throws -> Bool {
        for _ in 0..<400 {
          if exchanges.count >= count { return true }
          try await Task.sleep(for: .milliseconds(25))
        }
        return false
      }
      #expect(try await reaches(1))
      live.phase.enterBackground()
      try await Task.sleep(for: .milliseconds(200))
      let before = exchanges.count
      _ = try openDevice(home).consume(tube.id.rawValue)
      try await Task.sleep(for: .milliseconds(400))
      #expect(exchanges.count == before, "an exchange ran in the background")
      live.phase.enterForeground()
      #expect(try await reaches(before + 1))
      session.cancel()
      await session.value
    }
  }
}

/// A count of events, from any thread.
private final class Tally: Sendable {
  private let value = Mutex(0)

  func add() { value.withLock { $0 += 1 } }

  var count: Int { value.withLock { $0 } }
}
