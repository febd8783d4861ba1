package client

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestTheClientSendsTheBearerAndTurnsProblemsIntoErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Header.Get("Authorization") {
		case "Bearer pd_live_good":
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"id":"01936f3a-5b2c-7e41-8d9a-4c2b7e1f6a30","customerId":"c1","status":"stored"}`))
		case "Bearer pd_live_down":
			w.WriteHeader(http.StatusBadGateway)
		default:
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"type":"https://partnerd.dev/problems/unauthenticated","title":"Unauthorized","status":401,"code":"UNAUTHENTICATED","detail":"bad key","requestId":"r-1"}`))
		}
	}))
	defer srv.Close()
	email := "billing@initech.example"
	ingest := func(key string) (*IngestEventResponse, error) {
		c, err := NewClientWithResponses(srv.URL, WithBearer(key))
		if err != nil {
			t.Fatal(err)
		}
		return c.IngestEventWithResponse(context.Background(), IngestEventJSONRequestBody{CustomerEmail: &email, Type: "invoice.paid"})
	}

	res, err := ingest("pd_live_good")
	if err != nil || CheckResponse(res.HTTPResponse, res.Body) != nil || res.JSON200 == nil || res.JSON200.Status != IngestedEventStatusStored {
		t.Fatalf("a good key: %v %v %s", err, res.JSON200, res.Body)
	}

	res, err = ingest("pd_live_bad")
	if err != nil {
		t.Fatal(err)
	}
	var p *Problem
	if err := CheckResponse(res.HTTPResponse, res.Body); !errors.As(err, &p) || p.Code != "UNAUTHENTICATED" || p.Status != 401 ||
		err.Error() != "partnerd: 401 UNAUTHENTICATED: bad key (request r-1)" {
		t.Fatalf("a bad key gave %v", err)
	}
	if res.ApplicationproblemJSON401 == nil || res.ApplicationproblemJSON401.Code != "UNAUTHENTICATED" {
		t.Fatalf("the typed 401 is %+v", res.ApplicationproblemJSON401)
	}

	res, _ = ingest("pd_live_down")
	if err := CheckResponse(res.HTTPResponse, res.Body); err == nil || errors.As(err, &p) || !strings.Contains(err.Error(), "502") {
		t.Fatalf("a 502 without a problem gave %v", err)
	}
}
