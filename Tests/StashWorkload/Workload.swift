// StashWorkload: a deterministic, seeded workload of two devices sharing a folder, for the
// crash and fault tests (test-only; nothing in the product imports it).
//
// The same seed always makes the same steps, the same identifiers, the same times and the
// same file-system calls, so a test can run it once without faults as a reference, then again
// failing or crashing at any one call, and compare what is on disk with the reference.

public import Foundation
public import JSONLines
import Stash
import StashFiles
import StashModel
import StashTestSupport

/// Two device folders (`a`, `b`) syncing through one shared folder, and the steps a seed makes.
public struct Workload: Sendable {
  /// One of the two devices.
  public enum Device: String, Sendable, CaseIterable {
    case a, b
  }

  /// What a step does.
  public enum Action: Sendable, Equatable, CustomStringConvertible {
    /// Adds an item, with a photo when `photo`.
    case add(String, quantity: Int64, photo: Bool)
    case consume(String, Int64)
    case restock(String, Int64)
    /// Sets the quantity: a recount, which never merges with a concurrent move.
    case recount(String, Int64)
    case delete(String)
    /// Import, reconcile, export.
    case sync
    /// Resolves the oldest open conflict, keeping this device's side.
    case resolve
    /// Opens the device folder again, as a new process would.
    case restart
    /// Changes an item's notes.
    case edit(String, notes: String)
    /// Reverts this device's last change to an item (`stash undo`).
    case undo(String)
    /// Imports a CSV file of `count` new items (``Workload/importFile(_:in:)``).
    case importItems(count: Int)
    /// Compacts both stores (`default.store` and `cloud.store`).
    case compact
    /// Leaves a damaged last line in `default.store` and an unfinished one in `cloud.store`,
    /// synchronized: something for a repair to set aside.
    case damageTails
    /// `stash doctor --repair`.
    case repair
    /// `stash sync new-identity`.
    case newIdentity

    public var description: String {
      switch self {
      case .add(let name, let quantity, let photo):
        "add \(name) \(quantity)" + (photo ? " with a photo" : "")
      case .consume(let name, let count): "consume \(name) \(count)"
      case .restock(let name, let count): "restock \(name) \(count)"
      case .recount(let name, let count): "recount \(name) \(count)"
      case .delete(let name): "delete \(name)"
      case .sync: "sync"
      case .resolve: "resolve"
      case .restart: "restart"
      case .edit(let name, _): "edit \(name)"
      case .undo(let name): "undo \(name)"
      case .importItems(let count): "import \(count) items"
      case .compact: "compact"
      case .damageTails: "damage the tails"
      case .repair: "doctor --repair"
      case .newIdentity: "sync new-identity"
      }
    }
  }

  /// One step.
  public struct Step: Sendable, CustomStringConvertible {
    public let index: Int
    public let device: Device
    public let action: Action

    public var description: String { "step \(index): \(device.rawValue) \(action)" }
  }

  /// The seed the steps were made from.
  public let seed: UInt64
  /// The steps, in order.
  public let steps: [Step]
  /// When the stores compact: low, so that a small workload compacts several times.
  public static let compaction = CompactionPolicy(minimumLines: 8, linesPerLiveChange: 1)

