package api

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/danielgtaylor/huma/v2"
)

const tagSystem = "System"

// HealthOutput is the answer of /healthz.
type HealthOutput struct {
	Body struct {
		Status string `json:"status" enum:"ok" doc:"Always ok while the process serves requests"`
	}
}

// ReadyOutput is the answer of /readyz when every dependency answers.
type ReadyOutput struct {
	Body struct {
		Status string            `json:"status" enum:"ready"`
		Checks map[string]string `json:"checks" doc:"Each dependency and its state"`
	}
}

// readinessTimeout bounds each dependency check.
const readinessTimeout = 3 * time.Second

func registerSystemRoutes(s *Server) {
	register(s, huma.Operation{
		OperationID: "get-health",
		Method:      http.MethodGet,
		Path:        "/healthz",
		Summary:     "Liveness: the process serves requests",
		Tags:        []string{tagSystem},
	}, Public(), s.getHealth)

	register(s, huma.Operation{
		OperationID: "get-readiness",
		Method:      http.MethodGet,
		Path:        "/readyz",
		Summary:     "Readiness: the database and Temporal answer",
		Description: "503 with one error entry per failing dependency when any of them does not answer.",
		Tags:        []string{tagSystem},
		Errors:      []int{http.StatusServiceUnavailable},
	}, Public(), s.getReadiness)
}

// getHealth answers that the process serves requests.
func (s *Server) getHealth(context.Context, *struct{}) (*HealthOutput, error) {
	out := &HealthOutput{}
	out.Body.Status = "ok"
	return out, nil
}

// getReadiness answers whether every dependency of Deps.Readiness answers.
func (s *Server) getReadiness(ctx context.Context, _ *struct{}) (*ReadyOutput, error) {
	failed := map[string]string{}
	checks := map[string]string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, c := range s.deps.Readiness {
		wg.Go(func() {
			cctx, cancel := context.WithTimeout(ctx, readinessTimeout)
			defer cancel()
			err := c.Check(cctx)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				s.log.WarnContext(ctx, "readiness check failed", "check", c.Name, "error", err.Error())
				failed[c.Name] = "unavailable"
				checks[c.Name] = "unavailable"
				return
			}
			checks[c.Name] = "ok"
		})
	}
	wg.Wait()
	if len(failed) > 0 {
		p := newProblem(ctx, http.StatusServiceUnavailable, "not ready")
		p.Code = "NOT_READY"
		p.Type = problemType(p.Code)
		for name := range failed {
			p.Errors = append(p.Errors, &huma.ErrorDetail{Location: name, Message: name + " does not answer"})
		}
		return nil, p
	}
	out := &ReadyOutput{}
	out.Body.Status = "ready"
	out.Body.Checks = checks
	return out, nil
}
