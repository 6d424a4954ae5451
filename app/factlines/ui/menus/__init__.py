"""The menus and the shared actions: File, Edit, Help, Back/Forward, Export/Import, Copy to…, and
the edits every view offers."""
