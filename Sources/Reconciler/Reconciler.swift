// Reconciler: the only module that sees both stores.
//
// It owns the decision table of DESIGN.md (a pure function from one record's local side,
// mirror side and checkpoint to a decision), applying a pass's decisions to both stores as one
// transaction each (mirror first, rolled back if the local write fails), resolving conflicts,
// and the SyncCoordinator: the import gate and the scheduling of passes.
//
// It must never write before the gate has opened (the coordinator decides when a pass runs),
// never overwrite or delete a row the table does not say to, and never let its own saves
// schedule another pass.
