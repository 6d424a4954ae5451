"""The central views: the entity list, the facts table with its History section (the memory behind
a fact), the time control. The chart and the neighbourhood graph are packages of their own
(ui/chart, ui/graph)."""
