"""Model selection without held-out data: the MDL search and the grid fits it shares with CV."""
