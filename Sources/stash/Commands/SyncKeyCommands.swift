import ArgumentParsing
import Foundation
import Stash
import StashBase
import StashCrypto
import StashModel

/// Reads the keys a person gives with `--key-file FILE` (or `-`, standard input): never from
/// the command line, where they would stay in the shell's history and show in `ps`.
enum KeyInput {
  /// The keys in the file `path`, or on standard input for `-`.
  ///
  /// - Throws: `StashError` (category key) when it cannot be read or holds no sync key; the
  ///   message names the file, never what it holds.
  static func keys(from path: String) throws -> [FolderKey] {
    let data: Data
    if path == "-" {
      data = FileHandle.standardInput.readDataToEndOfFile()
    } else {
      guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
        attributes[.type] as? FileAttributeType == .typeRegular,
        let read = FileManager.default.contents(atPath: path)
      else {
        throw StashError(
          .key,
          "The key file '\(path)' cannot be read (not a readable regular file); nothing "
            + "was changed")
      }
      data = read
    }
    guard data.count <= SyncKeyFile.maximumBytes else {
      throw StashError(.key, "The key file '\(path)' is too large to hold sync keys")
    }
    let keys = try SyncKeyFile.keys(in: String(decoding: data, as: UTF8.self))
    guard !keys.isEmpty else {
      throw StashError(.key, "The key file '\(path)' holds no sync key; nothing was changed")
    }
    return keys
  }

  /// What `sync enable --encrypt` and `sync rotate-key` print: the sync key, once.
  static func newKeyLines(_ report: KeyChangeReport) -> [String] {
    [
      "Sync key (shown only this once; keep it somewhere safe, every device of this folder "
        + "needs it):",
      "  " + report.current.syncKeyText,
      "Key id: \(report.current.id.hex) (this device keeps the key in '\(report.keyFile)', "
        + "readable by you only)",
      "On each other device, save the sync key in a file and run 'stash sync enable --cloud "
        + "DIR --key-file FILE' (or '--key-file -' to read it from standard input)",
    ]
  }

  /// The JSON of a key change: ids and paths, never a key.
  static func json(_ report: KeyChangeReport, folder: String) -> JSONObject {
    [
      "sync": .string("on"), "cloudFolder": .string(folder), "encrypted": .bool(true),
      "keyID": .string(report.current.id.hex),
      "keyIDs": .array(report.keyIDs.map { .string($0.hex) }),
      "keyFile": .string(report.keyFile),
      "versionsToExport": .integer(Int64(report.versionsToExport)),
    ]
  }
}

/// `stash sync add-key --key-file FILE`: enter a key a rotation made on another device.
enum SyncAddKeyCommand: StashHandler {
  static let path = ["sync", "add-key"]

  static func run(_ arguments: ParsedArguments, in session: Session) throws -> Int32 {
    let keys = try KeyInput.keys(from: arguments[CommandTable.keyFile])
    let reading = try session.openForReading()
    guard let folder = reading.folder.settings.cloudFolder else {
      throw StashError(
        .refused, "No shared folder is set; turn sync on with one", hint: .enableSync)
    }
    try reading.folder.checkFolderKeys(keys, at: folder)
    let device = try session.openForWriting(reusing: reading)
    let report = try device.folder.addFolderKeys(keys, cloud: nil)
    if session.wantsJSON {
      session.output.json(KeyInput.json(report, folder: folder))
    } else {
      session.output.lines([
        "This device now holds \(Format.count(report.keyIDs.count, "key")) for '\(folder)'; "
          + "it seals with key \(report.current.id.hex)",
        "Run 'stash sync' to read what waited for the key",
      ])
    }
    return ExitStatus.done
  }
}

/// `stash sync rotate-key`: a new folder key; what was written before stays readable.
enum SyncRotateKeyCommand: StashHandler {
  static let path = ["sync", "rotate-key"]

  static func run(_ arguments: ParsedArguments, in session: Session) throws -> Int32 {
    // Refused before anything is created: no shared folder, or no key here.
    let reading = try session.openForReading()
    try reading.folder.checkRotation()
    let device = try session.openForWriting(reusing: reading)
    let report = try device.folder.rotateFolderKey()
    let folder = device.folder.settings.cloudFolder ?? ""
    if session.wantsJSON {
      session.output.json(KeyInput.json(report, folder: folder))
    } else {
      session.output.lines(
        ["New key made: what this device writes from now on is sealed with it"]
          + KeyInput.newKeyLines(report).map {
            $0.replacingOccurrences(
              of: "run 'stash sync enable --cloud DIR --key-file FILE'",
              with: "run 'stash sync add-key --key-file FILE'")
          })
    }
    return ExitStatus.done
  }
}
