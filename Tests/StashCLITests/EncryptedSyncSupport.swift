import Foundation
import StashBase
import StashModel
import Testing

/// Two devices sharing an encrypted folder: A turned it on with `--encrypt`, B joined with the
/// sync key A printed, saved in a file.
struct EncryptedPair {
  let a: CLI
  let b: CLI
  let cloud: URL
  /// The sync key A printed, as a person would copy it.
  let keyText: String
  /// A file holding it, as a person would save it for another device.
  let keyFile: URL
  /// The key's id, as A printed it.
  let keyID: String

  init(_ cli: CLI, cloud name: String = "cloud") throws {
    cloud = cli.folder.appendingPathComponent(name)
    try FileManager.default.createDirectory(at: cloud, withIntermediateDirectories: true)
    var a = cli
    a.home = cli.folder.appendingPathComponent("device-a")
    var b = cli
    b.home = cli.folder.appendingPathComponent("device-b")
    let enabled = try a.run(["sync", "enable", "--cloud", cloud.path, "--encrypt"])
    #expect(enabled.status == 0, "\(enabled)")
    keyText = try #require(Self.syncKey(in: enabled.standardOutput), "\(enabled)")
    keyID = try #require(Self.keyID(in: enabled.standardOutput), "\(enabled)")
    keyFile = cli.folder.appendingPathComponent("\(name)-key.txt")
    try Data((keyText + "\n").utf8).write(to: keyFile)
    let joined = try b.run(["sync", "enable", "--cloud", cloud.path, "--key-file", keyFile.path])
    #expect(joined.status == 0, "\(joined)")
    self.a = a
    self.b = b
  }

  /// The sync key in a command's output: 12 groups of 5 characters joined by dashes.
  static func syncKey(in text: String) -> String? {
    text.split(whereSeparator: \.isWhitespace).map(String.init).first { token in
      let groups = token.split(separator: "-", omittingEmptySubsequences: false)
      return groups.count == 12
        && groups.allSatisfy { group in
          group.count == 5 && group.allSatisfy { $0.isASCII && ($0.isNumber || $0.isUppercase) }
        }
    }
  }

  /// The key id in `Key id: …` of a command's output.
  static func keyID(in text: String) -> String? {
    guard let range = text.range(of: "Key id: ") else { return nil }
    return String(text[range.upperBound...].prefix(16))
  }
}

/// Every regular file under `folder`, by path relative to it.
func filesUnder(_ folder: URL) -> [(path: String, bytes: Data)] {
  let base = folder.resolvingSymlinksInPath().path
  var files = [(String, Data)]()
  let enumerator = FileManager.default.enumerator(
    at: folder, includingPropertiesForKeys: [.isRegularFileKey])
  while let url = enumerator?.nextObject() as? URL {
    guard (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true,
      let bytes = try? Data(contentsOf: url)
    else { continue }
    let path = url.resolvingSymlinksInPath().path
    files.append((path.hasPrefix(base) ? String(path.dropFirst(base.count + 1)) : path, bytes))
  }
  return files.sorted { $0.0 < $1.0 }
}

/// Whether `bytes` hold `text` (its UTF-8) anywhere.
func holds(_ bytes: Data, _ text: String) -> Bool {
  bytes.range(of: Data(text.utf8)) != nil
}

/// The segments of `device`'s folder in the shared folder, sorted.
func segments(in cloud: URL, of device: String) -> [String] {
  let folder = cloud.appendingPathComponent("devices/" + device)
  return ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
    .filter { $0.hasSuffix(".jsonl") }.sorted().map { "devices/\(device)/\($0)" }
}

/// `stash sync --json` on `device`, expecting it to run.
func syncJSON(_ device: CLI) throws -> JSONValue {
  let run = try device.run(["sync", "--json"])
  #expect(run.status == 0, "\(run)")
  return try run.json()
}

/// The quantity `show` gives for `item` on `device`, or `nil` when it has no such item.
func quantityOf(_ device: CLI, _ item: String) throws -> Int64? {
  let shown = try device.run(["show", item, "--json"])
  guard shown.status == 0 else { return nil }
  return try shown.json()["quantity"]?.integer
}

/// The names of the items `device` lists.
func itemNames(_ device: CLI) throws -> [String] {
  try device.run(["list", "--json"]).json().elements.compactMap { $0["fields"]?["name"]?.text }
}
