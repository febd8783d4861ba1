package playbook

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/partnerd/partnerd/models"
)

// clone deep-copies a graph.
func clone(t testing.TB, g models.PlaybookGraph) models.PlaybookGraph {
	t.Helper()
	b, err := json.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	var c models.PlaybookGraph
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

func nodeAt(g *models.PlaybookGraph, id string) *models.PlaybookNode {
	for i := range g.Nodes {
		if g.Nodes[i].ID == id {
			return &g.Nodes[i]
		}
	}
	panic("no node " + id)
}

// replace puts n in the place of the review task (same id and edges).
func replace(n models.PlaybookNode) func(*models.PlaybookGraph) {
	return func(g *models.PlaybookGraph) {
		n.ID = "review"
		*nodeAt(g, "review") = n
	}
}

func email(p models.PlaybookSendEmail) func(*models.PlaybookGraph) {
	return replace(models.PlaybookNode{Kind: models.NodeSendEmail, SendEmail: &p})
}

func commission(p models.PlaybookAccrueCommission) func(*models.PlaybookGraph) {
	return replace(models.PlaybookNode{Kind: models.NodeAccrueCommission, AccrueCommission: &p})
}

func partnerUpdate(p models.PlaybookUpdatePartner) func(*models.PlaybookGraph) {
	return replace(models.PlaybookNode{Kind: models.NodeUpdatePartner, UpdatePartner: &p})
}

func emit(p models.PlaybookEmitEvent) func(*models.PlaybookGraph) {
	return replace(models.PlaybookNode{Kind: models.NodeEmitEvent, EmitEvent: &p})
}

func task(p models.PlaybookCreateTask) func(*models.PlaybookGraph) {
	return replace(models.PlaybookNode{Kind: models.NodeCreateTask, CreateTask: &p})
}

func document(p models.PlaybookCreateDocument) func(*models.PlaybookGraph) {
	return replace(models.PlaybookNode{Kind: models.NodeCreateDocument, CreateDocument: &p})
}

func webhook(url string) func(*models.PlaybookGraph) {
	return func(g *models.PlaybookGraph) { nodeAt(g, "notify_crm").CallWebhook.URL = url }
}

func settle(w models.PlaybookWait) func(*models.PlaybookGraph) {
	return func(g *models.PlaybookGraph) { nodeAt(g, "settle").Wait = &w }
}

func condition(expr string) func(*models.PlaybookGraph) {
	return func(g *models.PlaybookGraph) { nodeAt(g, "big_deal").Condition.Expression = expr }
}

// awaitPayment turns the settle wait into a wait for the invoice to be paid.
func awaitPayment(w models.PlaybookWaitForEvent, labels ...string) func(*models.PlaybookGraph) {
	return func(g *models.PlaybookGraph) {
		n := nodeAt(g, "settle")
		*n = models.PlaybookNode{ID: "settle", Kind: models.NodeWaitForEvent, WaitForEvent: &w}
		var edges []models.PlaybookEdge
		for _, e := range g.Edges {
			if e.From != "settle" {
				edges = append(edges, e)
			}
		}
		for _, l := range labels {
			edges = append(edges, models.PlaybookEdge{From: "settle", To: "fan_out", Label: l})
		}
		g.Edges = edges
	}
}

func addEdge(from, to, label string) func(*models.PlaybookGraph) {
	return func(g *models.PlaybookGraph) {
		g.Edges = append(g.Edges, models.PlaybookEdge{From: from, To: to, Label: label})
	}
}

func dropEdge(from, to string) func(*models.PlaybookGraph) {
	return func(g *models.PlaybookGraph) {
		g.Edges = slices.DeleteFunc(g.Edges, func(e models.PlaybookEdge) bool { return e.From == from && e.To == to })
	}
}

func addNode(n models.PlaybookNode) func(*models.PlaybookGraph) {
	return func(g *models.PlaybookGraph) { g.Nodes = append(g.Nodes, n) }
}

var goodTask = models.PlaybookCreateTask{Title: "Call {{.partner.name}}", Assignee: models.AssigneePartner}

func TestValidateAcceptsTheRealisticGraph(t *testing.T) {
	if p := Validate(dealWonGraph(t)); len(p) != 0 {
		t.Fatalf("problems: %v", p)
	}
}

func TestValidateRules(t *testing.T) {
	tests := []struct {
		name   string
		change func(*models.PlaybookGraph)
		code   string
		path   string // expected path of the problem with code
	}{
		// Size.
		{"a graph with more than 200 nodes is too large", func(g *models.PlaybookGraph) {
			for i := range 200 {
				g.Nodes = append(g.Nodes, models.PlaybookNode{ID: fmt.Sprintf("n%d", i), Kind: models.NodeParallel})
			}
		}, CodeGraphTooLarge, "nodes"},
		{"a graph with more than 400 edges is too large", func(g *models.PlaybookGraph) {
			for range 400 {
				g.Edges = append(g.Edges, models.PlaybookEdge{From: "fan_out", To: "review"})
			}
		}, CodeGraphTooLarge, "edges"},

		// Trigger.
		{"a graph without a trigger node is refused", func(g *models.PlaybookGraph) {
			nodeAt(g, "start").Kind = models.NodeParallel
		}, CodeTriggerMissing, "nodes"},
		{"a second trigger node is refused", addNode(models.PlaybookNode{ID: "again", Kind: models.NodeTrigger}), CodeTriggerDuplicate, "nodes[8].kind"},
		{"a trigger without an event type is refused", func(g *models.PlaybookGraph) { g.Trigger.EventType = "" }, CodeParamRequired, "trigger.eventType"},
		{"a malformed trigger event type is refused", func(g *models.PlaybookGraph) { g.Trigger.EventType = "Deal Won" }, CodeEventTypeInvalid, "trigger.eventType"},
		{"a trigger condition with a syntax error is refused", func(g *models.PlaybookGraph) { g.Trigger.Condition = "event.payload.amount >=" }, CodeExpressionInvalid, "trigger.condition"},
		{"a trigger condition that gives a string is refused", func(g *models.PlaybookGraph) { g.Trigger.Condition = `event.type + "!"` }, CodeExpressionInvalid, "trigger.condition"},
		{"a trigger condition reading a field events do not have is refused", func(g *models.PlaybookGraph) { g.Trigger.Condition = "event.amount > 1" }, CodeExpressionInvalid, "trigger.condition"},
		{"a trigger without an edge to the first step is refused", dropEdge("start", "big_deal"), CodeBranchMissing, "nodes[0]"},

		// Nodes.
		{"a node id with a dash is refused", func(g *models.PlaybookGraph) {
			nodeAt(g, "thanks").ID = "say-thanks"
		}, CodeNodeIDInvalid, "nodes[7].id"},
		{"an empty node id is refused", addNode(models.PlaybookNode{Kind: models.NodeJoin}), CodeNodeIDInvalid, "nodes[8].id"},
		{"a node id used twice is refused", addNode(models.PlaybookNode{ID: "review", Kind: models.NodeJoin}), CodeNodeIDDuplicate, "nodes[8].id"},
		{"an unknown node kind is refused", func(g *models.PlaybookGraph) { nodeAt(g, "fan_out").Kind = "fork" }, CodeNodeKindUnknown, "nodes[3].kind"},
		{"a node name over 200 characters is refused", func(g *models.PlaybookGraph) { nodeAt(g, "done").Name = strings.Repeat("é", 201) }, CodeNameTooLong, "nodes[6].name"},
		{"a node without the parameters of its kind is refused", func(g *models.PlaybookGraph) { nodeAt(g, "settle").Wait = nil }, CodeParamsMissing, "nodes[2].wait"},
		{"a node carrying another kind's parameters is refused", func(g *models.PlaybookGraph) {
			nodeAt(g, "fan_out").CreateTask = &goodTask
		}, CodeParamsForeign, "nodes[3].createTask"},

		// Edges.
		{"an edge from a node that does not exist is refused", addEdge("ghost", "done", ""), CodeEdgeFromUnknown, "edges[9].from"},
		{"an edge to a node that does not exist is refused", addEdge("thanks", "ghost", ""), CodeEdgeToUnknown, "edges[9].to"},
		{"an edge into the trigger is refused", addEdge("thanks", "start", ""), CodeEdgeIntoTrigger, "edges[9].to"},
		{"a true edge out of a wait is refused", func(g *models.PlaybookGraph) { g.Edges[3].Label = models.EdgeTrue }, CodeEdgeLabelInvalid, "edges[3].label"},
		{"a timeout edge out of a condition is refused", func(g *models.PlaybookGraph) { g.Edges[1].Label = models.EdgeTimeout }, CodeEdgeLabelInvalid, "edges[1].label"},
		{"a second next edge out of an action is refused", addEdge("review", "thanks", ""), CodeEdgeLabelRepeated, "edges[9].label"},
		{"a second true edge out of a condition is refused", addEdge("big_deal", "fan_out", "true"), CodeEdgeLabelRepeated, "edges[9].label"},
		{"a parallel node with two edges to the same node is refused", addEdge("fan_out", "review", ""), CodeEdgeDuplicate, "edges[9]"},
		{"a condition without a false edge is refused", dropEdge("big_deal", "thanks"), CodeBranchMissing, "nodes[1]"},
		{"a wait_for_event without a timeout edge is refused", awaitPayment(models.PlaybookWaitForEvent{EventType: "invoice.paid", Timeout: "30d"}, "next"), CodeBranchMissing, "nodes[2]"},
		{"a wait_for_event without a next edge is refused", awaitPayment(models.PlaybookWaitForEvent{EventType: "invoice.paid", Timeout: "30d"}, "timeout"), CodeBranchMissing, "nodes[2]"},
		{"a parallel node with one branch is refused", dropEdge("fan_out", "notify_crm"), CodeParallelTooFewBranches, "nodes[3]"},
		{"a join with one incoming edge is refused", func(g *models.PlaybookGraph) {
			dropEdge("notify_crm", "done")(g)
			g.Nodes = slices.DeleteFunc(g.Nodes, func(n models.PlaybookNode) bool { return n.ID == "notify_crm" })
			dropEdge("fan_out", "notify_crm")(g)
			addEdge("fan_out", "thanks", "")(g)
		}, CodeJoinTooFewIncoming, "nodes[5]"},
		{"a node the trigger cannot reach is refused", addNode(models.PlaybookNode{ID: "orphan", Kind: models.NodeCreateTask, CreateTask: &goodTask}), CodeNodeUnreachable, "nodes[8]"},
		{"a cycle through no wait is refused", addEdge("thanks", "big_deal", ""), CodeCycleWithoutWait, "nodes[1]"},
		{"a node leading to itself is refused", func(g *models.PlaybookGraph) {
			addNode(models.PlaybookNode{ID: "again", Kind: models.NodeCreateTask, CreateTask: &goodTask})(g)
			addEdge("thanks", "again", "")(g)
			addEdge("again", "again", "")(g)
		}, CodeCycleWithoutWait, "nodes[8]"},

		// Expressions and templates.
		{"a condition without an expression is refused", condition(""), CodeParamRequired, "nodes[1].condition.expression"},
		{"a condition calling now() is refused", condition("now() > event.occurredAt"), CodeExpressionInvalid, "nodes[1].condition.expression"},
		{"a condition reading map keys in random order is refused", condition(`len(keys(event.payload)) > 0 && keys(event.payload)[0] == "a"`), CodeExpressionInvalid, "nodes[1].condition.expression"},
		{"a condition parsing dates with the host's time zones is refused", condition(`timezone("Europe/Paris") != nil`), CodeExpressionInvalid, "nodes[1].condition.expression"},
		{"a condition reading a step output with a dash is refused", condition(`steps.review-1.taskId != ""`), CodeExpressionInvalid, "nodes[1].condition.expression"},
		{"a condition that reads the awaited event outside a wait_for_event is refused", condition(`received.type == "x"`), CodeExpressionInvalid, "nodes[1].condition.expression"},
		{"a template that does not parse is refused", replace(models.PlaybookNode{Kind: models.NodeCreateTask, CreateTask: &models.PlaybookCreateTask{Title: "{{if .partner.name}}x", Assignee: "partner"}}), CodeTemplateInvalid, "nodes[4].createTask.title"},
		{"an HTML body with a broken action is refused", email(models.PlaybookSendEmail{To: "a@example.com", Subject: "s", HTML: "<p>{{.partner.name</p>"}), CodeTemplateInvalid, "nodes[4].sendEmail.html"},
		{"an HTML body that ends inside an attribute is refused", email(models.PlaybookSendEmail{To: "a@example.com", Subject: "s", HTML: `<a href="{{.partner.name}}`}), CodeTemplateInvalid, "nodes[4].sendEmail.html"},

		// Waits.
		{"a wait with a duration and an until is refused", settle(models.PlaybookWait{Duration: "7d", Until: "now"}), CodeParamConflict, "nodes[2].wait.until"},
		{"a wait with neither duration nor until is refused", settle(models.PlaybookWait{}), CodeParamRequired, "nodes[2].wait.duration"},
		{"a wait of 7 days written in words is refused", settle(models.PlaybookWait{Duration: "7 days"}), CodeDurationInvalid, "nodes[2].wait.duration"},
		{"a wait of zero is refused", settle(models.PlaybookWait{Duration: "0h"}), CodeDurationInvalid, "nodes[2].wait.duration"},
		{"a negative wait is refused", settle(models.PlaybookWait{Duration: "-3h"}), CodeDurationInvalid, "nodes[2].wait.duration"},
		{"a wait over 365 days is refused", settle(models.PlaybookWait{Duration: "365d1s"}), CodeDurationInvalid, "nodes[2].wait.duration"},
		{"a wait until a string is refused", settle(models.PlaybookWait{Until: "event.type"}), CodeExpressionInvalid, "nodes[2].wait.until"},
		{"a wait_for_event with a malformed event type is refused", awaitPayment(models.PlaybookWaitForEvent{EventType: "invoice paid", Timeout: "30d"}, "next", "timeout"), CodeEventTypeInvalid, "nodes[2].waitForEvent.eventType"},
		{"a wait_for_event without a timeout is refused", awaitPayment(models.PlaybookWaitForEvent{EventType: "invoice.paid"}, "next", "timeout"), CodeParamRequired, "nodes[2].waitForEvent.timeout"},
		{"a wait_for_event with a condition on an unknown field is refused", awaitPayment(models.PlaybookWaitForEvent{EventType: "invoice.paid", Timeout: "30d", Condition: "received.amount > 0"}, "next", "timeout"), CodeExpressionInvalid, "nodes[2].waitForEvent.condition"},

		// Actions.
		{"an email to something that is not an address is refused", email(models.PlaybookSendEmail{To: "partner manager", Subject: "s", Text: "t"}), CodeEmailInvalid, "nodes[4].sendEmail.to"},
		{"an email without a body is refused", email(models.PlaybookSendEmail{To: "a@example.com", Subject: "s"}), CodeParamRequired, "nodes[4].sendEmail.text"},
		{"an email without a subject is refused", email(models.PlaybookSendEmail{To: "a@example.com", Text: "t"}), CodeParamRequired, "nodes[4].sendEmail.subject"},
		{"a task for nobody is refused", task(models.PlaybookCreateTask{Title: "t"}), CodeParamRequired, "nodes[4].createTask.assignee"},
		{"a task for a customer is refused", task(models.PlaybookCreateTask{Title: "t", Assignee: "customer"}), CodeAssigneeInvalid, "nodes[4].createTask.assignee"},
		{"a task due in 400 days is refused", task(models.PlaybookCreateTask{Title: "t", Assignee: "operator", DueInDays: 400}), CodeDueDaysInvalid, "nodes[4].createTask.dueInDays"},
		{"a task without a title is refused", task(models.PlaybookCreateTask{Assignee: "operator"}), CodeParamRequired, "nodes[4].createTask.title"},
		{"a document from a template and a body is refused", document(models.PlaybookCreateDocument{Title: "t", Template: "welcome", Body: "<p>x</p>"}), CodeParamConflict, "nodes[4].createDocument.body"},
		{"a document with neither template nor body is refused", document(models.PlaybookCreateDocument{Title: "t"}), CodeParamRequired, "nodes[4].createDocument.body"},
		{"a document template name with spaces is refused", document(models.PlaybookCreateDocument{Title: "t", Template: "Welcome Pack"}), CodeParamInvalid, "nodes[4].createDocument.template"},
		{"a commission in lower-case currency is refused", commission(models.PlaybookAccrueCommission{AmountMinor: 100, Currency: "eur", Reason: "r"}), CodeCurrencyInvalid, "nodes[4].accrueCommission.currency"},
		{"a commission without a currency is refused", commission(models.PlaybookAccrueCommission{AmountMinor: 100, Reason: "r"}), CodeParamRequired, "nodes[4].accrueCommission.currency"},
		{"a negative commission is refused", commission(models.PlaybookAccrueCommission{AmountMinor: -100, Currency: "EUR", Reason: "r"}), CodeAmountInvalid, "nodes[4].accrueCommission.amountMinor"},
		{"a commission over the ceiling is refused", commission(models.PlaybookAccrueCommission{AmountMinor: MaxAmountMinor + 1, Currency: "EUR", Reason: "r"}), CodeAmountInvalid, "nodes[4].accrueCommission.amountMinor"},
		{"a commission without an amount is refused", commission(models.PlaybookAccrueCommission{Currency: "EUR", Reason: "r"}), CodeParamRequired, "nodes[4].accrueCommission.amountMinor"},
		{"a commission with an amount and an expression is refused", commission(models.PlaybookAccrueCommission{AmountMinor: 1, AmountExpression: "100", Currency: "EUR", Reason: "r"}), CodeParamConflict, "nodes[4].accrueCommission.amountExpression"},
		{"a commission whose expression gives a string is refused", commission(models.PlaybookAccrueCommission{AmountExpression: "event.type", Currency: "EUR", Reason: "r"}), CodeExpressionInvalid, "nodes[4].accrueCommission.amountExpression"},
		{"a commission without a reason is refused", commission(models.PlaybookAccrueCommission{AmountMinor: 1, Currency: "EUR"}), CodeParamRequired, "nodes[4].accrueCommission.reason"},
		{"a webhook to an ftp URL is refused", webhook("ftp://crm.example.com/x"), CodeURLInvalid, "nodes[5].callWebhook.url"},
		{"a webhook to a relative URL is refused", webhook("/hooks/deal-won"), CodeURLInvalid, "nodes[5].callWebhook.url"},
		{"a webhook URL with credentials is refused", webhook("https://user:secret@crm.example.com/x"), CodeURLInvalid, "nodes[5].callWebhook.url"},
		{"a partner update to an unknown status is refused", partnerUpdate(models.PlaybookUpdatePartner{Status: "gold"}), CodePartnerStatusInvalid, "nodes[4].updatePartner.status"},
		{"a partner update of level and status at once is refused", partnerUpdate(models.PlaybookUpdatePartner{Status: "active", LevelID: "l1"}), CodeParamConflict, "nodes[4].updatePartner.levelId"},
		{"a partner update of nothing is refused", partnerUpdate(models.PlaybookUpdatePartner{}), CodeParamRequired, "nodes[4].updatePartner.levelId"},
		{"a custom field name with spaces is refused", partnerUpdate(models.PlaybookUpdatePartner{CustomField: "sales region", CustomValue: "x"}), CodeParamInvalid, "nodes[4].updatePartner.customField"},
		{"an emitted event with a malformed type is refused", emit(models.PlaybookEmitEvent{Type: "onboarding"}), CodeEventTypeInvalid, "nodes[4].emitEvent.type"},
		{"an emitted event in a reserved namespace is refused", emit(models.PlaybookEmitEvent{Type: "deal.won"}), CodeEventTypeReserved, "nodes[4].emitEvent.type"},
		{"a survey of no known kind is refused", replace(models.PlaybookNode{Kind: models.NodeSendSurvey, SendSurvey: &models.PlaybookSendSurvey{Kind: "stars"}}), CodeParamInvalid, "nodes[4].sendSurvey.kind"},
		{"a survey without its kind is refused", replace(models.PlaybookNode{Kind: models.NodeSendSurvey, SendSurvey: &models.PlaybookSendSurvey{}}), CodeParamRequired, "nodes[4].sendSurvey.kind"},
		{"a survey node without its parameters is refused", replace(models.PlaybookNode{Kind: models.NodeSendSurvey}), CodeParamsMissing, "nodes[4].sendSurvey"},
		{"an emitted event whose payload is not a JSON object is refused", emit(models.PlaybookEmitEvent{Type: "onboarding.reminded", Payload: "[1, 2]"}), CodeParamInvalid, "nodes[4].emitEvent.payload"},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := clone(t, dealWonGraph(t))
			tt.change(&g)
			problems := Validate(g)
			for _, p := range problems {
				if p.Code == tt.code && p.Path == tt.path {
					seen[tt.code] = true
					if p.Message == "" {
						t.Errorf("problem %v has no message", p)
					}
					if _, err := Compile(g); err == nil {
						t.Error("Compile accepted a graph Validate refuses")
					}
					return
				}
			}
			t.Fatalf("want %s at %s, got %v", tt.code, tt.path, problems)
		})
	}
	t.Run("every rule has a case", func(t *testing.T) {
		for _, code := range allCodes {
			if !seen[code] {
				t.Errorf("no case breaks %s", code)
			}
		}
	})
}

