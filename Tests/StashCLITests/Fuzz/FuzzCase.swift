import StashTestSupport

/// One generated command line and environment, made from its seed alone: the same seed, the
/// same catalog and the same sandbox give the same case, so `STASH_SEED=<seed>` replays it.
struct FuzzCase: CustomStringConvertible {
  /// Where the case's device folder comes from.
  enum HomeSource: String {
    case option = "--home"
    case inlineOption = "--home="
    case stashHome = "STASH_HOME"
    case dataHome = "XDG_DATA_HOME"
    case home = "HOME"
  }

  let seed: UInt64
  let command: FuzzCatalog.Command
  var arguments: [Bytes] = []
  var environment: [String: Bytes] = [:]
  var source: HomeSource = .option
  /// The home the generator meant (before mutations), as typed.
  var home: Bytes?
  /// Whether no mutation touched the home or the command's path, so the intended home and
  /// command are the ones the tool sees.
  var isIntact = true
  /// What was done to the line, for the report.
  var mutations: [String] = []

  var description: String {
    let environment = self.environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    return "seed \(seed): \(command) [\(mutations.joined(separator: ", "))]\n"
      + "  argv: \(arguments.map(\.description).joined(separator: " "))\n"
      + "  env: \(environment.joined(separator: " "))"
  }

  init(seed: UInt64, catalog: FuzzCatalog, sandbox: FuzzSandbox) {
    self.seed = seed
    var random = SeededRandom(seed: seed &* 0x9E37_79B9_7F4A_7C15 ^ 0x5A17)
    command = random.pick(catalog.commands)
    makeEnvironment(&random, sandbox)
    makeArguments(&random, sandbox)
    mutate(&random)
  }

  // MARK: - Environment

  private mutating func makeEnvironment(_ random: inout SeededRandom, _ sandbox: FuzzSandbox) {
    let root = sandbox.root
    environment["HOME"] = Bytes(root + "/user")
    environment["STASH_NOW"] = random.chance(0.8) ? "1764441600" : random.pick(FuzzValues.clocks)
    if random.chance(0.3) { environment["NO_COLOR"] = nil } else { environment["NO_COLOR"] = "1" }
    if random.chance(0.2) { environment["TERM"] = random.pick(["xterm-256color", "dumb", ""]) }
    if random.chance(0.2) {
      environment["LC_ALL"] = random.pick(["C", "tr_TR.UTF-8", "POSIX", ""])
    }
    // Half the cases use a folder with an inventory, spelled in some way; half any home.
    let homes =
      random.chance(0.5) ? FuzzValues.stockedHomes(in: sandbox) : FuzzValues.homes(in: sandbox)
    let roll = random.int(100)
    switch roll {
    case 0..<30: source = .option
    case 30..<40: source = .inlineOption
    case 40..<75: source = .stashHome
    case 75..<88: source = .dataHome
    default: source = .home
    }
    switch source {
    case .option, .inlineOption:
      home = random.pick(homes)
      if random.chance(0.3) { environment["STASH_HOME"] = random.pick(homes) }
    case .stashHome:
      home = random.pick(homes)
      environment["STASH_HOME"] = home
    case .dataHome:
      let data = random.pick([
        Bytes(root + "/xdg"), Bytes(root + "/xdg/"), Bytes(root + "/user"), "x", "xdg", "",
        Bytes(raw: Array((root + "/xdg").utf8) + [0xFF]),
      ])
      environment["XDG_DATA_HOME"] = data
      // A relative or empty XDG_DATA_HOME is ignored; one that is not UTF-8 is refused.
      home = data.text.map {
        Bytes($0.hasPrefix("/") ? $0 + "/stash" : root + "/user/.local/share/stash")
      }
      if random.chance(0.2) { environment["STASH_HOME"] = "" }
    case .home:
      let user = random.pick([
        Bytes(root + "/user"), Bytes(root + "/user2"), Bytes(root + "/user2/"), "x", ".", "user2",
        Bytes(raw: Array((root + "/user").utf8) + [0xFF]),
      ])
      environment["HOME"] = user
      home = user.text.flatMap { $0.hasPrefix("/") ? Bytes($0 + "/.local/share/stash") : nil }
    }
  }

  // MARK: - Arguments

