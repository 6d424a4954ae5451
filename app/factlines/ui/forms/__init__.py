"""The forms behind the edits and the file commands: fact forms, their fields, the predicate form,
the export and import forms."""
