public import JSONLines
import Synchronization

/// The real file system, recording every call under one folder that a power cut could undo:
/// each write with its bytes, truncate, fsync, create, rename, link, unlink, folder creation
/// and folder fsync, in the order they happened.
///
/// A ``PowerCutReplay`` of the record then builds the states a power cut at any moment could
/// leave (SQLite's crash-test VFS and ALICE, Pillai et al., OSDI 2014, do the same): writes no
/// fsync made durable dropped or kept per 4 KiB page in any order, and names no folder fsync
/// made durable undone.
///
/// ```swift
/// let files = try PowerCutFileSystem(root: root.path)   // root's files now count as durable
/// let start = files.eventCount
/// try workload(files)                                  // through the seam
/// var replay = files.replay()
/// replay.advance(to: start + 3)                        // just after the workload's third call
/// let state = replay.sample(using: &random)            // one state the power cut could leave
/// ```
/// Calls on paths outside the root go through unrecorded. A file under the root that the
/// record never saw created (written behind the seam's back) is listed in ``problems``: the
/// replay could not know its bytes.
public final class PowerCutFileSystem: ForwardingFileSystem {
  /// The folder whose files are recorded.
  public let root: String
  public let base: any FileSystem = POSIXFileSystem()
  private let initial: PowerCutReplay
  private let state: Mutex<Recording>

  private struct Recording {
    var events: [PowerCutEvent] = []
    /// The names as they are now (relative path to file number).
    var names: [String: Int]
    /// Open descriptors of recorded files.
    var descriptors: [Int32: Int] = [:]
    /// Each file's device and inode, as the real file system gave them.
    var identities: [Int: FileIdentity]
    var nextFile: Int
    var problems: [String] = []
  }

  /// Records calls under `root`, whose present files and folders count as durable.
  ///
  /// - Throws: ``FileSystemError`` when a file under `root` cannot be read.
  public init(root: String) throws(FileSystemError) {
    self.root = root
    let snapshot = FolderSnapshot(of: root)
    var files: [String: [UInt8]] = [:]
    var directories: Set<String> = [""]
    for (path, entry) in snapshot.entries {
      let name = String(decoding: path, as: UTF8.self)
      switch entry {
      case .folder: directories.insert(name)
      case .file(_, let bytes): files[name] = bytes
      default: continue
      }
    }
    var identities: [Int: FileIdentity] = [:]
    var names: [String: Int] = [:]
    for (number, name) in files.keys.sorted().enumerated() {
      names[name] = number
      identities[number] = try base.identity(atPath: root + "/" + name, followingLinks: false)
    }
    initial = PowerCutReplay(files: files, names: names, directories: directories)
    state = Mutex(Recording(names: names, identities: identities, nextFile: names.count))
  }

  /// How many calls were recorded so far: the moment to name in ``PowerCutReplay/advance(to:)``.
  public var eventCount: Int { state.withLock { $0.events.count } }

  /// The recorded calls, in order.
  public var events: [PowerCutEvent] { state.withLock { $0.events } }

  /// Files the record cannot account for (changed behind the seam), as sentences.
  public var problems: [String] { state.withLock { $0.problems } }

  /// A replay of everything recorded so far, positioned before the first call.
  public func replay() -> PowerCutReplay {
    let (events, identities) = state.withLock { ($0.events, $0.identities) }
    var replay = initial
    replay.events = events
    replay.identities = identities
    return replay
  }

  /// The path relative to the root, or `nil` outside it.
  private func relative(_ path: String) -> String? {
    guard path.hasPrefix(root + "/") else { return nil }
    return String(path.dropFirst(root.count + 1))
  }

  /// Runs a call and records what it did, as one step (another thread's call cannot come
  /// between the call and its record).
  private func recording<T>(
    _ call: () throws(FileSystemError) -> T,
    _ record: (inout Recording, T) throws(FileSystemError) -> Void
  ) throws(FileSystemError) -> T {
    try state.withLock { (recording) throws(FileSystemError) -> T in
      let result = try call()
      try record(&recording, result)
      return result
    }
  }

  // MARK: - FileSystem