  private mutating func makeArguments(_ random: inout SeededRandom, _ sandbox: FuzzSandbox) {
    var words = command.path.map { Bytes($0) }
    var options: [[Bytes]] = []
    for argument in command.arguments where argument.isRequired || random.chance(0.5) {
      words.append(random.pick(FuzzValues.values(for: argument.name, in: sandbox)))
    }
    for option in command.options where option.name != "home" {
      guard option.isRequired ? random.chance(0.95) : random.chance(0.3) else { continue }
      guard let placeholder = option.placeholder else {
        options.append([Bytes("--" + option.name)])
        continue
      }
      let value = random.pick(FuzzValues.values(for: placeholder, in: sandbox))
      options.append(
        random.chance(0.2)
          ? [Bytes(raw: Array("--\(option.name)=".utf8) + value.raw)]
          : [Bytes("--" + option.name), value])
    }
    options.shuffle(using: &random)
    for group in options {
      words.insert(
        contentsOf: group, at: command.path.count + random.int(words.count - command.path.count + 1)
      )
    }
    if let home, source == .option || source == .inlineOption {
      let tokens =
        source == .option
        ? [Bytes("--home"), home] : [Bytes(raw: Array("--home=".utf8) + home.raw)]
      // Global options may come before, between or after the command's names.
      let place = random.chance(0.5) ? 0 : random.int(command.path.count + 1)
      words.insert(contentsOf: tokens, at: place)
    }
    arguments = words
  }

  // MARK: - Mutations

  private mutating func mutate(_ random: inout SeededRandom) {
    // About 45% of cases stay as generated, so that most reach the command itself.
    let count = random.pick([0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 3])
    for _ in 0..<count {
      // Mostly after the command's names: a mangled name only reaches the parser.
      let names = command.path.count
      let index =
        arguments.isEmpty
        ? 0
        : arguments.count > names && random.chance(0.8)
          ? names + random.int(arguments.count - names) : random.int(arguments.count)
      switch random.int(9) {
      case 0 where !arguments.isEmpty:
        arguments[index] = random.pick(FuzzValues.odd)
        mutations.append("replaced \(index)")
      case 1 where !arguments.isEmpty:
        arguments.remove(at: index)
        mutations.append("dropped \(index)")
      case 2:
        arguments = Array(arguments.prefix(index))
        mutations.append("cut at \(index)")
      case 3:
        arguments.insert(
          random.pick(FuzzValues.unknownOptions), at: random.int(arguments.count + 1))
        mutations.append("unknown option")
      case 4:
        arguments.insert("--", at: random.int(arguments.count + 1))
        mutations.append("inserted --")
      case 5 where arguments.count > 1:
        let other = random.int(arguments.count)
        arguments.swapAt(index, other)
        mutations.append("swapped \(index) \(other)")
      case 6 where !arguments.isEmpty:
        arguments.insert(arguments[index], at: index)
        mutations.append("repeated \(index)")
      case 7 where !arguments.isEmpty:
        arguments[index] = Self.garble(arguments[index], &random)
        mutations.append("garbled \(index)")
      default:
        arguments.insert(random.pick(FuzzValues.odd), at: random.int(arguments.count + 1))
        mutations.append("inserted odd")
      }
      isIntact = false
    }
  }

  /// A token with one of its bytes changed: case flipped, an invisible or control character
  /// or a stray byte added, a dash put in front.
  private static func garble(_ token: Bytes, _ random: inout SeededRandom) -> Bytes {
    var bytes = token.raw
    let at = bytes.isEmpty ? 0 : random.int(bytes.count + 1)
    switch random.int(5) {
    case 0: bytes.insert(contentsOf: Array("\u{200B}".utf8), at: at)
    case 1: bytes.insert(random.pick([0x1B, 0x07, 0x0D, 0x7F, 0xFF, 0x80]), at: at)
    case 2: bytes.insert(UInt8(ascii: "-"), at: 0)
    case 3: bytes = Array((token.text ?? "").uppercased().utf8)
    default: bytes.insert(contentsOf: Array("\u{202E}".utf8), at: at)
    }
    return Bytes(raw: bytes)
  }
}

extension SeededRandom {
  /// A number in `0..<bound` (0 when `bound` is 0).
  mutating func int(_ bound: Int) -> Int {
    bound <= 0 ? 0 : Int(next() % UInt64(bound))
  }

  /// One of `values`.
  mutating func pick<T>(_ values: [T]) -> T {
    values[int(values.count)]
  }

  /// `true` with probability `p`.
  mutating func chance(_ p: Double) -> Bool {
    Double(next() >> 11) / Double(1 << 53) < p
  }
}
