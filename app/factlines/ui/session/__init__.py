"""One open graph in the window: the document (store, undo stack, watch), the one state object
(as_of, the selection, the selected entity's facts), the settings kept between runs, and the
undoable commands."""
