package models

import "context"

// PrincipalKind says what sort of caller a Principal is.
type PrincipalKind string

// The kinds of principal.
const (
	PrincipalOperator   PrincipalKind = "operator"
	PrincipalPartner    PrincipalKind = "partner_user"
	PrincipalMachineKey PrincipalKind = "machine_key"
)

// Principal is who is calling: an operator, a partner user or a machine key, always inside one
// tenant. Partner users and partner-bound keys carry the partner organisation they act for.
type Principal struct {
	Kind      PrincipalKind
	TenantID  string
	UserID    string
	KeyID     string
	PartnerID string
	Roles     []string
	// Scopes limit a machine key to these permissions on top of its creator's roles.
	Scopes []string
}

// IsPartner reports whether the principal acts for one partner organisation only.
func (p *Principal) IsPartner() bool { return p != nil && p.PartnerID != "" }

// ActorID is who acts: the user, or for machine keys the key.
func (p *Principal) ActorID() string {
	if p.Kind == PrincipalMachineKey {
		return p.KeyID
	}
	return p.UserID
}

// ActorRef names the principal in records of who did something: a user's id, or "key:" and
// the id of a machine key.
func (p *Principal) ActorRef() string {
	if p.Kind == PrincipalMachineKey {
		return "key:" + p.KeyID
	}
	return p.UserID
}

type principalKey struct{}

// WithPrincipal returns a context that carries p.
func WithPrincipal(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFrom returns the principal carried by ctx, or nil for an anonymous call.
func PrincipalFrom(ctx context.Context) *Principal {
	p, _ := ctx.Value(principalKey{}).(*Principal)
	return p
}

// RequestMeta is what the audit log records about the request behind a change.
type RequestMeta struct {
	RequestID     string
	ClientAddress string
}

type requestMetaKey struct{}

// WithRequestMeta returns a context that carries m.
func WithRequestMeta(ctx context.Context, m RequestMeta) context.Context {
	return context.WithValue(ctx, requestMetaKey{}, m)
}

// RequestMetaFrom returns the request metadata carried by ctx, or the zero value.
func RequestMetaFrom(ctx context.Context) RequestMeta {
	m, _ := ctx.Value(requestMetaKey{}).(RequestMeta)
	return m
}
