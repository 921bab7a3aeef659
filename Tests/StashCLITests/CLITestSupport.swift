import Foundation
import Stash
import StashBase
import StashModel
import StashTestSupport
import Testing

/// The moment every test runs at (`STASH_NOW`).
let epoch = Timestamp(secondsSince1970: 1_764_441_600)!

/// What one run of the `stash` binary did.
struct Run: CustomStringConvertible {
  var status: Int32
  var standardOutput: String
  var standardError: String

  var description: String {
    "exit \(status)\n--- stdout\n\(standardOutput)--- stderr\n\(standardError)"
  }

  /// Standard output parsed with our JSON reader.
  func json() throws -> JSONValue {
    try JSONParser.parse(standardOutput)
  }
}

/// Runs the built `stash` binary in a temporary folder, as a person would: a fresh process per
/// command, the device folder in `STASH_HOME`, the clock fixed with `STASH_NOW`, no colour.
struct CLI {
  /// The test's temporary folder (also `HOME`, so nothing can reach a real default folder).
  let folder: URL
  /// The device folder commands use.
  var home: URL

  init(folder: URL) {
    self.folder = folder
    self.home = folder.appendingPathComponent("home")
  }

  /// The built binary: `swift build` and `swift test` put it beside the test runner.
  static var binary: URL {
    #if os(macOS)
      for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
        return bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("stash")
      }
    #endif
    return Bundle.main.bundleURL.appendingPathComponent("stash")
  }

  /// The environment every run gets.
  var environment: [String: String] {
    [
      "STASH_HOME": home.path, "STASH_NOW": "\(Int(epoch.secondsSince1970))", "NO_COLOR": "1",
      "HOME": folder.path, "PATH": "/usr/bin:/bin",
    ]
  }

  /// Runs `stash` with `arguments` and waits for it.
  @discardableResult
  func run(_ arguments: [String]) throws -> Run {
    try Self.launch(Self.binary, arguments, environment: environment)
  }

  /// Runs a shell script with `$0` set to the binary (for raw bytes and loops of processes).
  @discardableResult
  func shell(_ script: String) throws -> Run {
    try Self.launch(
      URL(fileURLWithPath: "/bin/sh"), ["-c", script, Self.binary.path],
      environment: environment)
  }

  /// Starts a shell script without waiting; `finish` waits and collects its output.
  func start(_ script: String) throws -> Running {
    try Running(
      URL(fileURLWithPath: "/bin/sh"), ["-c", script, Self.binary.path], environment: environment)
  }

  private static func launch(
    _ executable: URL, _ arguments: [String], environment: [String: String]
  ) throws -> Run {
    try Running(executable, arguments, environment: environment).finish()
  }

  /// A process that was started and not yet waited for.
  final class Running {
    private let child: Subprocess

    init(_ executable: URL, _ arguments: [String], environment: [String: String]) throws {
      try #require(
        FileManager.default.isExecutableFile(atPath: CLI.binary.path),
        "No 'stash' binary at \(CLI.binary.path); run 'swift build' first")
      child = try Subprocess(executable.path, arguments, environment: environment)
    }

    func finish() -> Run {
      let (status, output, errors) = child.wait()
      return Run(
        status: status, standardOutput: String(decoding: output, as: UTF8.self),
        standardError: String(decoding: errors, as: UTF8.self))
    }
  }

  // MARK: - The folder, through the library

  /// Opens the device folder with the facade (creating it), at the test's fixed time.
  func device(create: Bool = true) throws -> DeviceFolder {
    try DeviceFolder.open(
      at: home.path,
      options: .init(createIfMissing: create, deviceName: "test-device", clock: { epoch }))
  }

  /// The bytes of both stores (`nil` for a missing file), to prove a refused command wrote
  /// nothing.
  func storeBytes() -> [String: Data?] {
    var bytes = [String: Data?]()
    for name in ["default.store", "cloud.store"] {
      bytes[name] = try? Data(contentsOf: home.appendingPathComponent(name))
    }
    return bytes
  }

  /// Writes a small photo file and returns its path.
  func photo(named name: String = "photo.jpg", size: Int = 2048, seed: UInt64 = 7) throws
    -> String
  {
    var random = SeededRandom(seed: seed)
    let path = folder.appendingPathComponent(name).path
    try Data(random.bytes(size)).write(to: URL(fileURLWithPath: path))
    return path
  }
}

/// Runs `body` with a CLI on a fresh temporary folder, removed afterwards.
func withCLI<T>(_ body: (CLI) throws -> T) throws -> T {
  try withTemporaryFolder { folder in try body(CLI(folder: folder)) }
}

/// The value of a counter as a store writes it: a plain integer, or `base + Σp − Σn`.
func counterValue(_ json: JSONValue) -> Int64? {
  if let plain = json.integer { return plain }
  guard let base = json["base"]?.integer, case .object(let p)? = json["p"],
    case .object(let n)? = json["n"]
  else { return nil }
  let added = p.compactMap { $0.value.integer }.reduce(0, +)
  let removed = n.compactMap { $0.value.integer }.reduce(0, +)
  return base + added - removed
}

extension JSONValue {
  /// The member `key` of an object, or `nil`.
  subscript(key: String) -> JSONValue? {
    guard case .object(let object) = self else { return nil }
    return object[key]
  }

  /// The elements of an array, or empty.
  var elements: [JSONValue] {
    guard case .array(let values) = self else { return [] }
    return values
  }

  /// The text of a string, or `nil`.
  var text: String? {
    guard case .string(let text) = self else { return nil }
    return text
  }

  /// The number of an integer, or `nil`.
  var integer: Int64? {
    guard case .integer(let number) = self else { return nil }
    return number
  }
}
