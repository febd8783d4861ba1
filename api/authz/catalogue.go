// Package authz holds the permission catalogue and decides whether a principal holds a
// permission in its tenant.
package authz

import "slices"

// Permission is a `resource:action` pair that guards an operation and a button in the UI.
type Permission string

// Entry describes one permission of the catalogue.
type Entry struct {
	Permission  Permission `json:"permission"`
	Description string     `json:"description"`
}

// The permissions of the catalogue. Every module adds its own here.
const (
	TenantRead Permission = "tenant:read"
)

// catalogue lists every permission with what it allows, in display order.
var catalogue = []Entry{
	{TenantRead, "See the tenant's profile and settings."},
}

// Catalogue returns a copy of every permission with its description.
func Catalogue() []Entry { return slices.Clone(catalogue) }

// Known reports whether p is in the catalogue.
func Known(p Permission) bool {
	return slices.ContainsFunc(catalogue, func(e Entry) bool { return e.Permission == p })
}
