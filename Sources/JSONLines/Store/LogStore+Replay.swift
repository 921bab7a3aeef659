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

  /// Parsed lines not decoded yet.
  private var parsed: [Operation] = []
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
    parsed.append(operation)
    if parsed.count >= Self.batchSize { decodeParsed(with: decoder) }
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
    let changes = Parallel.map(count: operations.count) { index in
      Result { () throws(ModelError) in
        try decoder.change(from: operations[index].object, line: operations[index].line)
      }
    }
    decoded.append(zip(changes, operations).map { ($0, $1.span) })
  }
}
