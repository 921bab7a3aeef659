// StashCrypto: the cryptography an encrypted shared folder is built from.
//
// It owns ChaCha20, Poly1305 and their AEAD (RFC 8439), XChaCha20-Poly1305 (HChaCha20,
// draft-irtf-cfrg-xchacha-03), HMAC-SHA256 (RFC 4231) and HKDF-SHA256 (RFC 5869) on top of
// StashModel's SHA-256, randomness from the operating system, and the folder key a person
// keeps: its sync key text, its key id and the subkeys derived from it.
//
// It must never know about files or folders, never print, log or describe key material (key
// types describe themselves as redacted), never trap on any input, and never return
// plaintext that failed authentication. Fixtures/crypto/ holds the vectors that test it and
// Fixtures/README.md (section 6) the sync key format.
