public import JSONLines

extension LocalStore {
  /// The committed prefix of the store file as it is now, to be recognised again later (the
  /// sync seal keeps it): its header, its last commit and up to 16 row lines as probes.
  ///
  /// - Returns: `nil` when the file does not exist yet or its last commit is not known.
  public func describePrefix() -> LogPrefix? {
    file.withLog { log, content in
      log.describePrefix(anchors: Array(content.rowLines.values.prefix(16)))
    } ?? nil
  }
}
