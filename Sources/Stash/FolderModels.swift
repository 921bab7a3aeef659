import JSONLines
import LocalStore
import MirrorStore
import StashBase
import StashFiles
import StashModel

/// The models a device folder holds, and their versions: what `<home>/schemas.json` records.
///
/// A folder is one tool's: the `stash` CLI's inventory, `stash-meters`' meters, an app's own
/// models. A tool opening a folder whose record names a model it does not know (another
/// tool's folder, or its own opened with some of its models only) would see some records as
/// damage and hide others; it is refused before anything is read or written (see
/// ``SyncFolder/checkModels(home:registry:storeExists:fileSystem:)``).
///
/// The file is written when a folder is created, and again when a tool opens it with more
/// models or newer versions (an app's new release adding a model): `{"format":
/// "stash.schemas", "version": 1, "models": {"item": 1, ...}}` and a newline, models sorted.
/// A folder without one (made before the record existed, or whose file was lost) has its
/// models read from its store files once; a file that is not such a record is read the same
/// way, and one of a newer format is refused.
struct FolderModels: Hashable, Sendable {
  /// The file's name in the device folder.
  static let fileName = "schemas.json"
  /// The `format` it carries.
  static let format = "stash.schemas"
  /// The newest format version this code reads and writes.
  static let formatVersion = 1
  /// The largest file read: a record of a thousand long model names.
  static let maximumBytes = 256 * 1024

  /// The version of each model, by name.
  var versions: [String: Int]

  /// The models of a registry, at their versions.
  init(_ registry: SchemaRegistry) {
    versions = registry.schemas.mapValues(\.version)
  }

  /// A record of the given models.
  init(versions: [String: Int]) { self.versions = versions }

  /// The models, sorted, each in single quotes (for messages).
  static func quoted(_ models: some Sequence<String>) -> String {
    models.sorted().map { "'\($0)'" }.joined(separator: ", ")
  }

  /// The file's bytes.
  var bytes: [UInt8] {
    let models: JSONObject = JSONObject(
      versions.keys.sorted().map { ($0, JSONValue.integer(Int64(versions[$0]!))) })
    let object: JSONObject = [
      "format": .string(Self.format), "version": .integer(Int64(Self.formatVersion)),
      "models": .object(models),
    ]
    return JSONWriter.bytes(.object(object)) + [10]
  }

  /// Reads the record of the folder at `home`.
  ///
  /// - Returns: The record; `nil` when there is none, or the file is not a record (then the
  ///   models are read from the stores and the file written anew).
  /// - Throws: ``StashError`` (damaged) when the file is of a newer format, or cannot be read.
  static func read(home: String, fileSystem: any FileSystem) throws(StashError) -> FolderModels? {
    let path = home + "/" + fileName
    let bytes: [UInt8]
    do throws(FileSystemError) {
      guard let identity = try fileSystem.identity(atPath: path) else { return nil }
      guard identity.kind == .regular, identity.size <= Int64(maximumBytes) else { return nil }
      let descriptor = try fileSystem.open(path, .readOnly, options: .nonBlocking)
      defer { fileSystem.close(descriptor) }
      bytes = try fileSystem.read(descriptor, count: Int(identity.size), at: 0)
    } catch {
      throw StashError(LogError.io(error))
    }
    guard case .object(let object)? = try? JSONParser.parse(bytes),
      object["format"] == .string(format), case .integer(let version)? = object["version"],
      case .object(let models)? = object["models"]
    else { return nil }
    guard version <= formatVersion else {
      throw StashError(
        .damaged,
        "The folder's record of its models '\(path)' is of format \(version), newer than this "
          + "version reads (\(formatVersion)); nothing was changed")
    }
    var versions = [String: Int]()
    for (model, value) in models {
      guard !model.isEmpty, case .integer(let number) = value, number >= 1, number <= 1 << 32
      else { return nil }
      versions[model] = Int(number)
    }
    return FolderModels(versions: versions)
  }

  /// Writes the record of the folder at `home`; a failure is ignored (the record is only
  /// ever a summary of what the stores hold, written again by the next open).
  func write(home: String, lock: FolderLock, fileSystem: any FileSystem) {
    guard let proof = try? lock.acquire() else { return }
    defer { lock.release(proof) }
    try? fileSystem.writeFileAtomically(home + "/" + Self.fileName, bytes)
  }

  /// The models the store files of the folder at `home` hold (each at version 1, since a
  /// folder without a record was written before models had versions), read from every line
  /// of the local store and of the mirror when there is one.
  ///
  /// What a damaged file holds after its damage is not read: the stores' own checks report
  /// it when they open.
  static func inferred(home: String, fileSystem: any FileSystem) -> FolderModels {
    var found = Set<String>()
    let files = [
      (LocalStore.fileName, LocalContent.format, LocalContent.version),
      (MirrorStore.fileName, MirrorContent.format, MirrorContent.version),
    ]
    for (name, format, version) in files {
      _ = try? Log.open(
        at: home + "/" + name, format: format, supportedVersion: version, recoverTail: false,
        fileSystem: fileSystem
      ) { (transaction) throws(LogError) in
        for operation in transaction.operations { collectModels(operation.object, into: &found) }
      }
    }
    return FolderModels(versions: Dictionary(uniqueKeysWithValues: found.map { ($0, 1) }))
  }

  /// Adds the model names an operation of either store names: every `"model"` member of its
  /// objects, at any depth, except inside a record's `"fields"` (where `model` may be a
  /// field, as a meter's is).
  private static func collectModels(_ object: JSONObject, into found: inout Set<String>) {
    for (key, value) in object {
      switch value {
      case .string(let name) where key == "model" && !name.isEmpty: found.insert(name)
      case .object(let inner) where key != "fields": collectModels(inner, into: &found)
      case .array(let elements):
        for case .object(let inner) in elements { collectModels(inner, into: &found) }
      default: continue
      }
    }
  }
}