// allCodes lists every problem code.
var allCodes = []string{
	CodeGraphTooLarge, CodeTriggerMissing, CodeTriggerDuplicate, CodeNodeIDInvalid, CodeNodeIDDuplicate,
	CodeNodeKindUnknown, CodeNameTooLong, CodeParamsMissing, CodeParamsForeign, CodeEdgeFromUnknown,
	CodeEdgeToUnknown, CodeEdgeIntoTrigger, CodeEdgeLabelInvalid, CodeEdgeLabelRepeated, CodeEdgeDuplicate,
	CodeBranchMissing, CodeParallelTooFewBranches, CodeJoinTooFewIncoming, CodeNodeUnreachable,
	CodeCycleWithoutWait, CodeExpressionInvalid, CodeTemplateInvalid, CodeParamRequired, CodeParamConflict,
	CodeParamInvalid, CodeEventTypeInvalid, CodeEventTypeReserved, CodeEmailInvalid, CodeCurrencyInvalid,
	CodeAmountInvalid, CodeDurationInvalid, CodeURLInvalid, CodePartnerStatusInvalid, CodeAssigneeInvalid,
	CodeDueDaysInvalid,
}

func TestValidateAccepts(t *testing.T) {
	tests := []struct {
		name   string
		change func(*models.PlaybookGraph)
	}{
		{"a cycle through a wait is allowed", addEdge("thanks", "settle", "")},
		{"an NPS survey to the partner's users", replace(models.PlaybookNode{Kind: models.NodeSendSurvey, SendSurvey: &models.PlaybookSendSurvey{Kind: models.SurveyNPS}})},
		{"a cycle through a wait_for_event is allowed", func(g *models.PlaybookGraph) {
			awaitPayment(models.PlaybookWaitForEvent{EventType: "invoice.*", Timeout: "30d", Condition: `received.payload.dealId == event.payload.dealId`}, "next", "timeout")(g)
			addEdge("thanks", "settle", "")(g)
		}},
		{"a trigger pattern with wildcards is allowed", func(g *models.PlaybookGraph) { g.Trigger.EventType = "deal.*" }},
		{"a trigger condition over the partner is allowed", func(g *models.PlaybookGraph) {
			g.Trigger.Condition = `partner.level in ["Gold", "Platinum"] && partner.custom.region == "EMEA"`
		}},
		{"a condition on the time since the event is allowed", condition(`now - event.occurredAt < duration("72h") && now.Year() >= 2026`)},
		{"a condition on a step output is allowed", condition(`steps.review.taskId != nil`)},
		{"a wait of days and hours is allowed", settle(models.PlaybookWait{Duration: "1d12h"})},
		{"a wait of exactly 365 days is allowed", settle(models.PlaybookWait{Duration: "365d"})},
		{"a wait until a date from the payload is allowed", settle(models.PlaybookWait{Until: `date(event.payload.renewsOn) - days(30)`})},
		{"a wait until thirty days after the event is allowed", settle(models.PlaybookWait{Until: "event.occurredAt + days(30)"})},
		{"an email to a templated address is allowed", email(models.PlaybookSendEmail{To: "{{.partner.custom.contactEmail}}", Subject: "Hi", HTML: "<p>Hello {{.partner.name}}</p>"})},
		{"an email to two named addresses is allowed", email(models.PlaybookSendEmail{To: "Ada <ada@example.com>, bob@example.com", Subject: "Hi", Text: "t"})},
		{"a commission from an expression is allowed", commission(models.PlaybookAccrueCommission{AmountExpression: "event.payload.amount / 100", Currency: "EUR", Reason: "Bonus for {{.event.payload.dealName}}"})},
		{"a document from a stored template is allowed", document(models.PlaybookCreateDocument{Title: "Welcome", Template: "welcome-pack"})},
		{"a document with an HTML body is allowed", document(models.PlaybookCreateDocument{Title: "Welcome", Body: "<h1>{{.partner.name}}</h1>"})},
		{"a custom field update is allowed", partnerUpdate(models.PlaybookUpdatePartner{CustomField: "lastBigDeal", CustomValue: "{{.event.payload.dealName}}"})},
		{"a status update is allowed", partnerUpdate(models.PlaybookUpdatePartner{Status: models.PartnerActive})},
		{"an emitted event with a templated payload is allowed", emit(models.PlaybookEmitEvent{Type: "bonus.granted", Payload: `{"deal": {{json .event.payload.dealName}}}`})},
		{"a webhook over plain http is allowed", webhook("http://crm.internal:8080/hooks")},
		{"node names may be long up to 200 characters", func(g *models.PlaybookGraph) { nodeAt(g, "done").Name = strings.Repeat("é", 200) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := clone(t, dealWonGraph(t))
			tt.change(&g)
			if p := Validate(g); len(p) != 0 {
				t.Fatalf("problems: %v", p)
			}
		})
	}
}

