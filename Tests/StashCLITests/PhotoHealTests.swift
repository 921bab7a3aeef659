import Foundation
import Stash
import StashBase
import StashModel
import StashTestSupport
import Testing

/// A photo the shared folder lacks (the sync tool removed it, renamed it, cut it short or
/// garbled it) is published again by the next sync of any device that holds it, and the
/// devices waiting for it then complete. Until then the holder's `sync status`, `sync verify`
/// (exit 5) and `doctor` say so.
@Suite struct PhotoHealTests {
  let views = SharedFolderViews()

  enum Mangling: String, CaseIterable {
    case removed, renamed, cutShort, garbled, lengthened
  }

  /// What a sync tool may do to `blobs/<sha>`.
  func mangle(_ file: URL, _ how: Mangling) throws {
    let files = FileManager.default
    let bytes = try Data(contentsOf: file)
    switch how {
    case .removed:
      try files.removeItem(at: file)
    case .renamed:
      try files.moveItem(at: file, to: URL(fileURLWithPath: file.path + "..path1"))
    case .cutShort:
      try bytes.prefix(bytes.count / 2).write(to: file)
    case .garbled:
      try Data(repeating: 0, count: bytes.count).write(to: file)
    case .lengthened:
      try (bytes + Data("more".utf8)).write(to: file)
    }
  }

  func digest(ofPhoto path: String) throws -> String {
    SHA256.hash([UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))).hex
  }

  @Test(arguments: Mangling.allCases)
  func aPhotoTheFolderLacksIsPublishedAgainByItsHolder(_ how: Mangling) throws {
    try withCLI { cli in
      let devices = try views.devices(cli, ["mac", "phone"])
      let (mac, phone) = (devices[0], devices[1])
      let photo = try cli.photo(size: 40_000, seed: 11)
      let sha = try digest(ofPhoto: photo)
      #expect(try mac.run(["add", "Koleston 7/1", "--photo", photo]).status == 0)
      try views.sync(mac)
      #expect(try mac.run(["sync", "verify"]).status == 0)
      let shared = cli.folder.appendingPathComponent("cloud/blobs/\(sha)")
      try mangle(shared, how)

      let verify = try mac.run(["sync", "verify"])
      #expect(verify.status == 5, "\(how): \(verify)")
      #expect(verify.standardOutput.contains(sha.prefix(12)), "\(verify)")
      let verifyJSON = try mac.run(["sync", "verify", "--json"]).json()
      let lacking = verifyJSON["photosToPublish"]?.elements ?? []
      #expect(lacking.first?["photo"]?.text == sha, "\(verifyJSON)")
      let status = try mac.run(["sync", "status", "--json"]).json()
      #expect(status["photosToPublish"]?.elements.count == 1, "\(status)")
      let doctor = try mac.run(["doctor", "--json"]).json()
      let findings = doctor["findings"]?.elements ?? []
      #expect(findings.contains { $0["message"]?.text?.contains(sha.prefix(12)) == true })

      // The phone, set up now, waits for the photo (or holds the record back from a damaged
      // copy), and says so in verify.
      let waiting = try views.sync(phone)
      let notes =
        (waiting["waiting"]?.elements ?? []) + (waiting["rejectedSegments"]?.elements ?? [])
      #expect(!notes.isEmpty, "\(waiting)")
      #expect(try phone.run(["sync", "verify"]).status == 5)

      let healed = try views.sync(mac)
      #expect(healed["photosPublished"]?.elements.map(\.text) == [sha], "\(how): \(healed)")
      #expect(try Data(contentsOf: shared) == Data(contentsOf: URL(fileURLWithPath: photo)))
      #expect(try mac.run(["sync", "verify"]).status == 0)
      let completed = try views.sync(phone)
      #expect(completed["waiting"]?.elements.isEmpty == true, "\(completed)")
      let arrived = phone.home.appendingPathComponent("blobs/\(sha)")
      #expect(try Data(contentsOf: arrived) == Data(contentsOf: URL(fileURLWithPath: photo)))
      #expect(try phone.run(["sync", "verify"]).status == 0)
      #expect(try views.sync(mac)["photosPublished"]?.elements.isEmpty == true, "once")
    }
  }

  /// The case: two devices attached the same picture, so both wrote `blobs/<sha>` in
  /// their copies of the folder; rclone bisync renamed both. A third device waits for it
  /// until either holder syncs again.
  @Test func aPhotoBothCopiesOfWhichWereRenamedComesBack() throws {
    try withCLI { cli in
      let devices = try views.devices(cli, ["mac", "phone", "ipad"], ownViews: true)
      let (mac, phone, ipad) = (devices[0], devices[1], devices[2])
      let photo = try cli.photo(size: 30_000, seed: 5)
      let sha = try digest(ofPhoto: photo)
      #expect(try mac.run(["add", "Koleston 7/1", "--photo", photo]).status == 0)
      #expect(try phone.run(["add", "Blondor", "--photo", photo]).status == 0)
      try views.sync(mac)
      try views.sync(phone)
      for (index, device) in [mac, phone].enumerated() {
        let file = views.view(device).appendingPathComponent("blobs/\(sha)")
        try FileManager.default.moveItem(
          at: file, to: URL(fileURLWithPath: file.path + "..path\(index + 1)"))
      }
      try views.spread(from: devices, to: devices)
      let waiting = try views.sync(ipad)
      #expect(waiting["waiting"]?.elements.count == 2, "\(waiting)")
      #expect(try ipad.run(["sync", "verify"]).status == 5)
      #expect(try mac.run(["sync", "verify"]).status == 5)
      #expect(try views.sync(mac)["photosPublished"]?.elements.map(\.text) == [sha])
      try views.spread(from: [mac], to: [ipad])
      let completed = try views.sync(ipad)
      #expect(completed["waiting"]?.elements.isEmpty == true, "\(completed)")
      let names = try ipad.run(["list", "--json"]).json().elements.compactMap {
        $0["fields"]?["name"]?.text
      }
      #expect(Set(names) == ["Koleston 7/1", "Blondor"])
    }
  }
}
