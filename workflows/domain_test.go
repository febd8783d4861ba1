package workflows_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/partnerd/partnerd/activities"
	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
	"github.com/partnerd/partnerd/worker"
	"github.com/partnerd/partnerd/workflows"
)

// testDNS is a DNS server on 127.0.0.1 (a random UDP port) answering TXT records the test sets.
type testDNS struct {
	mu   sync.Mutex
	txt  map[string][]string
	addr string
}

func startDNS(t *testing.T) *testDNS {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d := &testDNS{txt: map[string][]string{}, addr: pc.LocalAddr().String()}
	srv := &dns.Server{PacketConn: pc, Handler: dns.HandlerFunc(func(w dns.ResponseWriter, r *dns.Msg) {
		m := new(dns.Msg)
		m.SetReply(r)
		q := r.Question[0]
		d.mu.Lock()
		vals, ok := d.txt[strings.ToLower(q.Name)]
		d.mu.Unlock()
		if !ok {
			m.Rcode = dns.RcodeNameError
		}
		for _, v := range vals {
			m.Answer = append(m.Answer, &dns.TXT{Hdr: dns.RR_Header{Name: q.Name, Rrtype: dns.TypeTXT, Class: dns.ClassINET, Ttl: 60}, Txt: []string{v}})
		}
		_ = w.WriteMsg(m)
	})}
	started := make(chan struct{})
	srv.NotifyStartedFunc = func() { close(started) }
	go func() { _ = srv.ActivateAndServe() }()
	<-started
	t.Cleanup(func() { _ = srv.Shutdown() })
	return d
}

func (d *testDNS) set(name string, vals ...string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if vals == nil {
		delete(d.txt, dns.Fqdn(name))
		return
	}
	d.txt[dns.Fqdn(name)] = vals
}

func domainEnv(st *stores.Set, srv *testDNS, start time.Time) *testsuite.TestWorkflowEnvironment {
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	env.SetStartTime(start)
	worker.Register(env, worker.Deps{System: &activities.System{},
		Domains: &activities.Domains{Store: st.Domains, Resolver: activities.DNSResolver{Server: srv.addr, Timeout: 2 * time.Second}}})
	return env
}

func domainStatus(t *testing.T, sc *stores.Scoped, id string) string {
	t.Helper()
	d, err := sc.Domain(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return d.Status
}

func domainEvents(t *testing.T, sc *stores.Scoped) []string {
	t.Helper()
	evs, _, err := sc.ListEvents(context.Background(), models.EventFilter{Type: "domain.*"}, models.Page{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range evs {
		out = append(out, e.Type)
	}
	return out
}

func TestADomainIsVerifiedWhenItsRecordAppearsAndUnverifiedAfterItStaysGoneThroughTheGrace(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		srv := startDNS(t)
		e := storetest.NewPartners(t, st)
		d, err := e.Op.AddDomain(e.Ctx, "partners.acme.example", "")
		if err != nil {
			t.Fatal(err)
		}
		t0 := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
		// The record is created five hours after the domain is added; a wrong value before does not count.
		srv.set(d.ChallengeName(), "partnerd-verify=wrong")
		env := domainEnv(st, srv, t0)
		env.RegisterDelayedCallback(func() { srv.set(d.ChallengeName(), "v=spf1 -all", d.Token) }, 5*time.Hour)
		env.ExecuteWorkflow(workflows.DomainVerification, workflows.DomainInput{TenantID: e.TenantID, DomainID: d.ID})
		var can *workflow.ContinueAsNewError
		if !env.IsWorkflowCompleted() || !errors.As(env.GetWorkflowError(), &can) {
			t.Fatalf("verification did not go on to watching: %v", env.GetWorkflowError())
		}
		got, _ := e.Op.Domain(e.Ctx, d.ID)
		if got.Status != models.DomainVerified || got.VerifiedAt == nil || got.VerifiedAt.Before(t0.Add(5*time.Hour)) || got.VerifiedAt.After(t0.Add(7*time.Hour)) {
			t.Fatalf("verified = %+v (backoff doubles from a minute to an hour)", got)
		}
		// Watching: one check a day. The record is removed; the domain stays verified for the grace (72 h).
		srv.set(d.ChallengeName())
		day := t0.Add(6 * time.Hour)
		for i := 1; i <= 4; i++ {
			env := domainEnv(st, srv, day)
			env.ExecuteWorkflow(workflows.DomainVerification, workflows.DomainInput{TenantID: e.TenantID, DomainID: d.ID, Watching: true})
			day = day.Add(models.DomainRecheckEvery)
			status := domainStatus(t, e.Op, d.ID)
			switch {
			case i < 4 && status != models.DomainVerified:
				t.Fatalf("day %d: %s within the grace", i, status)
			case i < 4 && !errors.As(env.GetWorkflowError(), &can):
				t.Fatalf("day %d: watching stopped: %v", i, env.GetWorkflowError())
			case i == 4 && (status != models.DomainUnverified || env.GetWorkflowError() != nil):
				t.Fatalf("day 4: %s, %v", status, env.GetWorkflowError())
			}
		}
		if evs := strings.Join(domainEvents(t, e.Op), " "); !strings.Contains(evs, "domain.verified") || !strings.Contains(evs, "domain.unverified") {
			t.Fatalf("events = %s", evs)
		}
		if _, err := st.VerifiedHost(e.Ctx, "partners.acme.example"); storetest.Code(err) != "HOST_NOT_FOUND" {
			t.Fatalf("an unverified host still serves: %v", err)
		}
	})
}

func TestADomainWhoseRecordNeverAppearsFailsAfterTheWindow(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		srv := startDNS(t)
		e := storetest.NewPartners(t, st)
		d, err := e.Op.AddDomain(e.Ctx, "partners.never.example", "")
		if err != nil {
			t.Fatal(err)
		}
		t0 := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
		env := domainEnv(st, srv, t0)
		env.ExecuteWorkflow(workflows.DomainVerification, workflows.DomainInput{TenantID: e.TenantID, DomainID: d.ID})
		if !env.IsWorkflowCompleted() || env.GetWorkflowError() != nil {
			t.Fatalf("verification: %v", env.GetWorkflowError())
		}
		got, _ := e.Op.Domain(e.Ctx, d.ID)
		if got.Status != models.DomainFailed || got.CheckedAt == nil || got.CheckedAt.Before(t0.Add(models.DomainVerifyWindow)) {
			t.Fatalf("failed = %+v", got)
		}
		if evs := strings.Join(domainEvents(t, e.Op), " "); !strings.Contains(evs, "domain.failed") {
			t.Fatalf("events = %s", evs)
		}
	})
}
