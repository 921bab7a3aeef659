// StashFiles: files, and nothing about what is in them.
//
// It owns the file-system seam (`FileSystem`, the real `POSIXFileSystem`, the one a test
// scripts), path arithmetic without Foundation (`Paths`), the one spelling of temporary names
// (`TemporaryName`), the whole-file atomic write, the photos (`BlobStore`, blobs named by
// their SHA-256), and the pieces of derived files that know nothing of a log: the checked
// 4 KiB blocks a body is read through (`CheckedBlocks`) and the writer and reader of their
// fields (`ByteWriter`, `RawReader`).
//
// It must never know about logs, stores, mirrors or transports: the log, the folder's lock
// (its errors are the log's) and the derived-file container (`DerivedFile`, whose source
// names a store's log prefix) live in JSONLines.