  public func open(
    _ path: String, _ mode: OpenMode, options: OpenOptions
  ) throws(FileSystemError) -> FileDescriptor {
    guard let name = relative(path) else { return try base.open(path, mode, options: options) }
    return try recording { () throws(FileSystemError) in
      try base.open(path, mode, options: options)
    } _: { (recording, descriptor) throws(FileSystemError) in
      var file = recording.names[name]
      if mode == .createNew || (mode == .readWriteCreate && file == nil) {
        let created = recording.nextFile
        recording.nextFile += 1
        recording.names[name] = created
        recording.events.append(.create(path: name, file: created))
        recording.identities[created] = try base.identity(of: descriptor)
        file = created
      }
      guard let file else {
        let identity = try? base.identity(of: descriptor)
        if identity?.kind == .regular {
          recording.problems.append("'\(name)' was opened but never created through the seam")
        }
        return
      }
      recording.descriptors[descriptor.rawValue] = file
    }
  }

  public func close(_ file: FileDescriptor) {
    state.withLock { recording in
      recording.descriptors[file.rawValue] = nil
      base.close(file)
    }
  }

  public func write(
    _ file: FileDescriptor, _ bytes: UnsafeRawBufferPointer, at offset: Int64
  ) throws(FileSystemError) {
    try recording { () throws(FileSystemError) in
      try base.write(file, bytes, at: offset)
    } _: { recording, _ in
      guard let number = recording.descriptors[file.rawValue], !bytes.isEmpty else { return }
      recording.events.append(.write(file: number, offset: offset, bytes: Array(bytes)))
    }
  }

  public func synchronize(_ file: FileDescriptor) throws(FileSystemError) {
    try recording { () throws(FileSystemError) in
      try base.synchronize(file)
    } _: { recording, _ in
      guard let number = recording.descriptors[file.rawValue] else { return }
      recording.events.append(.synchronize(file: number))
    }
  }

  public func truncate(_ file: FileDescriptor, to size: Int64) throws(FileSystemError) {
    try recording { () throws(FileSystemError) in
      try base.truncate(file, to: size)
    } _: { recording, _ in
      guard let number = recording.descriptors[file.rawValue] else { return }
      recording.events.append(.truncate(file: number, size: size))
    }
  }

  public func rename(_ source: String, to destination: String) throws(FileSystemError) {
    guard let from = relative(source), let to = relative(destination) else {
      return try base.rename(source, to: destination)
    }
    try recording { () throws(FileSystemError) in
      try base.rename(source, to: destination)
    } _: { recording, _ in
      recording.names[to] = recording.names.removeValue(forKey: from)
      recording.events.append(.rename(from: from, to: to))
    }
  }

  public func link(_ source: String, to destination: String) throws(FileSystemError) {
    guard let from = relative(source), let to = relative(destination) else {
      return try base.link(source, to: destination)
    }
    try recording { () throws(FileSystemError) in
      try base.link(source, to: destination)
    } _: { recording, _ in
      recording.names[to] = recording.names[from]
      recording.events.append(.link(from: from, to: to))
    }
  }

  public func synchronizeDirectory(_ path: String) throws(FileSystemError) {
    let name = path == root ? "" : relative(path)
    try recording { () throws(FileSystemError) in
      try base.synchronizeDirectory(path)
    } _: { recording, _ in
      if let name { recording.events.append(.synchronizeDirectory(path: name)) }
    }
  }

  /// Creates the folder; the seam's contract makes it durable (the real file system
  /// synchronizes the parent of each folder it creates).
  public func makeDirectory(_ path: String) throws(FileSystemError) {
    try recording { () throws(FileSystemError) in
      try base.makeDirectory(path)
    } _: { recording, _ in
      if let name = relative(path) { recording.events.append(.makeDirectory(path: name)) }
    }
  }

  public func removeFile(_ path: String) throws(FileSystemError) {
    try recording { () throws(FileSystemError) in
      try base.removeFile(path)
    } _: { recording, _ in
      guard let name = relative(path), recording.names.removeValue(forKey: name) != nil else {
        return
      }
      recording.events.append(.remove(path: name))
    }
  }

}
