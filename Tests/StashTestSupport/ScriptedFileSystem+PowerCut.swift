import JSONLines
import StashFiles
import Synchronization

extension ScriptedFileSystem {
  /// How many calls were recorded so far: the moment to name in ``PowerCutReplay/advance(to:)``
  /// (0 without a record, see ``init(recordingPowerCutsUnder:)``).
  public var eventCount: Int { recorder?.state.withLock { $0.events.count } ?? 0 }

  /// The recorded calls, in order.
  public var events: [PowerCutEvent] { recorder?.state.withLock { $0.events } ?? [] }

  /// Files the record cannot account for (changed behind the seam), as sentences.
  public var problems: [String] { recorder?.state.withLock { $0.problems } ?? [] }

  /// A replay of everything recorded so far, positioned before the first call.
  ///
  /// - Precondition: The file system records (``init(recordingPowerCutsUnder:)``).
  public func replay() -> PowerCutReplay {
    guard let recorder else { preconditionFailure("this file system records no power cuts") }
    let (events, identities) = recorder.state.withLock { ($0.events, $0.identities) }
    var replay = recorder.initial
    replay.events = events
    replay.identities = identities
    return replay
  }
}

/// The record of every call under one folder that a power cut could undo, kept by a
/// ``ScriptedFileSystem``: each call runs and is recorded as one step (another thread's call
/// cannot come between the call and its record).
final class PowerCutRecorder: Sendable {
  /// The folder whose files are recorded.
  let root: String
  let base: POSIXFileSystem
  let initial: PowerCutReplay
  let state: Mutex<Recording>

  struct Recording {
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
  init(root: String, base: POSIXFileSystem) throws(FileSystemError) {
    self.root = root
    self.base = base
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

  /// The path relative to the root, or `nil` outside it.
  func relative(_ path: String) -> String? {
    guard path.hasPrefix(root + "/") else { return nil }
    return String(path.dropFirst(root.count + 1))
  }

  /// Runs a call and records what it did, as one step.
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

  func open(
    _ path: String, _ mode: OpenMode, _ call: () throws(FileSystemError) -> FileDescriptor
  ) throws(FileSystemError) -> FileDescriptor {
    guard let name = relative(path) else { return try call() }
    return try recording(call) { (recording, descriptor) throws(FileSystemError) in
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

  func close(_ file: FileDescriptor, _ call: () -> Void) {
    state.withLock { recording in
      recording.descriptors[file.rawValue] = nil
      call()
    }
  }

  func write(
    _ file: FileDescriptor, _ bytes: UnsafeRawBufferPointer, at offset: Int64,
    _ call: () throws(FileSystemError) -> Void
  ) throws(FileSystemError) {
    try recording(call) { recording, _ in
      guard let number = recording.descriptors[file.rawValue], !bytes.isEmpty else { return }
      recording.events.append(.write(file: number, offset: offset, bytes: Array(bytes)))
    }
  }

  func synchronize(
    _ file: FileDescriptor, _ call: () throws(FileSystemError) -> Void
  ) throws(FileSystemError) {
    try recording(call) { recording, _ in
      guard let number = recording.descriptors[file.rawValue] else { return }
      recording.events.append(.synchronize(file: number))
    }
  }

  func truncate(
    _ file: FileDescriptor, to size: Int64, _ call: () throws(FileSystemError) -> Void
  ) throws(FileSystemError) {
    try recording(call) { recording, _ in
      guard let number = recording.descriptors[file.rawValue] else { return }
      recording.events.append(.truncate(file: number, size: size))
    }
  }

  func rename(
    _ source: String, to destination: String, _ call: () throws(FileSystemError) -> Void
  ) throws(FileSystemError) {
    guard let from = relative(source), let to = relative(destination) else { return try call() }
    try recording(call) { recording, _ in
      recording.names[to] = recording.names.removeValue(forKey: from)
      recording.events.append(.rename(from: from, to: to))
    }
  }

  func link(
    _ source: String, to destination: String, _ call: () throws(FileSystemError) -> Void
  ) throws(FileSystemError) {
    guard let from = relative(source), let to = relative(destination) else { return try call() }
    try recording(call) { recording, _ in
      recording.names[to] = recording.names[from]
      recording.events.append(.link(from: from, to: to))
    }
  }

  func synchronizeDirectory(
    _ path: String, _ call: () throws(FileSystemError) -> Void
  ) throws(FileSystemError) {
    let name = path == root ? "" : relative(path)
    try recording(call) { recording, _ in
      if let name { recording.events.append(.synchronizeDirectory(path: name)) }
    }
  }

  /// Creates the folder; the seam's contract makes it durable (the real file system
  /// synchronizes the parent of each folder it creates).
  func makeDirectory(
    _ path: String, _ call: () throws(FileSystemError) -> Void
  ) throws(FileSystemError) {
    try recording(call) { recording, _ in
      if let name = relative(path) { recording.events.append(.makeDirectory(path: name)) }
    }
  }

  func removeFile(
    _ path: String, _ call: () throws(FileSystemError) -> Void
  ) throws(FileSystemError) {
    try recording(call) { recording, _ in
      guard let name = relative(path), recording.names.removeValue(forKey: name) != nil else {
        return
      }
      recording.events.append(.remove(path: name))
    }
  }
}
