package api

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/partnerd/partnerd/models"
)

// RateLimiter counts requests against quotas (ADR 22). On Postgres every API process on the
// same database shares one count; on SQLite the count is the process's own.
type RateLimiter interface {
	// TakeRate counts a request against every limit when each has a unit left, and counts
	// nothing otherwise; it answers the state of the limits (at least the refusing ones).
	TakeRate(ctx context.Context, limits []models.RateLimit) ([]models.RateDecision, error)
	// PeekRate answers the state of the limits without counting.
	PeekRate(ctx context.Context, limits []models.RateLimit) ([]models.RateDecision, error)
	// ForgetRate gives a limit its whole quota back.
	ForgetRate(ctx context.Context, l models.RateLimit) error
}

// RateLimits are the quotas of the API; a zero Quota limits nothing.
type RateLimits struct {
	// MachineKey and Tenant limit authenticated requests: those of one machine key, and all of
	// one tenant's (its users' and its keys').
	MachineKey, Tenant models.Quota
	// LoginAccountClient, LoginClient and LoginAccount limit failed sign-ins: of one account
	// from one client address, from one client address, and of one account from everywhere.
	LoginAccountClient, LoginClient, LoginAccount models.Quota
	// Signup and Application limit sign-ups and public partner applications per client address.
	Signup, Application models.Quota
	// SurveyAnswer limits reading and answering survey links per client address.
	SurveyAnswer models.Quota
}

// DefaultRateLimits are the quotas documented in docs/production.md and ADR 22.
func DefaultRateLimits() RateLimits {
	return RateLimits{
		MachineKey:         models.Quota{Limit: 6000, Window: time.Minute},
		Tenant:             models.Quota{Limit: 30000, Window: time.Minute},
		LoginAccountClient: models.Quota{Limit: 5, Window: 15 * time.Minute},
		LoginClient:        models.Quota{Limit: 20, Window: 15 * time.Minute},
		LoginAccount:       models.Quota{Limit: 100, Window: 15 * time.Minute},
		Signup:             models.Quota{Limit: 5, Window: time.Hour},
		Application:        models.Quota{Limit: 10, Window: time.Hour},
		SurveyAnswer:       models.Quota{Limit: 60, Window: time.Hour},
	}
}

// The policy names of the quotas, as the RateLimit-Policy header shows them.
const (
	policyMachineKey         = "machine-key"
	policyTenant             = "tenant"
	policyLoginAccountClient = "login-account-client"
	policyLoginClient        = "login-client"
	policyLoginAccount       = "login-account"
	policySignup             = "signup"
	policyApplication        = "application"
	policySurveyAnswer       = "survey-answer"
)

// requestLimits are the quotas an authenticated request of p counts against.
func (s *Server) requestLimits(p *models.Principal) []models.RateLimit {
	limits := make([]models.RateLimit, 0, 2)
	if p.Kind == models.PrincipalMachineKey && p.KeyID != "" {
		limits = append(limits, models.RateLimit{Policy: policyMachineKey, Key: p.KeyID, Quota: s.limits.MachineKey})
	}
	return append(limits, models.RateLimit{Policy: policyTenant, Key: p.TenantID, Quota: s.limits.Tenant})
}

// limitRequests counts every authenticated request against its quotas, answers 429 past one,
// and tells the caller where it stands in the RateLimit-Policy and RateLimit headers. When the
// limiter fails the request goes through: the database it needs is then likely to refuse it
// anyway, and a limiter must not turn a slow database into an outage of its own.
func (s *Server) limitRequests(hctx huma.Context, next func(huma.Context)) {
	ctx := hctx.Context()
	p := models.PrincipalFrom(ctx)
	if p == nil || s.deps.RateLimiter == nil {
		next(hctx)
		return
	}
	ds, err := s.deps.RateLimiter.TakeRate(ctx, s.requestLimits(p))
	if err != nil {
		s.limiterFailed(ctx, err)
		next(hctx)
		return
	}
	if refused(ds) {
		p := tooManyRequests(ctx, ds, "rate limit reached; try again after Retry-After seconds")
		for name := range p.headers {
			hctx.SetHeader(name, p.headers.Get(name)) // a middleware's error skips huma's header step
		}
		s.deny(hctx, p)
		return
	}
	for name, value := range rateHeaders(ds) {
		hctx.SetHeader(name, value)
	}
	next(hctx)
}

