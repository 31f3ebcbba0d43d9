"""What several papers' reproductions share: table checks, paper values and the
reproduction table, one HTML table writer, figure saving, the job log, statistics."""
