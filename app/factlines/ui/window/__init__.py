"""The main window, which assembles the views, panels and menus; the read-only banner; the light or
dark theme; F6 from pane to pane; one window per graph."""
