/// The operation lines a scan handed out since the last commit, gathered into the transaction
/// the next commit closes (for readers that want each transaction whole).
struct GatheredTransaction {
  private var operations: [Operation] = []

  /// Keeps one operation line of the transaction being read.
  mutating func add(_ operation: Operation) { operations.append(operation) }

  /// The transaction `sequence`, made of the lines kept since the last call.
  mutating func take(_ sequence: Int64) -> Transaction {
    defer { operations.removeAll(keepingCapacity: true) }
    return Transaction(sequence: sequence, operations: operations)
  }
}