func TestValidateReportsEveryProblemAtOnce(t *testing.T) {
	g := clone(t, dealWonGraph(t))
	g.Trigger.EventType = "Deal"
	nodeAt(&g, "big_deal").Condition.Expression = "event.nope"
	nodeAt(&g, "settle").Wait.Duration = "forever"
	addEdge("thanks", "ghost", "")(&g)
	addNode(models.PlaybookNode{ID: "orphan", Kind: models.NodeJoin})(&g)
	var codes []string
	for _, p := range Validate(g) {
		codes = append(codes, p.Code)
	}
	for _, want := range []string{CodeEventTypeInvalid, CodeExpressionInvalid, CodeDurationInvalid, CodeEdgeToUnknown, CodeNodeUnreachable, CodeJoinTooFewIncoming} {
		if !slices.Contains(codes, want) {
			t.Errorf("missing %s in %v", want, codes)
		}
	}
}

func TestValidateNamesTheNodeAndEdge(t *testing.T) {
	g := clone(t, dealWonGraph(t))
	addEdge("thanks", "ghost", "")(&g)
	p := Validate(g)
	if len(p) != 1 || p[0].Edge == nil || *p[0].Edge != 9 || p[0].NodeID != "ghost" {
		t.Fatalf("problems = %+v", p)
	}
	g = clone(t, dealWonGraph(t))
	nodeAt(&g, "settle").Wait.Duration = "0s"
	p = Validate(g)
	if len(p) != 1 || p[0].NodeID != "settle" || p[0].Edge != nil {
		t.Fatalf("problems = %+v", p)
	}
}
