import Foundation
import Stash
import StashModel
import StashTestSupport

/// One lane's world: device folders in every state a home can be in, files to read, and the
/// child's current folder, all under one root whose every byte is compared before and after a
/// case. Built once per lane through the library (fast), then restored after each case that
/// changed it.
///
/// ```
/// root/cwd/             the child's current folder: photo.jpg, items.csv, items.jsonl,
///                       bad.csv, fifo, folder/ (relative homes land here)
/// root/stocked/         a device folder: shop; Soap, Shampoo, shampoo, Tube (photo); a reminder
/// root/synced/          a device folder with sync enabled through root/cloud/
/// root/file             a file            root/loop1 <-> root/loop2   a link loop
/// root/link -> stocked  root/dangling -> nowhere    root/fifo-home (a FIFO)
/// root/odd-store/       its default.store is a folder
/// root/user/            a HOME without a device folder
/// root/user2/           a HOME whose .local/share/stash links to stocked
/// root/xdg/stash        links to stocked (an XDG_DATA_HOME)
/// ```
struct FuzzSandbox {
  /// The lane's root (absolute).
  let root: String
  /// Where the child's output files go (outside the root, so they are never compared).
  let scratch: String
  /// The tree as built: what every case starts from.
  private(set) var pristine: FolderSnapshot
  /// Ids in the stocked folder, for arguments that name real records.
  let itemIDs: [String]
  let locationIDs: [String]
  let reminderIDs: [String]

  /// The moment the fixtures were made at.
  static let epoch = Timestamp(secondsSince1970: 1_764_441_600)!

  init(root: String, scratch: String) throws {
    self.root = root
    self.scratch = scratch
    let files = FileManager.default
    for folder in ["cwd/folder", "user", "user2/.local/share", "xdg", "cloud", "odd-store"] {
      try files.createDirectory(atPath: root + "/" + folder, withIntermediateDirectories: true)
    }
    try files.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    var random = SeededRandom(seed: 0x5EED)
    let photo = root + "/cwd/photo.jpg"
    try Data(random.bytes(2048)).write(to: URL(fileURLWithPath: photo))

    var ids = SeededRandom(seed: 0x1D5)
    let counter = LockedBox(ids)
    let options = DeviceFolder.Options(
      createIfMissing: true, deviceName: "fuzz", clock: { Self.epoch },
      newIdentifier: { counter.withLock { RecordID.random(using: &$0) } })
    let device = try DeviceFolder.open(at: root + "/stocked", options: options)
    let shop = try device.addLocation(Location(name: "shop", createdAt: Self.epoch))
    let items = [
      try device.addItem(
        Item(
          name: "Soap", quantity: 3, unit: "bar", locationID: shop.id, lowStockThreshold: 1,
          createdAt: Self.epoch)),
      try device.addItem(Item(name: "Shampoo", quantity: 1, createdAt: Self.epoch)),
      try device.addItem(Item(name: "shampoo", quantity: 2, notes: "a\nb", createdAt: Self.epoch)),
      try device.addItem(
        Item(
          name: "Tube", quantity: 5, photo: try device.storePhoto(at: photo),
          createdAt: Self.epoch)),
    ]
    let reminder = try device.addReminder(
      Reminder(
        locationID: shop.id, itemID: items[0].id, message: "Buy soap", createdAt: Self.epoch))
    try Data((device.exportItems(as: .csv).joined(separator: "\n") + "\n").utf8)
      .write(to: URL(fileURLWithPath: root + "/cwd/items.csv"))
    try Data((device.exportItems(as: .jsonl).joined(separator: "\n") + "\n").utf8)
      .write(to: URL(fileURLWithPath: root + "/cwd/items.jsonl"))
    itemIDs = items.map(\.id.rawValue)
    locationIDs = [shop.id.rawValue]
    reminderIDs = [reminder.id.rawValue]
    _ = ids.next()

    let synced = try DeviceFolder.open(at: root + "/synced", options: options)
    try synced.addItem(Item(name: "Soap", quantity: 2, createdAt: Self.epoch))
    try synced.folder.enableSync(cloud: root + "/cloud")

    try Data("name,quantity\n\u{1}\u{FF}\n".utf8).write(
      to: URL(fileURLWithPath: root + "/cwd/bad.csv"))
    try Data("not a folder".utf8).write(to: URL(fileURLWithPath: root + "/file"))
    try files.createDirectory(
      atPath: root + "/odd-store/default.store", withIntermediateDirectories: true)
    try files.createSymbolicLink(atPath: root + "/loop1", withDestinationPath: "loop2")
    try files.createSymbolicLink(atPath: root + "/loop2", withDestinationPath: "loop1")
    try files.createSymbolicLink(atPath: root + "/link", withDestinationPath: "stocked")
    try files.createSymbolicLink(atPath: root + "/dangling", withDestinationPath: "nowhere")
    try files.createSymbolicLink(
      atPath: root + "/user2/.local/share/stash", withDestinationPath: "../../../stocked")
    try files.createSymbolicLink(atPath: root + "/xdg/stash", withDestinationPath: "../stocked")
    guard mkfifo(root + "/fifo-home", 0o600) == 0, mkfifo(root + "/cwd/fifo", 0o600) == 0 else {
      throw CocoaError(.fileWriteUnknown)
    }
    pristine = FolderSnapshot(of: root)
  }

  /// The current folder every case runs in.
  var workingFolder: String { root + "/cwd" }

  /// Puts the tree back as it was built, when a case changed it.
  ///
  /// - Returns: What could not be restored (empty when all went well).
  func restore() -> [String] {
    pristine.restore(at: root)
  }
}
