import JSONLines
public import StashBase
import StashFiles
import StashModel

/// What one legacy import did: how many records it wrote, from which file.
public struct LegacyImport: Hashable, Sendable, CustomStringConvertible {
  /// The legacy file (left in place).
  public let path: String
  /// How many records were written.
  public let count: Int
  /// What they are, in the plural (`items`, `meters`).
  public let noun: String

  /// A report of an import.
  public init(path: String, count: Int, noun: String) {
    self.path = path
    self.count = count
    self.noun = noun
  }

  /// The sentence a tool shows, for example `Imported 12 items from the legacy file '...'`.
  public var description: String {
    "Imported \(count) \(count == 1 ? String(noun.dropLast()) : noun) from the legacy file "
      + "'\(path)'"
  }
}

extension SyncFolder {
  /// The largest legacy file that is read (a sparse file can claim a terabyte).
  package static let legacyFileLimit: Int64 = 16 << 20

  /// Where a folder type's legacy file is: ``Options/legacyFile`` when set (relative to the
  /// folder unless absolute), else `defaultName` in the folder.
  ///
  /// - Parameter defaultName: The folder type's fixed name (`legacy-items.json` for the
  ///   inventory).
  /// - Returns: The path.
  public func legacyFilePath(defaultName: String) -> String {
    let name = options.legacyFile ?? defaultName
    return name.hasPrefix("/") ? name : home + "/" + name
  }

  /// Whether the one-time step `step` still waits for the legacy file at `path`: the step is
  /// not done and something is there.
  ///
  /// - Returns: `false` when the step is done or nothing is at `path` (one status call).
  package func legacyStepWaits(_ step: String, path: String) -> Bool {
    if settings.stepsDone.contains(step) { return false }
    do { return try fileSystem.identity(atPath: path) != nil } catch {
      return true  // the import says why it cannot be read
    }
  }

  /// Reads a legacy file whole through the folder's file system, or `nil` when there is none.
  ///
  /// Only a regular file of at most ``legacyFileLimit`` bytes is read: it is opened without
  /// blocking, so a FIFO or a device is refused at once instead of hanging, and a file that is
  /// too large is refused before any of it is read.
  ///
  /// - Parameter path: The legacy file.
  /// - Returns: Its bytes, or `nil` when nothing is at `path`.
  /// - Throws: ``StashError`` (refused) saying why it cannot be read; nothing was imported.
  public func readLegacyFile(at path: String) throws(StashError) -> [UInt8]? {
    do {
      guard try fileSystem.identity(atPath: path) != nil else { return nil }
    } catch {
      throw Self.legacyRefusal(path, error.reason)
    }
    do throws(InputFile.Problem) {
      return try InputFile.read(
        path, fileSystem: fileSystem, maximumBytes: Self.legacyFileLimit)
    } catch {
      throw Self.legacyRefusal(path, error.reason)
    }
  }

  /// Parses a legacy file's bytes as one JSON value.
  ///
  /// - Throws: ``StashError`` (refused) naming the file and where the JSON is wrong.
  public static func parseLegacyJSON(_ bytes: [UInt8], path: String) throws(StashError)
    -> JSONValue
  {
    do { return try JSONParser.parse(bytes) } catch {
      throw legacyRefusal(path, "it is not JSON (\(error.reason) at byte \(error.offset))")
    }
  }

  /// The refusal of a legacy file: why, and that nothing was imported (the file stays).
  ///
  /// - Parameters:
  ///   - path: The legacy file.
  ///   - reason: Why, in a few words (`it is not JSON`, `entry 2 has no 'name'`).
  public static func legacyRefusal(_ path: String, _ reason: String) -> StashError {
    StashError(
      .refused,
      "The legacy file '\(path)' cannot be imported: \(reason); nothing was imported, fix or "
        + "remove the file")
  }
}
