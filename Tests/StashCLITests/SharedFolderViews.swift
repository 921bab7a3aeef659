import Foundation
import Stash
import StashBase
import StashModel
import StashTestSupport
import Testing

/// Several devices syncing through one shared folder, or each through its own copy of it that
/// the test keeps in step as a sync tool would (late, partly, when the test says).
struct SharedFolderViews {
  /// Devices named `names`, each with sync on through one shared folder; or, with
  /// `ownViews`, each through its own copy of it, which ``spread(_:)`` keeps in step as a sync
  /// tool would (late, when the test says).
  func devices(_ cli: CLI, _ names: [String], ownViews: Bool = false) throws -> [CLI] {
    var made = [CLI]()
    for name in names {
      let cloud = cli.folder.appendingPathComponent(ownViews ? "cloud-\(name)" : "cloud")
      try FileManager.default.createDirectory(at: cloud, withIntermediateDirectories: true)
      if ownViews, let first = made.first {  // the README's order: the zone from the first
        try FileManager.default.copyItem(
          at: view(first).appendingPathComponent("zone.json"),
          to: cloud.appendingPathComponent("zone.json"))
      }
      var device = cli
      device.home = cli.folder.appendingPathComponent(name)
      #expect(try device.run(["init", "--name", name]).status == 0)
      #expect(try device.run(["sync", "enable", "--cloud", cloud.path]).status == 0)
      if ownViews && made.isEmpty { try sync(device) }
      made.append(device)
    }
    return made
  }

  func view(_ device: CLI) -> URL {
    device.folder.appendingPathComponent("cloud-" + device.home.lastPathComponent)
  }

  /// Copies every file of the `from` devices' views that the `to` devices' views lack.
  func spread(from: [CLI], to: [CLI]) throws {
    let files = FileManager.default
    for source in from {
      let root = view(source)
      for case let relative as String in files.enumerator(atPath: root.path)?.allObjects ?? [] {
        var isFolder: ObjCBool = false
        _ = files.fileExists(
          atPath: root.appendingPathComponent(relative).path, isDirectory: &isFolder)
        guard !isFolder.boolValue else { continue }
        for target in to where target.home != source.home {
          let destination = view(target).appendingPathComponent(relative)
          guard !files.fileExists(atPath: destination.path) else { continue }
          try files.createDirectory(
            at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
          try files.copyItem(at: root.appendingPathComponent(relative), to: destination)
        }
      }
    }
  }

  /// Every device holds `quantity` tubes of one item, agreed, through their own views.
  func agreeThroughViews(_ devices: [CLI], on quantity: Int) throws {
    let args = ["add", "Koleston 7/1", "--quantity", "\(quantity)", "--unit", "tube"]
    #expect(try devices[0].run(args).status == 0)
    for _ in 0..<2 {
      for device in devices { try sync(device) }
      try spread(from: devices, to: devices)
    }
    for device in devices { try sync(device) }
  }

  @discardableResult
  func sync(_ device: CLI) throws -> JSONValue {
    let run = try device.run(["sync", "--json"])
    #expect(run.status == 0, "\(run)")
    return try run.json()
  }

  func quantity(_ device: CLI, _ item: String = "Koleston 7/1") throws -> Int64? {
    try device.run(["show", item, "--json"]).json()["quantity"]?.integer
  }

  func openConflicts(_ device: CLI) throws -> [JSONValue] {
    try device.run(["conflicts", "--json"]).json().elements
  }

  /// Every device holds `quantity` tubes of one item, agreed.
  func agree(_ devices: [CLI], on quantity: Int) throws {
    let args = ["add", "Koleston 7/1", "--quantity", "\(quantity)", "--unit", "tube"]
    #expect(try devices[0].run(args).status == 0)
    for device in devices + devices { try sync(device) }
  }
}
