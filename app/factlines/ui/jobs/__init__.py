"""Work off the UI thread with progress and Cancel (the one job mechanism, index builds, backups,
whole-graph questions), and work spread over turns of the event loop."""
