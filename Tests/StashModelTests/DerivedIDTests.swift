import StashModel
import Testing

/// Derived record ids: every device (and another language) computes the same id for the same
/// model and natural key, as `Fixtures/README.md` section 2.5 describes.
@Suite struct DerivedIDTests {
  @Test func theGoldenVectorOfFixturesReadmeHolds() {
    let id = RecordID.derived(model: "meter", naturalKey: "aa:bb:cc:dd:ee:ff")
    #expect(id.rawValue == "6638eafa-f68a-8276-a1c9-5165e9c4e543")
    #expect(id.isDerived)
  }

  @Test func theModelAndTheKeyBothCountAndCannotBeShiftedIntoEachOther() {
    let a = RecordID.derived(model: "meter", naturalKey: "x")
    #expect(a == RecordID.derived(model: "meter", naturalKey: "x"))
    #expect(a != RecordID.derived(model: "meters", naturalKey: ""))
    #expect(a != RecordID.derived(model: "note", naturalKey: "x"))
    #expect(a != RecordID.derived(model: "meter", naturalKey: "X"))
  }

  @Test func randomIdsAreVersion4AndNeverReadAsDerived() {
    for _ in 0..<100 { #expect(!RecordID.make().isDerived) }
  }
}
