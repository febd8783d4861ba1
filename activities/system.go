// Package activities holds partnerd's Temporal activities: structs whose fields are their
// dependencies, one activity per method.
package activities

import "context"

// Pinger answers when the database is reachable.
type Pinger interface {
	Ping(ctx context.Context) error
}

// System holds installation-wide activities.
type System struct {
	DB      Pinger
	Version string
}

// ProbeReport is what a worker found about itself.
type ProbeReport struct {
	Version    string
	DatabaseOK bool
}

// Probe reports the worker's version and whether it reaches the database.
func (s *System) Probe(ctx context.Context) (ProbeReport, error) {
	return ProbeReport{Version: s.Version, DatabaseOK: s.DB.Ping(ctx) == nil}, nil
}
