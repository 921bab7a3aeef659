import Foundation
import Stash
import Testing

/// Where the default device folder is, from the environment alone (the fuzz tests never leave
/// `HOME` empty, since that would reach the real user's folder; this checks it in-process).
@Suite struct DefaultHomeTests {
  @Test(arguments: [
    (["STASH_HOME": "/s", "XDG_DATA_HOME": "/x", "HOME": "/h"], "/s"),
    (["STASH_HOME": "a", "HOME": "/h"], "a"),
    (["STASH_HOME": "", "XDG_DATA_HOME": "/x", "HOME": "/h"], "/x/stash"),
    (["XDG_DATA_HOME": "/x/", "HOME": "/h"], "/x/stash"),
    (["XDG_DATA_HOME": "x", "HOME": "/h"], "/h/.local/share/stash"),
    (["XDG_DATA_HOME": "", "HOME": "/h//"], "/h/.local/share/stash"),
    (["HOME": "/"], "/.local/share/stash"),
  ])
  func followsSTASHHOMEThenXDGDataHomeThenHOME(environment: [String: String], home: String)
    throws
  {
    #expect(try DeviceFolder.defaultHome(environment: environment) == home)
  }

  @Test(arguments: ["x", ".", "~/x"])
  func refusesARelativeHOMENamingIt(home: String) {
    #expect {
      try DeviceFolder.defaultHome(environment: ["HOME": home])
    } throws: { error in
      (error as? StashError).map {
        $0.category == .refused && $0.message.hasPrefix("HOME '\(home)' ")
      }
        ?? false
    }
  }

  @Test func anEmptyHOMEFallsBackToTheUserDatabase() throws {
    let home = try DeviceFolder.defaultHome(environment: ["HOME": ""])
    #expect(home.hasPrefix("/"))
    #expect(home.hasSuffix("/.local/share/stash"))
    #expect(try DeviceFolder.defaultHome(environment: [:]) == home)
  }

  @Test func aHomeCanBeCheckedWithoutTouchingIt() throws {
    try DeviceFolder.checkHome("a/b/c")  // below the current folder, creatable
    #expect(throws: StashError.self) { try DeviceFolder.checkHome("/dev/null") }
    #expect(throws: StashError.self) { try DeviceFolder.checkHome("/dev/null/inner") }
  }
}
