// Package client is partnerd's typed Go client: partnerd.gen.go is generated from
// docs/openapi.json by oapi-codegen (make openapi; ADR 21) and never edited; this file holds
// what integrators need beside it. Start with NewClientWithResponses and WithBearer; see
// client/example for a whole program.
package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

//go:generate make -C .. client

// WithBearer authenticates every request with token: a user's access token (from Login) or a
// machine key (pd_live_…).
func WithBearer(token string) ClientOption {
	return WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
		req.Header.Set("Authorization", "Bearer "+token)
		return nil
	})
}

// Error makes a Problem an error: its status, code and detail.
func (p *Problem) Error() string {
	msg := fmt.Sprintf("partnerd: %d %s", p.Status, p.Code)
	if p.Detail != nil && *p.Detail != "" {
		msg += ": " + *p.Detail
	}
	if p.RequestId != nil {
		msg += " (request " + *p.RequestId + ")"
	}
	return msg
}

// CheckResponse is nil for a 2xx answer; otherwise the answer's RFC 9457 problem as an error
// (a *Problem when the body is one).
func CheckResponse(res *http.Response, body []byte) error {
	if res.StatusCode >= 200 && res.StatusCode < 300 {
		return nil
	}
	if strings.HasPrefix(res.Header.Get("Content-Type"), "application/problem+json") {
		var p Problem
		if err := json.Unmarshal(body, &p); err == nil && p.Code != "" {
			return &p
		}
	}
	return fmt.Errorf("partnerd: %s", res.Status)
}
