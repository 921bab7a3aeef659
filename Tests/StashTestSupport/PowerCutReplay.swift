import JSONLines
public import StashFiles

/// One call a ``ScriptedFileSystem`` recorded; paths are relative to its root, files are
/// numbered (a file keeps its number when it is renamed or linked).
public enum PowerCutEvent: Sendable, CustomStringConvertible {
  case write(file: Int, offset: Int64, bytes: [UInt8])
  case truncate(file: Int, size: Int64)
  case synchronize(file: Int)
  /// A new file at `path` (an open that created it).
  case create(path: String, file: Int)
  case rename(from: String, to: String)
  case link(from: String, to: String)
  case remove(path: String)
  /// A folder created and made durable (the seam's contract).
  case makeDirectory(path: String)
  case synchronizeDirectory(path: String)

  public var description: String {
    switch self {
    case .write(let file, let offset, let bytes):
      "write \(bytes.count) bytes at \(offset) of #\(file)"
    case .truncate(let file, let size): "truncate #\(file) to \(size)"
    case .synchronize(let file): "fsync #\(file)"
    case .create(let path, let file): "create '\(path)' (#\(file))"
    case .rename(let from, let to): "rename '\(from)' to '\(to)'"
    case .link(let from, let to): "link '\(from)' to '\(to)'"
    case .remove(let path): "unlink '\(path)'"
    case .makeDirectory(let path): "mkdir '\(path)'"
    case .synchronizeDirectory(let path): "fsync folder '\(path)'"
    }
  }
}

/// The recorded calls of a workload replayed up to a moment, and the states a power cut at
/// that moment could leave on disk.
///
/// The model, a page cache over a journaling file system:
/// - a file's bytes are durable up to its last fsync; each 4 KiB page written since is on
///   disk as of any of the writes since (or none of them), independently of the other pages;
///   the file's size is its size after any of those writes; a page never written holds zeros;
///   a page write never damages bytes it does not cover (SQLite's "powersafe overwrite");
/// - a create, rename, link or unlink is durable once every folder it touched was
///   synchronized after it; of those that are not, any prefix (in call order) survives, none
///   out of order (the journal keeps their order);
/// - a folder the seam creates is durable at once (its contract: the parent is synchronized).
public struct PowerCutReplay: Sendable {
  /// The size of a page the kernel writes back as a whole.
  public static let pageSize = 4096

  /// The recorded calls.
  public internal(set) var events: [PowerCutEvent] = []
  /// Each file's device and inode when it was recorded.
  public internal(set) var identities: [Int: FileIdentity] = [:]
  /// How many calls have been replayed.
  public private(set) var position = 0

  struct File: Sendable {
    var durable: [UInt8]
    var current: [UInt8]
    /// Writes and truncates since the last fsync, in order.
    var pending: [PowerCutEvent] = []
  }

  struct PendingName: Sendable {
    let event: PowerCutEvent
    /// The folders still to be synchronized before it is durable.
    var folders: Set<String>
  }

  var files: [Int: File]
  var durableNames: [String: Int]
  var currentNames: [String: Int]
  var pendingNames: [PendingName] = []
  var directories: Set<String>

  init(files: [String: [UInt8]], names: [String: Int], directories: Set<String>) {
    var byNumber: [Int: File] = [:]
    for (name, number) in names {
      byNumber[number] = File(durable: files[name]!, current: files[name]!)
    }
    self.files = byNumber
    self.durableNames = names
    self.currentNames = names
    self.directories = directories
  }

  /// Whether anything is not durable yet (without it, a power cut leaves one state).
  public var hasPending: Bool {
    !pendingNames.isEmpty || files.values.contains { !$0.pending.isEmpty }
  }

  /// The call replayed last, if any.
  public var lastEvent: PowerCutEvent? { position > 0 ? events[position - 1] : nil }

  /// Replays the calls up to `position` (the number of calls done), never backwards.
  public mutating func advance(to position: Int) {
    precondition(position >= self.position && position <= events.count)
    while self.position < position {
      apply(events[self.position])
      self.position += 1
    }
  }

  private mutating func apply(_ event: PowerCutEvent) {
    switch event {
    case .write(let number, let offset, let bytes):
      files[number, default: File(durable: [], current: [])].pending.append(event)
      Self.overwrite(&files[number]!.current, with: bytes, at: Int(offset))
    case .truncate(let number, let size):
      files[number, default: File(durable: [], current: [])].pending.append(event)
      Self.resize(&files[number]!.current, to: Int(size))
    case .synchronize(let number):
      guard var file = files[number] else { return }
      file.durable = file.current
      file.pending.removeAll()
      files[number] = file
    case .create(let path, let number):
      files[number] = File(durable: [], current: [])
      currentNames[path] = number
      pendingNames.append(PendingName(event: event, folders: [Self.folder(of: path)]))
    case .rename(let from, let to):
      Self.rename(&currentNames, from: from, to: to)
      pendingNames.append(
        PendingName(event: event, folders: [Self.folder(of: from), Self.folder(of: to)]))
    case .link(let from, let to):
      currentNames[to] = currentNames[from]
      pendingNames.append(PendingName(event: event, folders: [Self.folder(of: to)]))
    case .remove(let path):
      currentNames[path] = nil
      pendingNames.append(PendingName(event: event, folders: [Self.folder(of: path)]))
    case .makeDirectory(let path):
      var folder = path
      while !folder.isEmpty {
        directories.insert(folder)
        folder = Self.folder(of: folder)
      }
    case .synchronizeDirectory(let path):
      for index in pendingNames.indices { pendingNames[index].folders.remove(path) }
      // Durable ones join the durable names in call order.
      while let first = pendingNames.firstIndex(where: { $0.folders.isEmpty }) {
        Self.applyName(pendingNames.remove(at: first).event, to: &durableNames)
      }
    }
  }

  static func applyName(_ event: PowerCutEvent, to names: inout [String: Int]) {
    switch event {
    case .create(let path, let number): names[path] = number
    case .rename(let from, let to): rename(&names, from: from, to: to)
    case .link(let from, let to): if let number = names[from] { names[to] = number }
    case .remove(let path): names[path] = nil
    default: break
    }
  }

  private static func rename(_ names: inout [String: Int], from: String, to: String) {
    guard let number = names.removeValue(forKey: from) else { return }
    names[to] = number
  }

  static func folder(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "" }
    return String(path[..<slash])
  }

  static func overwrite(_ bytes: inout [UInt8], with new: [UInt8], at offset: Int) {
    if bytes.count < offset + new.count {
      bytes.append(contentsOf: repeatElement(0, count: offset + new.count - bytes.count))
    }
    bytes.replaceSubrange(offset..<(offset + new.count), with: new)
  }

  static func resize(_ bytes: inout [UInt8], to size: Int) {
    if size < bytes.count {
      bytes.removeLast(bytes.count - size)
    } else {
      bytes.append(contentsOf: repeatElement(0, count: size - bytes.count))
    }
  }
}
