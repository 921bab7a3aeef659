// JSONLines: the durable transaction log that both stores are written with.
//
// A log file is a header line followed by transactions; a transaction is one or more
// operation lines closed by a commit line, and every line carries a CRC-32 of its own bytes.
// This module owns the framing, the fsync discipline, recovery of a torn tail, refusal of
// damage before the last commit, compaction, and the folder's advisory lock. It knows nothing
// of records or inventories: operations are JSON objects that the stores give meaning to.
//
// It must never drop a committed transaction, never return from a save before the bytes are
// on stable storage, and never throw away bytes silently (a torn tail is kept in a side file).
