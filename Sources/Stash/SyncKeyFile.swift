package import CloudFolder
import Foundation
import JSONLines
public import StashCrypto
import StashFiles

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The keys of an encrypted shared folder, as a device keeps them (`sync-keys` in the device
/// folder, mode 0600) and as a person hands them to another device (`--key-file`).
///
/// Text, one sync key (``SyncKeyText``) a line, oldest first, the last being the key this
/// device seals with; blank lines and lines starting with `#` are ignored. A file holding one
/// sync key, as a person saves it, is such a file too, and so is a device's whole key file.
public enum SyncKeyFile {
  /// The key file's name in the device folder.
  public static let fileName = "sync-keys"
  /// The most bytes a key file may have (a thousand keys and their comments).
  public static let maximumBytes = 128 * 1024

  /// Reads the keys in `text`.
  ///
  /// - Parameter text: The file's text.
  /// - Returns: The keys, in order; empty when the text holds none.
  /// - Throws: ``StashError`` (category key) naming the line that is not a sync key and
  ///   why, never what it holds.
  public static func keys(in text: String) throws(StashError) -> [FolderKey] {
    var keys = [FolderKey]()
    for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false)
      .enumerated()
    {
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
      do {
        keys.append(try SyncKeyText.parse(trimmed))
      } catch {
        throw StashError(
          .key,
          "Line \(index + 1) of the key file is not a sync key (\(error)); nothing was changed")
      }
    }
    return keys
  }

  /// The text of a key file holding `keyring`, with a comment naming each key by its id.
  ///
  /// - Parameter keyring: The keys.
  /// - Returns: The text: the keys themselves; write it only where only this person can read.
  package static func text(of keyring: FolderKeyring) -> String {
    var text =
      "# stash sync keys: private to this device (mode 0600); oldest first, the last one "
      + "seals what this device writes\n"
    for key in keyring.keys {
      text += "# key \(key.id.hex)\n" + key.syncKeyText + "\n"
    }
    return text
  }

  /// Reads the key file at `path`: `nil` when there is none.
  ///
  /// - Throws: ``StashError`` when it cannot be read or holds something else than keys.
  static func read(at path: String) throws(StashError) -> FolderKeyring? {
    guard FileManager.default.fileExists(atPath: path) else { return nil }
    guard let data = FileManager.default.contents(atPath: path), data.count <= maximumBytes
    else {
      throw StashError(.key, "The key file '\(path)' cannot be read; nothing was changed")
    }
    let keys = try keys(in: String(decoding: data, as: UTF8.self))
    guard let keyring = FolderKeyring(keys: keys) else {
      throw StashError(.key, "The key file '\(path)' holds no key; nothing was changed")
    }
    return keyring
  }

  /// Writes `keyring` to `path` with mode 0600: a new file beside it, synchronized, then
  /// renamed over the old one.
  ///
  /// - Throws: ``StashError`` when it cannot be written (the old file then stays).
  static func write(_ keyring: FolderKeyring, to path: String) throws(StashError) {
    let temporary = TemporaryName.path(
      for: path, unique: String(UInt32.random(in: 0...UInt32.max)))
    let bytes = Array(text(of: keyring).utf8)
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else {
      throw StashError(
        .refused, "The key file '\(path)' cannot be written (\(reason())); nothing was changed")
    }
    var written = 0
    var failed = fchmod(descriptor, 0o600) != 0
    while !failed && written < bytes.count {
      let count = bytes.withUnsafeBytes { buffer in
        Glue.write(descriptor, buffer.baseAddress! + written, bytes.count - written)
      }
      if count > 0 { written += count } else if errno != EINTR { failed = true }
    }
    if !failed { failed = fsync(descriptor) != 0 }
    close(descriptor)
    if failed || rename(temporary, path) != 0 {
      let why = reason()
      unlink(temporary)
      throw StashError(
        .refused, "The key file '\(path)' cannot be written (\(why)); nothing was changed")
    }
  }

  private static func reason() -> String { String(cString: strerror(errno)) }
}

/// The system calls whose names the key file's functions shadow.
private enum Glue {
  static func write(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Darwin)
      Darwin.write(descriptor, buffer, count)
    #elseif canImport(Glibc)
      Glibc.write(descriptor, buffer, count)
    #else
      Musl.write(descriptor, buffer, count)
    #endif
  }
}
