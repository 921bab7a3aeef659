// JSONLines: the durable transaction log that both stores are written with.
//
// A log file is a header line followed by transactions; a transaction is one or more
// operation lines closed by a commit line, and every line carries a CRC-32 of its own bytes.
// This module owns the framing, the fsync discipline, the telling apart of a torn tail (a
// stopped write) from a damaged last transaction (a changed byte, or a power cut that kept a
// save's later page and lost an earlier one), their setting aside, refusal of damage before
// the last transaction, compaction, the line-length limit, reading without writing
// (StoreAccess), the folder's advisory lock (its errors are the log's), and the one container
// of derived files (`DerivedFile`, whose source names a store's log prefix; the checked blocks
// it reads through, the file-system seam and the photos are StashFiles'). It knows nothing of
// records or inventories: operations are JSON objects that the stores give meaning to.
//
// It must never drop a committed transaction, never return from a save before the bytes are
// on stable storage, never write on after a failed write or fsync without checking the file
// again, never change a file it opened for reading, and never throw away bytes silently (a
// tail is kept in a side file).
