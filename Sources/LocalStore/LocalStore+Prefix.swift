public import JSONLines

extension LocalStore {
  /// The committed prefix of the store file as it is now, to be recognised again later (the
  /// sync seal keeps it): its header, its last commit and up to 16 row lines as probes,
  /// spread evenly through the file in file order (the same store always gives the same
  /// probes, whatever order its rows were read or saved in).
  ///
  /// - Returns: `nil` when the file does not exist yet or its last commit is not known.
  public func describePrefix() -> LogPrefix? {
    file.withLog { log, content in
      let spans = content.rowLines.values.sorted { $0.offset < $1.offset }
      let step = max(1, spans.count / 16)
      let anchors = stride(from: 0, to: spans.count, by: step).prefix(16).map { spans[$0] }
      return log.describePrefix(anchors: anchors)
    } ?? nil
  }
}
