"""The Qt side: models over the store, undo commands, views and the main window."""
