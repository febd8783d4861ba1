package playbook

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/partnerd/partnerd/models"
)

// Render gives the action node nodeID with its templates rendered against env: every template
// field holds its text, an amount expression is replaced by the amount it gives
// (AmountMinor), an empty webhook body by the JSON of the event and the partner, an empty
// event payload by {}. The result is what the action's activity carries out.
//
// Deterministic, so workflows may call it: its map iterations do not decide results (sets and
// lookups; orders are sorted), and expressions run without the expression library's debug or
// profiling modes, the only parts of it that read the clock or use channels.
//
//workflowcheck:ignore
func (c *Compiled) Render(nodeID string, env Env) (models.PlaybookNode, error) {
	n, ok := c.Node(nodeID)
	if !ok {
		return n, fmt.Errorf("the graph has no node %q", nodeID)
	}
	if !models.IsPlaybookAction(n.Kind) {
		return n, fmt.Errorf("node %q is a %s node, not an action", nodeID, n.Kind)
	}
	r := renderer{c: c, id: nodeID, env: env}
	out := models.PlaybookNode{ID: n.ID, Kind: n.Kind, Name: n.Name}
	switch n.Kind {
	case models.NodeSendEmail:
		p := *n.SendEmail
		p.To = r.text("to", p.To)
		p.Subject = r.text("subject", p.Subject)
		p.Text = r.text("text", p.Text)
		p.HTML = r.text("html", p.HTML)
		if r.err == nil {
			r.err = checkHeaders(p.To, p.Subject)
		}
		out.SendEmail = &p
	case models.NodeCreateTask:
		p := *n.CreateTask
		p.Title = r.text("title", p.Title)
		p.Description = r.text("description", p.Description)
		out.CreateTask = &p
	case models.NodeCreateDocument:
		p := *n.CreateDocument
		p.Title = r.text("title", p.Title)
		p.Body = r.text("body", p.Body)
		out.CreateDocument = &p
	case models.NodeAccrueCommission:
		p := *n.AccrueCommission
		if e := c.exprs[nodeID+".amountExpression"]; e != nil && r.err == nil {
			amount, err := EvalAmount(e, env)
			switch {
			case err != nil:
				r.err = err
			case amount <= 0:
				r.err = fmt.Errorf("the amount of %q is %d; it must be more than zero", nodeID, amount)
			case amount > MaxAmountMinor:
				r.err = fmt.Errorf("the amount of %q is %d; it must be at most %d minor units", nodeID, amount, int64(MaxAmountMinor))
			}
			p.AmountMinor, p.AmountExpression = amount, ""
		}
		p.Reason = r.text("reason", p.Reason)
		out.AccrueCommission = &p
	case models.NodeCallWebhook:
		p := *n.CallWebhook
		if p.Body == "" {
			b, err := json.Marshal(map[string]any{"event": env.Event.templateData(), "partner": env.Partner.templateData()})
			if err != nil {
				return out, err
			}
			p.Body = string(b)
		} else {
			p.Body = r.text("body", p.Body)
		}
		out.CallWebhook = &p
	case models.NodeUpdatePartner:
		p := *n.UpdatePartner
		p.CustomValue = r.text("customValue", p.CustomValue)
		out.UpdatePartner = &p
	case models.NodeEmitEvent:
		p := *n.EmitEvent
		if p.Payload == "" {
			p.Payload = "{}"
		} else {
			p.Payload = r.text("payload", p.Payload)
			if r.err == nil && !isJSONObject(p.Payload) {
				r.err = fmt.Errorf("the payload of %q does not render to a JSON object", nodeID)
			}
		}
		out.EmitEvent = &p
	case models.NodeSendSurvey:
		p := *n.SendSurvey
		out.SendSurvey = &p
	}
	if r.err != nil {
		return out, r.err
	}
	return out, nil
}

type renderer struct {
	c   *Compiled
	id  string
	env Env
	err error
}

// text renders the template kept for field, or returns src when there is none (an empty
// optional field).
func (r *renderer) text(field, src string) string {
	t := r.c.tmpls[r.id+"."+field]
	if t == nil || r.err != nil {
		return src
	}
	s, err := t.Render(r.env)
	if err != nil {
		r.err = fmt.Errorf("%s of %q: %w", field, r.id, err)
		return ""
	}
	return s
}

// checkHeaders refuses recipients that are not addresses and header values that could start
// another header.
func checkHeaders(to, subject string) error {
	if strings.ContainsAny(to, "\r\n") || strings.ContainsAny(subject, "\r\n") {
		return fmt.Errorf("the recipients or the subject contain a line break")
	}
	if _, err := parseRecipients(to); err != nil {
		return err
	}
	return nil
}