  /// The steps seed `seed` makes: adds with photos, consumes, restocks, deletes, syncs in
  /// both directions, a concurrent edit that becomes a conflict and its resolution, restarts,
  /// and enough saves that both stores compact.
  ///
  /// - Parameters:
  ///   - seed: Chooses the names, quantities, photos and the random rounds.
  ///   - rounds: How many random rounds follow the fixed start (a few edits on one device,
  ///     then its sync); with none, the steps are the fixed start alone.
  public init(seed: UInt64, rounds: Int = 3) {
    self.seed = seed
    var random = SeededRandom(seed: seed)
    var steps: [(Device, Action)] = []
    var live: [String] = []
    var counter = 0
    func add(_ device: Device, photo: Bool) {
      counter += 1
      let name = "item-\(counter)"
      steps.append(
        (device, .add(name, quantity: Int64.random(in: 5...20, using: &random), photo: photo)))
      live.append(name)
    }
    add(.a, photo: true)
    add(.a, photo: false)
    add(.a, photo: false)
    steps.append((.a, .consume(live[0], 1)))
    steps.append((.a, .delete(live.removeLast())))
    steps.append((.a, .sync))
    steps.append((.b, .sync))
    // Both devices change the first item before either syncs, one by a move and the other by
    // a recount (moves alone would merge): a conflict, then its resolution.
    steps.append((.b, .consume(live[0], 2)))
    steps.append((.a, .recount(live[0], 9)))
    steps.append((.a, .sync))
    steps.append((.b, .sync))
    steps.append((.b, .resolve))
    steps.append((.b, .sync))
    steps.append((.a, .sync))
    for round in 0..<rounds {
      let device: Device = round % 2 == 0 ? .a : .b
      for _ in 0..<Int.random(in: 2...4, using: &random) {
        switch Int.random(in: 0..<10, using: &random) {
        case 0..<3: add(device, photo: Bool.random(using: &random))
        case 3..<7 where !live.isEmpty:
          steps.append((device, .consume(live.randomElement(using: &random)!, 1)))
        case 7 where !live.isEmpty:
          steps.append((device, .restock(live.randomElement(using: &random)!, 2)))
        case 8 where live.count > 2:
          let name = live.remove(at: Int.random(in: 0..<live.count, using: &random))
          steps.append((device, .delete(name)))
        default:
          steps.append((device, .restart))
        }
      }
      steps.append((device, .sync))
    }
    if rounds > 0 {
      steps.append((.a, .sync))
      steps.append((.b, .sync))
    }
    self.steps = steps.enumerated().map {
      Step(index: $0.offset, device: $0.element.0, action: $0.element.1)
    }
  }

  /// A workload of exactly these steps (names are the tests' to choose: an item added as
  /// `item-N` is named so in the steps that follow).
  public init(seed: UInt64, script: [(Device, Action)]) {
    self.seed = seed
    self.steps = script.enumerated().map {
      Step(index: $0.offset, device: $0.element.0, action: $0.element.1)
    }
  }

  // MARK: - The folders

  /// The folder of a device under `root`.
  public static func home(_ device: Device, in root: URL) -> String {
    root.appendingPathComponent(device.rawValue).path
  }

  /// The shared folder under `root`.
  public static func cloud(in root: URL) -> String { root.appendingPathComponent("cloud").path }

  /// Where the photo of an item is read from.
  public static func photo(_ name: String, in root: URL) -> String {
    root.appendingPathComponent("photos").appendingPathComponent(name + ".jpg").path
  }

  /// The CSV file an import of `count` items reads (`import-<count>-<n>`, quantities 1 to 9).
  public static func importFile(_ count: Int, in root: URL) -> String {
    root.appendingPathComponent("photos").appendingPathComponent("import-\(count).csv").path
  }

  /// Creates both devices with sync on, and every photo and import file the steps read, with
  /// the real file system: the starting point every run of the steps shares.
  public func prepare(in root: URL) throws {
    let files = FileManager.default
    try files.createDirectory(atPath: Self.cloud(in: root), withIntermediateDirectories: true)
    try files.createDirectory(
      at: root.appendingPathComponent("photos"), withIntermediateDirectories: true)
    var random = SeededRandom(seed: seed ^ 0x5EED)
    for step in steps {
      if case .add(let name, _, true) = step.action {
        try Data(random.bytes(3000)).write(to: URL(fileURLWithPath: Self.photo(name, in: root)))
      }
      if case .importItems(let count) = step.action {
        let lines = ["name,quantity"] + (1...count).map { "import-\(count)-\($0),\($0 % 9 + 1)" }
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(
          to: URL(fileURLWithPath: Self.importFile(count, in: root)))
      }
    }
    let run = Run(workload: self, root: root, fileSystem: POSIXFileSystem())
    for device in Device.allCases {
      let folder = try run.open(device, creating: true)
      try folder.folder.enableSync(cloud: Self.cloud(in: root))
    }
  }
}
