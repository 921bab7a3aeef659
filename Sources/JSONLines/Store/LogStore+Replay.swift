import StashBase
import StashModel

/// One transaction replayed while its lines are read: its operations are decoded into changes
/// a batch at a time (each batch on every core) as the scan hands them out, and applied in
/// order when its commit line is read.
///
/// A parsed line is a generic JSON tree, several times the line's size, and a transaction can
/// hold the whole store (an import, a compaction): gathered whole before decoding, its trees
/// were most of the peak memory of any command that reads a store. Here at most one batch of
/// them is alive; the decoded changes share their storage with what the content keeps.
///
/// Decoding depends on the content's context only (``LogContent/change(from:line:)``), so the
/// content passed as the decoder may be the one being built; it is held only while a batch
/// is decoded, never while changes are applied (which would copy the content).
struct StreamedReplay<Content: LogContent> {
  /// How many parsed lines are decoded together: enough for every core to take a chunk.
  static var batchSize: Int { max(2048, 1024 * Parallel.processorCount) }

  /// Lines not decoded yet, in order: parsed ones, and those already read straight from their
  /// bytes (``LogContent/change(fromBytes:line:)``).
  private var parsed: [Pending] = []
  private enum Pending: Sendable {
    case parsed(Operation)
    case decoded(Content.Change, LineSpan)
  }
  /// One decoded change and where its line is.
  private typealias Decoded = (change: Result<Content.Change, ModelError>, span: LineSpan)
  /// The transaction's changes so far, in line order, a batch per array: each batch is freed
  /// as soon as it is applied, so a transaction as large as the store is never held whole
  /// beside the content it builds.
  private var decoded: [[Decoded]] = []

  /// Nothing read yet.
  init() {}

  /// Takes one operation line of the transaction being read (it may never commit).
  mutating func add(_ operation: Operation, decoder: Content) {
    parsed.append(.parsed(operation))
    if parsed.count >= Self.batchSize { decodeParsed(with: decoder) }
  }

  /// Takes one operation of the transaction being read that was read straight from its
  /// bytes (it may never commit).
  mutating func add(_ change: Content.Change, at span: LineSpan, decoder: Content) {
    parsed.append(.decoded(change, span))
    if parsed.count >= Self.batchSize { decodeParsed(with: decoder) }
  }

  /// Reads the operation at `bytes` straight from them and takes it, when the content can
  /// (``LogContent/change(fromBytes:line:)``); `false` when the line must be parsed.
  mutating func addDirect(
    _ bytes: UnsafeRawBufferPointer, at span: LineSpan, decoder: Content
  ) -> Bool {
    guard let change = decoder.change(fromBytes: bytes, line: span.line) else { return false }
    add(change, at: span, decoder: decoder)
    return true
  }

  /// Applies the transaction read since the last commit to `content`, in order: the first
  /// operation that does not decode stops it, naming its line (as the file is then damaged).
  ///
  /// - Throws: ``LogError/damaged(path:line:reason:)``.
  mutating func commit(into content: inout Content, path: String) throws(LogError) {
    decodeParsed(with: content)
    var batches: [[Decoded]] = []
    swap(&batches, &decoded)
    for index in batches.indices {
      let batch = batches[index]
      batches[index] = []  // the batch's last reference is `batch`: freed once it is applied
      for (change, span) in batch {
        switch change {
        case .success(let change): content.apply(change, at: span)
        case .failure(let error):
          throw .damaged(path: path, line: span.line, reason: error.message)
        }
      }
    }
  }

  private mutating func decodeParsed(with decoder: Content) {
    guard !parsed.isEmpty else { return }
    let operations = parsed
    parsed.removeAll(keepingCapacity: true)
    let hasParsed = operations.contains {
      if case .parsed = $0 { return true }
      return false
    }
    @Sendable func decode(_ index: Int) -> Decoded {
      switch operations[index] {
      case .decoded(let change, let span): return (.success(change), span)
      case .parsed(let operation):
        let change = Result { () throws(ModelError) in
          try decoder.change(from: operation.object, line: operation.line)
        }
        return (change, operation.span)
      }
    }
    decoded.append(
      hasParsed
        ? Parallel.map(count: operations.count, decode) : operations.indices.map(decode))
  }
}
