package api

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/models"
)

// AuditEntry is one line of the audit log.
type AuditEntry struct {
	models.AuditEntry
	ChangedFields []string `json:"changedFields"`
}

// AuditListInput filters the audit log.
type AuditListInput struct {
	ListParams
	Action     string    `query:"action" maxLength:"64" doc:"e.g. apikey.created"`
	ActorID    string    `query:"actorId" maxLength:"36"`
	TargetType string    `query:"targetType" maxLength:"64"`
	TargetID   string    `query:"targetId" maxLength:"36"`
	From       time.Time `query:"from" doc:"Entries at or after this time (RFC 3339)"`
	To         time.Time `query:"to" doc:"Entries before this time (RFC 3339)"`
}

// AuditListOutput is a page of the audit log.
type AuditListOutput struct {
	Body ListBody[AuditEntry]
}

// AuditStore is what the audit operations need of storage, as the caller sees it.
type AuditStore interface {
	ListAudit(ctx context.Context, f models.AuditFilter, pg models.Page) ([]models.AuditEntry, string, error)
}

// audit is the audit log as the caller sees it.
func (s *Server) audit(ctx context.Context) AuditStore {
	return s.deps.Modules.Audit(models.PrincipalFrom(ctx))
}

func registerAuditRoutes(s *Server) {
	register(s, huma.Operation{
		OperationID: "list-audit-log", Method: http.MethodGet, Path: "/api/audit-log", Tags: []string{"Audit"},
		Summary: "The audit log: every change to people, roles, keys and money", Security: UsersOrKeys,
	}, Requires(authz.AuditRead), s.listAuditLog)
}

// listAuditLog lists the audit log, the record of changes to people, roles, keys and money.
func (s *Server) listAuditLog(ctx context.Context, in *AuditListInput) (*AuditListOutput, error) {
	pg, err := s.cursors.page(ctx, in.ListParams)
	if err != nil {
		return nil, err
	}
	entries, next, err := s.audit(ctx).ListAudit(ctx, models.AuditFilter{
		Action: in.Action, ActorID: in.ActorID, TargetType: in.TargetType, TargetID: in.TargetID, From: in.From, To: in.To,
	}, pg)
	if err != nil {
		return nil, err
	}
	out := &AuditListOutput{}
	out.Body.Data = make([]AuditEntry, 0, len(entries))
	for _, e := range entries {
		a := AuditEntry{AuditEntry: e, ChangedFields: []string{}}
		_ = json.Unmarshal([]byte(e.ChangedFields), &a.ChangedFields)
		out.Body.Data = append(out.Body.Data, a)
	}
	out.Body.NextCursor = s.cursors.encode(next)
	return out, nil
}
