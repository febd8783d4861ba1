package ingest

// ForgetCopyConflict lets the next ingest group try COPY again at once, as it does
// copyCooldown after a COPY met a duplicate.
func ForgetCopyConflict(e *Engine) { e.copy.conflictAt.Store(0) }
