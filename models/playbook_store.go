package models

import "encoding/json"

// PlaybookChanges are the edits of a playbook's draft; nil fields stay as they are.
type PlaybookChanges struct {
	Name, Description *string
	Graph             *PlaybookGraph
	ConcurrencyLimit  *int
}

// Custom is the partner's custom fields by name; empty when it has none.
func (p *Partner) Custom() map[string]string {
	out := map[string]string{}
	if p.CustomFields != "" {
		_ = json.Unmarshal([]byte(p.CustomFields), &out)
	}
	return out
}
