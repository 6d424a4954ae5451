"""Qt models adapting the store for the views and panels: the entity listing, one entity's facts,
the panels' rows."""
