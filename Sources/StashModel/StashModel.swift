// StashModel: what every other module of Stash shares.
//
// It owns the generic record (a model name, a recordID and typed fields described by a
// `Schema`), tombstones, the canonical snapshot encoding and its `SnapshotHash`, the three
// inventory models (`Item`, `Location`, `Reminder`) with their validation, and the sync types
// (checkpoints, conflicts, device settings). JSON, SHA-256 and CRC-32 are StashBase's.
//
// It must never do I/O or know about stores, mirrors or transports: it is pure values.