// limiterFailed logs a failure of the limiter, at most once a minute.
func (s *Server) limiterFailed(ctx context.Context, err error) {
	now := time.Now().Unix()
	if last := s.limiterWarned.Load(); now-last >= 60 && s.limiterWarned.CompareAndSwap(last, now) {
		s.log.WarnContext(ctx, "rate limiter failed; requests pass unlimited", "error", err)
	}
}

// checkLimits answers 429 when one of limits has no unit left, counting nothing; without a
// limiter, or when it fails, it lets the request through.
func (s *Server) checkLimits(ctx context.Context, limits []models.RateLimit, detail string) error {
	if s.deps.RateLimiter == nil {
		return nil
	}
	ds, err := s.deps.RateLimiter.PeekRate(ctx, limits)
	if err != nil {
		s.limiterFailed(ctx, err)
		return nil
	}
	if refused(ds) {
		return tooManyRequests(ctx, ds, detail)
	}
	return nil
}

// takeLimits counts one attempt against limits and answers 429 when one had no unit left.
func (s *Server) takeLimits(ctx context.Context, limits []models.RateLimit, detail string) error {
	if s.deps.RateLimiter == nil {
		return nil
	}
	ds, err := s.deps.RateLimiter.TakeRate(ctx, limits)
	if err != nil {
		s.limiterFailed(ctx, err)
		return nil
	}
	if refused(ds) {
		return tooManyRequests(ctx, ds, detail)
	}
	return nil
}

func refused(ds []models.RateDecision) bool {
	for _, d := range ds {
		if !d.Allowed {
			return true
		}
	}
	return false
}

// rateHeaders are the RateLimit-Policy and RateLimit fields of draft-ietf-httpapi-ratelimit-headers
// (-09/-10) for ds: each quota as its policy name with q (quota) and w (window, seconds), and
// with r (remaining) and t (seconds until the whole quota is back).
func rateHeaders(ds []models.RateDecision) map[string]string {
	if len(ds) == 0 {
		return nil
	}
	var policy, state strings.Builder
	for i, d := range ds {
		if i > 0 {
			policy.WriteString(", ")
			state.WriteString(", ")
		}
		name := strconv.Quote(d.Policy)
		policy.WriteString(name + ";q=" + strconv.Itoa(d.Quota.Limit) + ";w=" + strconv.Itoa(ceilSeconds(d.Quota.Window)))
		state.WriteString(name + ";r=" + strconv.Itoa(d.Remaining) + ";t=" + strconv.Itoa(ceilSeconds(d.Reset)))
	}
	return map[string]string{"RateLimit-Policy": policy.String(), "RateLimit": state.String()}
}

// ceilSeconds is d in whole seconds, rounded up.
func ceilSeconds(d time.Duration) int {
	return int((d + time.Second - 1) / time.Second)
}

// tooManyRequests is the 429 problem with Retry-After (the longest wait of the refusing
// quotas, at least a second) and the RateLimit headers.
func tooManyRequests(ctx context.Context, ds []models.RateDecision, detail string) *Problem {
	var wait time.Duration
	for _, d := range ds {
		if !d.Allowed {
			wait = max(wait, d.RetryAfter)
		}
	}
	p := newProblem(ctx, http.StatusTooManyRequests, detail)
	p.headers = http.Header{}
	p.headers.Set("Retry-After", strconv.Itoa(max(ceilSeconds(wait), 1)))
	for name, value := range rateHeaders(ds) {
		p.headers.Set(name, value)
	}
	return p
}
