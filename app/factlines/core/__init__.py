"""The model layer: time rules, the SQLite store, analysis. Pure Python; never imports Qt."""
