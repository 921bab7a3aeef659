// Stash: the facade other Swift tools embed.
//
// `DeviceFolder` opens a device folder (the local store, the mirror when entitled, the blobs),
// gives typed access to items, locations and reminders, lists and resolves conflicts, and
// runs sync. It registers the inventory schemas. Every real decision about records lives in
// the modules below it; this one wires them together and turns failures into `StashError`s
// that say what to do.
