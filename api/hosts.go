package api

import "context"

// PortalSite is the portal a request's host serves: a tenant's, or one partner's co-branded
// portal of it.
type PortalSite struct {
	Host      string
	TenantID  string
	PartnerID string
}

type portalKey struct{}

// withPortal returns a context that carries the portal a request's host serves.
func withPortal(ctx context.Context, site PortalSite) context.Context {
	return context.WithValue(ctx, portalKey{}, site)
}

// portalFrom is the portal of the request's host, when it came in on a verified custom domain.
func portalFrom(ctx context.Context) (PortalSite, bool) {
	site, ok := ctx.Value(portalKey{}).(PortalSite)
	return site, ok
}
