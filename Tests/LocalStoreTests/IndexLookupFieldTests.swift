import Foundation
import JSONLines
import LocalStore
import StashModel
import StashTestSupport
import Testing

/// A schema says which fields name its records (``Schema/lookupIndices``): the local index
/// finds a record by those, whatever they are called, and by no other field.
@Suite struct IndexLookupFieldTests {
  /// A tool's own model, named by its title; its `name` field is the cook's, not a lookup.
  static let recipe = try! Schema(
    model: "recipe",
    fields: [
      FieldSpec("title", .string), FieldSpec("name", .optional(.string)),
      FieldSpec("updatedAt", .date),
    ], changeTime: "updatedAt", lookup: ["title"])

  static func key(_ number: Int) -> RecordKey {
    RecordKey(
      model: "recipe", id: RecordID(String(format: "7a1c9e2d-0000-4000-8000-%012lx", number))!)
  }

  @Test func aRecordIsFoundThroughTheIndexByItsSchemasLookupField() throws {
    try withTemporaryFolder { folder in
      let schemas = try SchemaRegistry(
        [InventorySchemas.item, InventorySchemas.location, InventorySchemas.reminder, Self.recipe])
      func open(_ focus: LocalStore.Focus? = nil) throws -> LocalStore {
        try LocalStore.open(
          folder: folder.path, schemas: schemas, lock: FolderLock(folder: folder.path),
          create: .init(deviceID: SyncFocusTests.device, deviceName: "salon-mac", time: epoch),
          focus: focus, index: SyncFocusTests.eager)
      }
      _ = try open()  // created: its own saves do not know the settings' line
      let recipes = [("Pancakes", "Anna"), ("Waffles", "Bruno"), ("Crêpes", nil)]
      try open().update("the recipes") { _, transaction in
        for (number, (title, cook)) in recipes.enumerated() {
          try transaction.insert(
            Record(
              schema: Self.recipe, id: Self.key(number).id,
              fields: [
                "title": .string(title), "name": cook.map { .string($0) } ?? .none,
                "updatedAt": .date(epoch),
              ]))
        }
      }
      for (number, (title, _)) in recipes.enumerated() {
        let focused = try open(LocalStore.Focus([.init(model: "recipe", text: title.uppercased())]))
        #expect(SyncFocusTests.isUsed(focused), "\(focused.openReport.index)")
        #expect(focused.content.rows(for: Self.key(number)).count == 1, "\(title)")
      }
      // The cook's name is no lookup field of a recipe: the index does not find it by that.
      let byCook = try open(LocalStore.Focus([.init(model: "recipe", text: "Anna")]))
      #expect(SyncFocusTests.isUsed(byCook), "\(byCook.openReport.index)")
      #expect(byCook.content.rows(for: Self.key(0)).isEmpty)
    }
  }

  @Test func aLookupFieldIsOneSyncedTextField() {
    let fields = [
      FieldSpec("title", .string), FieldSpec("serves", .integer),
      FieldSpec("draft", .optional(.string), deviceLocal: true),
    ]
    #expect(throws: ModelError.self) {
      try Schema(model: "recipe", fields: fields, lookup: ["serves"])
    }
    #expect(throws: ModelError.self) {
      try Schema(model: "recipe", fields: fields, lookup: ["draft"])
    }
    #expect(throws: ModelError.self) {
      try Schema(model: "recipe", fields: fields, lookup: ["cook"])
    }
    #expect(throws: ModelError.self) {
      try Schema(model: "recipe", fields: fields, lookup: ["title", "title"])
    }
    #expect(
      (try? Schema(model: "recipe", fields: fields, lookup: ["title"]))?.lookupFields == ["title"])
  }
}
