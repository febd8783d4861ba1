package models

// Scope is the part of the data one caller may touch: the rows of one tenant and, for a
// partner principal, of its partner organisation. Build it from a principal (ScopeOf) or, for
// the service's own work in workflows and activities, for a whole tenant (System); the store
// turns it into the conditions of its queries.
type Scope struct {
	tenantID  string
	partnerID string
}

// ScopeOf is the scope of a principal. A nil principal or one without a tenant sees nothing.
func ScopeOf(p *Principal) Scope {
	if p == nil {
		return Scope{}
	}
	return Scope{tenantID: p.TenantID, partnerID: p.PartnerID}
}

// System is a whole tenant's scope for the service's own work (workflows, activities, the
// relay): no partner restriction.
func System(tenantID string) Scope { return Scope{tenantID: tenantID} }

// TenantID is the tenant the scope belongs to; "" sees nothing.
func (s Scope) TenantID() string { return s.tenantID }

// PartnerID is the partner organisation a partner scope is limited to, or "".
func (s Scope) PartnerID() string { return s.partnerID }
