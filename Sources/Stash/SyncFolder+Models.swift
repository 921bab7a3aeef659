import StashFiles
import StashModel

extension SyncFolder {
  /// Checks, before anything of the folder at `home` is read or written, that a tool with
  /// `registry`'s models may open it (see ``FolderModels``).
  ///
  /// The folder's models are its record, or, without one, those its store files hold. The
  /// open is refused when they name a model the tool does not know (another tool's folder,
  /// or this tool's opened with some of its models only: the others' records would read as
  /// damage or be hidden), or a newer version of one it knows. A tool that knows every model
  /// of the folder, and maybe more (a new release adding a model), opens it.
  ///
  /// - Parameters:
  ///   - home: The folder.
  ///   - registry: The opening tool's models.
  ///   - storeExists: Whether the folder has a local store (a new folder has no models).
  ///   - fileSystem: The file-system seam.
  /// - Returns: The record to write (the tool's models), when the folder has none or it
  ///   differs; `nil` when it is current.
  /// - Throws: ``StashError`` (refused, exit 1) naming the folder's models and the tool's,
  ///   with nothing changed; (damaged) for a record of a newer format.
  static func checkModels(
    home: String, registry: SchemaRegistry, storeExists: Bool, fileSystem: any FileSystem
  ) throws(StashError) -> FolderModels? {
    let opened = FolderModels(registry)
    let recorded = try FolderModels.read(home: home, fileSystem: fileSystem)
    let found: FolderModels
    if let recorded {
      found = recorded
    } else if storeExists {
      found = FolderModels.inferred(home: home, fileSystem: fileSystem)
    } else {
      return opened
    }
    let unknown = Set(found.versions.keys).subtracting(opened.versions.keys)
    if !unknown.isEmpty {
      let known = Set(found.versions.keys).intersection(opened.versions.keys)
      let theirs = FolderModels.quoted(found.versions.keys)
      let ours = FolderModels.quoted(opened.versions.keys)
      let problem =
        known.isEmpty
        ? "belongs to another tool: it holds the models \(theirs), and this tool knows \(ours)"
        : "holds the models \(theirs), and this tool knows only \(ours): the records of "
          + "\(FolderModels.quoted(unknown)) would be hidden or read as damage"
      throw StashError(
        .refused,
        "The folder '\(home)' \(problem); nothing was changed: open it with the tool that "
          + "made it")
    }
    let newer = found.versions.filter { model, version in opened.versions[model]! < version }
    if let (model, version) = newer.min(by: { $0.key < $1.key }) {
      throw StashError(
        .refused,
        "The folder '\(home)' holds the model '\(model)' at version \(version), written by a "
          + "newer release of its tool; this one knows version \(opened.versions[model]!): "
          + "nothing was changed")
    }
    return recorded == opened ? nil : opened
  }
}
