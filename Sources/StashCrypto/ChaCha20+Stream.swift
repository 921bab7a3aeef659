extension ChaCha20 {
  /// XORs `count` bytes at `input` with the keystream and writes them at `output`.
  ///
  /// `input` and `output` may be the same address (in place) but must not otherwise
  /// overlap. The caller has checked that `count` fits the block counter: block
  /// `counter + count / 64` must not pass 2^32 - 1, so the counter never wraps.
  ///
  /// Four blocks at a time run on 128-bit vectors on a little-endian machine (every platform
  /// Stash builds for); the rest, one block at a time, on words.
  static func xor(
    _ input: UnsafeRawPointer, into output: UnsafeMutableRawPointer, count: Int,
    key: SymmetricKey.Words, counter: UInt32, nonce: (UInt32, UInt32, UInt32)
  ) {
    var start = ChaChaState(key: key, counter: counter, nonce: nonce)
    var offset = 0
    if UInt32(1).littleEndian == 1 {
      while count &- offset >= 256 {
        xorFourBlocks(input + offset, into: output + offset, start)
        start.x12 &+= 4
        offset &+= 256
      }
    }
    while offset < count {
      let length = min(64, count &- offset)
      xorBlock(input + offset, into: output + offset, count: length, start)
      start.x12 &+= 1
      offset &+= length
    }
  }

  /// One block of keystream XORed into `count` (at most 64) bytes.
  @inline(__always)
  private static func xorBlock(
    _ input: UnsafeRawPointer, into output: UnsafeMutableRawPointer, count: Int,
    _ start: ChaChaState<UInt32>
  ) {
    var state = start
    state.permute()
    state.add(start)
    state.withBytes { stream in
      if count == 64 {
        for word in stride(from: 0, to: 64, by: 8) {
          let key = stream.loadUnaligned(fromByteOffset: word, as: UInt64.self)
          let text = input.loadUnaligned(fromByteOffset: word, as: UInt64.self)
          output.storeBytes(of: key ^ text, toByteOffset: word, as: UInt64.self)
        }
      } else {
        for index in 0..<count {
          let text = input.load(fromByteOffset: index, as: UInt8.self)
          output.storeBytes(of: text ^ stream[index], toByteOffset: index, as: UInt8.self)
        }
      }
    }
  }

  /// Four whole blocks (256 bytes) of keystream XORed into the input, on vectors, with
  /// `work(round)` run after each double round (see `ChaChaState.permute(interleaving:)`).
  @inline(__always)
  static func xorFourBlocks(
    _ input: UnsafeRawPointer, into output: UnsafeMutableRawPointer,
    _ start: ChaChaState<UInt32>, interleaving work: (Int) -> Void = { _ in }
  ) {
    let initial = ChaChaState<SIMD4<UInt32>>(start)
    var state = initial
    state.permute(interleaving: work)
    state.add(initial)
    store(state.x0, state.x1, state.x2, state.x3, at: 0, input, output)
    store(state.x4, state.x5, state.x6, state.x7, at: 16, input, output)
    store(state.x8, state.x9, state.x10, state.x11, at: 32, input, output)
    store(state.x12, state.x13, state.x14, state.x15, at: 48, input, output)
  }

  /// Transposes four words of four blocks (lane `j` of each is block `j`) and XORs each
  /// block's four words into the 16 bytes at `offset` within that block.
  @inline(__always)
  private static func store(
    _ a: SIMD4<UInt32>, _ b: SIMD4<UInt32>, _ c: SIMD4<UInt32>, _ d: SIMD4<UInt32>,
    at offset: Int, _ input: UnsafeRawPointer, _ output: UnsafeMutableRawPointer
  ) {
    let rows = (
      SIMD4(a[0], b[0], c[0], d[0]), SIMD4(a[1], b[1], c[1], d[1]),
      SIMD4(a[2], b[2], c[2], d[2]), SIMD4(a[3], b[3], c[3], d[3])
    )
    xorRow(rows.0, at: offset, input, output)
    xorRow(rows.1, at: offset &+ 64, input, output)
    xorRow(rows.2, at: offset &+ 128, input, output)
    xorRow(rows.3, at: offset &+ 192, input, output)
  }

  /// XORs 16 bytes of keystream into the input at `offset`.
  @inline(__always)
  private static func xorRow(
    _ row: SIMD4<UInt32>, at offset: Int, _ input: UnsafeRawPointer,
    _ output: UnsafeMutableRawPointer
  ) {
    let text = input.loadUnaligned(fromByteOffset: offset, as: SIMD4<UInt32>.self)
    output.storeBytes(of: text ^ row, toByteOffset: offset, as: SIMD4<UInt32>.self)
  }
}

extension ChaCha20 {
  /// `xor`, feeding the `count` bytes at `text` to `mac` as it goes: the output itself when
  /// sealing (the ciphertext is what is authenticated), the ciphertext when opening.
  ///
  /// The two are stitched: while the vectors compute one group of four blocks, Poly1305
  /// absorbs the previous group's 256 bytes of `text` between the double rounds (two of its
  /// 16-byte blocks after each of the first eight), so that a processor running instructions
  /// out of order works on both at once instead of one after the other. The last group and
  /// a tail of fewer than 256 bytes are authenticated after. `mac` must hold no partial
  /// block; the same conditions as for `xor` apply.
  static func xor(
    _ input: UnsafeRawPointer, into output: UnsafeMutableRawPointer, count: Int,
    key: SymmetricKey.Words, counter: UInt32, nonce: (UInt32, UInt32, UInt32),
    authenticating text: UnsafeRawPointer, with mac: inout Poly1305
  ) {
    // A local copy of the authenticator stays in registers; `mac` is written back once.
    var poly = mac
    defer { mac = poly }
    var start = ChaChaState(key: key, counter: counter, nonce: nonce)
    var offset = 0
    if UInt32(1).littleEndian == 1 {
      while count &- offset >= 256 {
        let stitch = offset > 0
        let previous = text + (stitch ? offset &- 256 : 0)
        xorFourBlocks(input + offset, into: output + offset, start) { round in
          if stitch && round < 8 { poly.absorb(previous + round &* 32, blocks: 2) }
        }
        start.x12 &+= 4
        offset &+= 256
      }
      if offset > 0 { poly.absorb(text + (offset &- 256), blocks: 16) }
    }
    if offset < count {
      let tail = count &- offset
      xor(
        input + offset, into: output + offset, count: tail, key: key, counter: start.x12,
        nonce: nonce)
      poly.update(UnsafeRawBufferPointer(start: text + offset, count: tail))
    }
  }

  /// XORs the `count` bytes at `source` into those at `target`, 16 at a time.
  static func xor(_ source: UnsafeRawPointer, into target: UnsafeMutableRawPointer, count: Int) {
    var offset = 0
    while count &- offset >= 16 {
      let text = source.loadUnaligned(fromByteOffset: offset, as: SIMD16<UInt8>.self)
      let other = target.loadUnaligned(fromByteOffset: offset, as: SIMD16<UInt8>.self)
      target.storeBytes(of: text ^ other, toByteOffset: offset, as: SIMD16<UInt8>.self)
      offset &+= 16
    }
    while offset < count {
      let byte = source.load(fromByteOffset: offset, as: UInt8.self)
      target.storeBytes(
        of: byte ^ target.load(fromByteOffset: offset, as: UInt8.self), toByteOffset: offset,
        as: UInt8.self)
      offset &+= 1
    }
  }
}
