import LocalStore
public import StashModel

extension DeviceFolder {
  /// ``history(of:model:)`` at the cost of a one-record command (`stash history ITEM`), for
  /// a folder opened focused on `text` (``SyncFolder/Options/focus(on:)``, as `stash show`
  /// opens it): the local store holds the rows the lookup finds, the mirror is opened
  /// through its index holding only that record's versions, and the local log is read for
  /// that record's lines only. The folder the history was read from is returned: this one,
  /// reopened with the locations the versions name when some are not loaded, or the folder
  /// read whole when the text names no live record here (a deleted one, an ambiguous or
  /// unknown text: those need every tombstone and version) or this one was not focused (its
  /// index was missing or stale: it was read whole already).
  ///
  /// The events are those ``history(of:model:)`` gives on the folder read whole.
  ///
  /// - Throws: ``StashError`` as ``history(of:model:)`` does.
  public func focusedHistory(
    of text: String, model: String = "item"
  ) throws(StashError) -> (device: DeviceFolder, key: RecordKey, events: [HistoryEvent]) {
    guard let content, !content.isComplete else {
      let (key, events) = try history(of: text, model: model)
      return (self, key, events)
    }
    guard let row = try? find(text, model: model, in: content) else {
      let whole = try reopened(focus: nil)
      let (key, events) = try whole.history(of: text, model: model)
      return (whole, key, events)
    }
    let key = row.record.key
    folder.openMirror(focusedOn: [key])
    let (_, events) = try history(of: text, model: model)
    let missing = referencedKeys(in: events, of: key).filter { content.row(for: $0) == nil }
    guard !missing.isEmpty else { return (self, key, events) }
    // A version names a location this open did not load (the record has moved since).
    var lookups = [LocalStore.Focus.Lookup(model: model, text: text)]
    lookups += missing.sorted().map {
      LocalStore.Focus.Lookup(model: $0.model, text: $0.id.rawValue)
    }
    let named = try reopened(focus: LocalStore.Focus(lookups))
    named.folder.openMirror(focusedOn: [key])
    let (again, renamed) = try named.history(of: text, model: model)
    return (named, again, renamed)
  }

  /// This folder opened again with the same options and another focus (`nil`: read whole).
  private func reopened(focus: LocalStore.Focus?) throws(StashError) -> DeviceFolder {
    var options = folder.options
    options.focus = focus
    return try DeviceFolder.open(at: folder.home, options: options)
  }

  /// The records the fields of `events` refer to (an item's locations, then and now).
  private func referencedKeys(in events: [HistoryEvent], of key: RecordKey) -> Set<RecordKey> {
    guard let schema = try? folder.schemas.schema(for: key.model) else { return [] }
    var found = Set<RecordKey>()
    func add(_ value: FieldValue?, field: String) {
      guard case .reference(let id)? = value,
        let model = schema.fields.first(where: { $0.name == field })?.type.referencedModel
      else { return }
      found.insert(RecordKey(model: model, id: id))
    }
    for event in events {
      for change in event.changes {
        add(change.before, field: change.field)
        add(change.after, field: change.field)
      }
      if let record = event.record {
        for (field, value) in zip(schema.fields, record.values) { add(value, field: field.name) }
      }
    }
    return found
  }
}
