// StashBase: the infrastructure every other module of Stash builds on.
//
// It owns our own JSON reader and writer, SHA-256 and CRC-32, and `Parallel`/`Background`
// (work spread over the cores, work started now and awaited later). None of it knows what a
// record is.
//
// It must never do I/O or know about records, stores, mirrors or transports.
