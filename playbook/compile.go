package playbook

import (
	"encoding/json"
	"fmt"
	"net/mail"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/partnerd/partnerd/models"
)

// Size limits of a graph.
const (
	MaxNodes = 200
	MaxEdges = 400
)

// MaxAmountMinor is the largest fixed commission amount a node may book, in minor units.
const MaxAmountMinor = 1_000_000_000_000

var (
	nodeIDPattern       = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,63}$`)
	currencyPattern     = regexp.MustCompile(`^[A-Z]{3}$`)
	templateNamePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)
)

// partnerStatuses are the statuses an update_partner node may set.
var partnerStatuses = []string{models.PartnerOnboarding, models.PartnerActive, models.PartnerSuspended, models.PartnerOffboarded}

// Compiled is a valid graph with its expressions and templates compiled, ready to run. Compile
// it once per published version; it is safe for concurrent use.
type Compiled struct {
	graph   models.PlaybookGraph
	trigger string
	index   map[string]int
	out     map[string][]int // edge indexes by source, in graph order
	in      map[string][]int // edge indexes by target, in graph order
	joins   []string         // join node ids in graph order
	reach   map[string]map[string]bool

	triggerCondition *Expression
	exprs            map[string]*Expression // by node id + "." + field
	tmpls            map[string]*Template   // by node id + "." + field
	waits            map[string]time.Duration
}

// Validate checks g and returns every problem found, in graph order; none means g is valid.
func Validate(g models.PlaybookGraph) []Problem {
	_, problems := build(g)
	return problems
}

// Compile validates g and compiles its expressions and templates. An invalid graph gives a
// *ValidationError listing every problem.
//
// Deterministic, so workflows may call it: its map iterations do not decide results (sets and
// lookups; orders are sorted), and expressions run without the expression library's debug or
// profiling modes, the only parts of it that read the clock or use channels.
//
//workflowcheck:ignore
func Compile(g models.PlaybookGraph) (*Compiled, error) {
	c, problems := build(g)
	if len(problems) > 0 {
		return nil, &ValidationError{Problems: problems}
	}
	return c, nil
}

type checker struct {
	c        *Compiled
	problems []Problem
}

func (k *checker) add(code, path, nodeID string, edge *int, format string, args ...any) {
	k.problems = append(k.problems, Problem{Code: code, Message: fmt.Sprintf(format, args...), Path: path, NodeID: nodeID, Edge: edge})
}

func build(g models.PlaybookGraph) (*Compiled, []Problem) {
	k := &checker{c: &Compiled{
		graph: g,
		index: map[string]int{},
		out:   map[string][]int{},
		in:    map[string][]int{},
		exprs: map[string]*Expression{},
		tmpls: map[string]*Template{},
		waits: map[string]time.Duration{},
	}}
	if len(g.Nodes) > MaxNodes {
		k.add(CodeGraphTooLarge, "nodes", "", nil, "a graph has at most %d nodes, this one %d", MaxNodes, len(g.Nodes))
	}
	if len(g.Edges) > MaxEdges {
		k.add(CodeGraphTooLarge, "edges", "", nil, "a graph has at most %d edges, this one %d", MaxEdges, len(g.Edges))
	}
	if len(k.problems) > 0 {
		// The rest is not worth checking on a graph that cannot be saved anyway.
		return nil, k.problems
	}
	k.checkTrigger(g.Trigger)
	k.checkNodes(g.Nodes)
	k.checkEdges(g.Edges)
	k.checkBranches()
	k.checkReachable()
	k.checkCycles()
	if len(k.problems) > 0 {
		return nil, k.problems
	}
	k.c.computeReach()
	return k.c, nil
}

func (k *checker) checkTrigger(t models.PlaybookTrigger) {
	switch {
	case t.EventType == "":
		k.add(CodeParamRequired, "trigger.eventType", "", nil, "the trigger needs an event type")
	case !models.ValidEventPattern(t.EventType):
		k.add(CodeEventTypeInvalid, "trigger.eventType", "", nil, "%q is not an event type or pattern such as deal.won or deal.*", t.EventType)
	}
	if t.Condition != "" {
		e, err := CompileExpression(t.Condition, KindBool)
		if err != nil {
			k.add(CodeExpressionInvalid, "trigger.condition", "", nil, "%v", err)
		}
		k.c.triggerCondition = e
	}
}

func (k *checker) checkNodes(nodes []models.PlaybookNode) {
	triggers := 0
	for i, n := range nodes {
		path := fmt.Sprintf("nodes[%d]", i)
		switch {
		case !nodeIDPattern.MatchString(n.ID):
			k.add(CodeNodeIDInvalid, path+".id", n.ID, nil, "a node id is a letter or _ followed by at most 63 letters, digits or _, not %q", n.ID)
		default:
			if _, dup := k.c.index[n.ID]; dup {
				k.add(CodeNodeIDDuplicate, path+".id", n.ID, nil, "node id %q is used twice", n.ID)
			} else {
				k.c.index[n.ID] = i
			}
		}
		if utf8.RuneCountInString(n.Name) > 200 {
			k.add(CodeNameTooLong, path+".name", n.ID, nil, "a node name has at most 200 characters")
		}
		if !slices.Contains(models.PlaybookNodeKinds, n.Kind) {
			k.add(CodeNodeKindUnknown, path+".kind", n.ID, nil, "%q is not a node kind; kinds are %s", n.Kind, strings.Join(models.PlaybookNodeKinds, ", "))
			continue
		}
		if n.Kind == models.NodeTrigger {
			triggers++
			if triggers == 1 {
				k.c.trigger = n.ID
			} else {
				k.add(CodeTriggerDuplicate, path+".kind", n.ID, nil, "a graph has exactly one trigger node; %q is another", n.ID)
			}
		}
		if n.Kind == models.NodeJoin && k.c.index[n.ID] == i {
			k.c.joins = append(k.c.joins, n.ID)
		}
		k.checkParams(i, n)
	}
	if triggers == 0 {
		k.add(CodeTriggerMissing, "nodes", "", nil, "a graph has exactly one trigger node; this one has none")
	}
}

// members lists the parameter members of n by JSON name, in declaration order.
func members(n models.PlaybookNode) []struct {
	kind, name string
	set        bool
} {
	return []struct {
		kind, name string
		set        bool
	}{
		{models.NodeCondition, "condition", n.Condition != nil},
		{models.NodeWait, "wait", n.Wait != nil},
		{models.NodeWaitForEvent, "waitForEvent", n.WaitForEvent != nil},
		{models.NodeSendEmail, "sendEmail", n.SendEmail != nil},
		{models.NodeCreateTask, "createTask", n.CreateTask != nil},
		{models.NodeCreateDocument, "createDocument", n.CreateDocument != nil},
		{models.NodeAccrueCommission, "accrueCommission", n.AccrueCommission != nil},
		{models.NodeCallWebhook, "callWebhook", n.CallWebhook != nil},
		{models.NodeUpdatePartner, "updatePartner", n.UpdatePartner != nil},
		{models.NodeEmitEvent, "emitEvent", n.EmitEvent != nil},
		{models.NodeSendSurvey, "sendSurvey", n.SendSurvey != nil},
	}
}

func (k *checker) checkParams(i int, n models.PlaybookNode) {
	path := fmt.Sprintf("nodes[%d]", i)
	own := ""
	for _, m := range members(n) {
		if m.kind == n.Kind {
			own = m.name
			if !m.set {
				k.add(CodeParamsMissing, path+"."+m.name, n.ID, nil, "a %s node needs its parameters in %s", n.Kind, m.name)
			}
		} else if m.set {
			k.add(CodeParamsForeign, path+"."+m.name, n.ID, nil, "a %s node cannot carry %s", n.Kind, m.name)
		}
	}
	if own == "" {
		return
	}
	p := paramChecker{k: k, id: n.ID, path: path + "." + own}
	switch {
	case n.Condition != nil && n.Kind == models.NodeCondition:
		p.expression("expression", n.Condition.Expression, KindBool, true)
	case n.Wait != nil && n.Kind == models.NodeWait:
		p.wait(n.Wait)
	case n.WaitForEvent != nil && n.Kind == models.NodeWaitForEvent:
		p.waitForEvent(n.WaitForEvent)
	case n.SendEmail != nil && n.Kind == models.NodeSendEmail:
		p.sendEmail(n.SendEmail)
	case n.CreateTask != nil && n.Kind == models.NodeCreateTask:
		p.createTask(n.CreateTask)
	case n.CreateDocument != nil && n.Kind == models.NodeCreateDocument:
		p.createDocument(n.CreateDocument)
	case n.AccrueCommission != nil && n.Kind == models.NodeAccrueCommission:
		p.accrueCommission(n.AccrueCommission)
	case n.CallWebhook != nil && n.Kind == models.NodeCallWebhook:
		p.callWebhook(n.CallWebhook)
	case n.UpdatePartner != nil && n.Kind == models.NodeUpdatePartner:
		p.updatePartner(n.UpdatePartner)
	case n.EmitEvent != nil && n.Kind == models.NodeEmitEvent:
		p.emitEvent(n.EmitEvent)
	case n.SendSurvey != nil && n.Kind == models.NodeSendSurvey:
		if p.required("kind", n.SendSurvey.Kind) && !slices.Contains(models.SurveyKinds, n.SendSurvey.Kind) {
			p.add(CodeParamInvalid, "kind", "%q is not a survey kind: csat or nps", n.SendSurvey.Kind)
		}
	}
}

// paramChecker checks the parameters of one node and keeps what it compiles.
type paramChecker struct {
	k    *checker
	id   string
	path string
}

func (p paramChecker) add(code, field, format string, args ...any) {
	p.k.add(code, p.path+"."+field, p.id, nil, format, args...)
}

func (p paramChecker) key(field string) string { return p.id + "." + field }

func (p paramChecker) required(field, value string) bool {
	if strings.TrimSpace(value) == "" {
		p.add(CodeParamRequired, field, "%s is required", field)
		return false
	}
	return true
}

func (p paramChecker) expression(field, src string, kind ExpressionKind, required bool) {
	if src == "" && !required {
		return
	}
	if !p.required(field, src) {
		return
	}
	e, err := CompileExpression(src, kind)
	if err != nil {
		p.add(CodeExpressionInvalid, field, "%v", err)
		return
	}
	p.k.c.exprs[p.key(field)] = e
}

func (p paramChecker) text(field, src string, required bool) {
	p.template(field, src, required, ParseText)
}

func (p paramChecker) html(field, src string, required bool) {
	p.template(field, src, required, ParseHTML)
}

func (p paramChecker) template(field, src string, required bool, parse func(string) (*Template, error)) {
	if src == "" && !required {
		return
	}
	if !p.required(field, src) {
		return
	}
	t, err := parse(src)
	if err != nil {
		p.add(CodeTemplateInvalid, field, "%v", err)
		return
	}
	p.k.c.tmpls[p.key(field)] = t
}

func (p paramChecker) duration(field, s string) (time.Duration, bool) {
	if !p.required(field, s) {
		return 0, false
	}
	d, err := parseWait(s)
	if err != nil {
		p.add(CodeDurationInvalid, field, "%v", err)
		return 0, false
	}
	return d, true
}

func (p paramChecker) wait(w *models.PlaybookWait) {
	switch {
	case w.Duration != "" && w.Until != "":
		p.add(CodeParamConflict, "until", "a wait has a duration or an until expression, not both")
	case w.Duration == "" && w.Until == "":
		p.add(CodeParamRequired, "duration", "a wait needs a duration or an until expression")
	case w.Duration != "":
		if d, ok := p.duration("duration", w.Duration); ok {
			p.k.c.waits[p.id] = d
		}
	default:
		p.expression("until", w.Until, KindTime, true)
	}
}

func (p paramChecker) waitForEvent(w *models.PlaybookWaitForEvent) {
	if p.required("eventType", w.EventType) && !models.ValidEventPattern(w.EventType) {
		p.add(CodeEventTypeInvalid, "eventType", "%q is not an event type or pattern such as task.completed or task.*", w.EventType)
	}
	if w.Condition != "" {
		e, err := CompileEventCondition(w.Condition)
		if err != nil {
			p.add(CodeExpressionInvalid, "condition", "%v", err)
		} else {
			p.k.c.exprs[p.key("condition")] = e
		}
	}
	if d, ok := p.duration("timeout", w.Timeout); ok {
		p.k.c.waits[p.id] = d
	}
}

func (p paramChecker) sendEmail(s *models.PlaybookSendEmail) {
	if p.required("to", s.To) {
		if strings.Contains(s.To, "{{") {
			p.text("to", s.To, true)
		} else if _, err := parseRecipients(s.To); err != nil {
			p.add(CodeEmailInvalid, "to", "%v", err)
		} else {
			p.text("to", s.To, true)
		}
	}
	p.text("subject", s.Subject, true)
	if s.Text == "" && s.HTML == "" {
		p.add(CodeParamRequired, "text", "an email needs a text or an HTML body")
	}
	p.text("text", s.Text, false)
	p.html("html", s.HTML, false)
}

// maxRecipients is the most addresses one email may go to.
const maxRecipients = 50

func parseRecipients(s string) ([]*mail.Address, error) {
	list, err := mail.ParseAddressList(s)
	if err != nil {
		return nil, fmt.Errorf("%q is not a list of email addresses", s)
	}
	if len(list) > maxRecipients {
		return nil, fmt.Errorf("an email goes to at most %d addresses", maxRecipients)
	}
	return list, nil
}

func (p paramChecker) createTask(t *models.PlaybookCreateTask) {
	p.text("title", t.Title, true)
	p.text("description", t.Description, false)
	switch t.Assignee {
	case models.AssigneePartner, models.AssigneeOperator:
	case "":
		p.add(CodeParamRequired, "assignee", "assignee is required: partner or operator")
	default:
		p.add(CodeAssigneeInvalid, "assignee", "%q is not an assignee; use partner or operator", t.Assignee)
	}
	if t.DueInDays < 0 || t.DueInDays > 365 {
		p.add(CodeDueDaysInvalid, "dueInDays", "a task is due within 0 to 365 days, not %d", t.DueInDays)
	}
}

func (p paramChecker) createDocument(d *models.PlaybookCreateDocument) {
	p.text("title", d.Title, true)
	switch {
	case d.Template != "" && d.Body != "":
		p.add(CodeParamConflict, "body", "a document comes from a stored template or a body, not both")
	case d.Template == "" && d.Body == "":
		p.add(CodeParamRequired, "body", "a document needs a stored template or a body")
	case d.Template != "":
		if !templateNamePattern.MatchString(d.Template) {
			p.add(CodeParamInvalid, "template", "%q is not a document template name (lower-case letters, digits, - and _)", d.Template)
		}
	default:
		p.html("body", d.Body, true)
	}
}

func (p paramChecker) accrueCommission(a *models.PlaybookAccrueCommission) {
	switch {
	case a.AmountMinor != 0 && a.AmountExpression != "":
		p.add(CodeParamConflict, "amountExpression", "a commission has a fixed amount or an amount expression, not both")
	case a.AmountExpression != "":
		p.expression("amountExpression", a.AmountExpression, KindAmount, true)
	case a.AmountMinor == 0:
		p.add(CodeParamRequired, "amountMinor", "a commission needs an amount or an amount expression")
	case a.AmountMinor < 0 || a.AmountMinor > MaxAmountMinor:
		p.add(CodeAmountInvalid, "amountMinor", "an amount is more than zero and at most %d minor units, not %d", int64(MaxAmountMinor), a.AmountMinor)
	}
	switch {
	case a.Currency == "":
		p.add(CodeParamRequired, "currency", "currency is required (ISO 4217, e.g. EUR)")
	case !currencyPattern.MatchString(a.Currency):
		p.add(CodeCurrencyInvalid, "currency", "%q is not an ISO 4217 currency code such as EUR", a.Currency)
	}
	if utf8.RuneCountInString(a.Reason) > 500 {
		p.add(CodeParamInvalid, "reason", "a reason has at most 500 characters")
	} else {
		p.text("reason", a.Reason, true)
	}
}

func (p paramChecker) callWebhook(w *models.PlaybookCallWebhook) {
	if p.required("url", w.URL) {
		if err := checkWebhookURL(w.URL); err != nil {
			p.add(CodeURLInvalid, "url", "%v", err)
		}
	}
	p.text("body", w.Body, false)
}

func checkWebhookURL(s string) error {
	if len(s) > 2048 {
		return fmt.Errorf("a URL has at most 2048 characters")
	}
	u, err := url.Parse(s)
	if err != nil || !u.IsAbs() || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.Hostname() == "" {
		return fmt.Errorf("%q is not an absolute http or https URL", s)
	}
	if u.User != nil {
		return fmt.Errorf("a webhook URL cannot carry credentials")
	}
	return nil
}

func (p paramChecker) updatePartner(u *models.PlaybookUpdatePartner) {
	set := 0
	for _, v := range []string{u.LevelID, u.Status, u.CustomField} {
		if v != "" {
			set++
		}
	}
	switch {
	case set == 0:
		p.add(CodeParamRequired, "levelId", "an update sets a level, a status or a custom field")
	case set > 1:
		p.add(CodeParamConflict, "levelId", "an update sets one of level, status or custom field")
	}
	if len(u.LevelID) > 36 || (u.LevelID != "" && strings.TrimSpace(u.LevelID) != u.LevelID) {
		p.add(CodeParamInvalid, "levelId", "%q is not a level id", u.LevelID)
	}
	if u.Status != "" && !slices.Contains(partnerStatuses, u.Status) {
		p.add(CodePartnerStatusInvalid, "status", "%q is not a partner status; statuses are %s", u.Status, strings.Join(partnerStatuses, ", "))
	}
	if u.CustomField != "" && !nodeIDPattern.MatchString(u.CustomField) {
		p.add(CodeParamInvalid, "customField", "%q is not a custom field name (letters, digits and _)", u.CustomField)
	}
	if u.CustomValue != "" && u.CustomField == "" {
		p.add(CodeParamInvalid, "customValue", "a custom value needs a custom field")
	}
	if u.CustomField != "" {
		p.text("customValue", u.CustomValue, false)
	}
}

func (p paramChecker) emitEvent(e *models.PlaybookEmitEvent) {
	if p.required("type", e.Type) {
		switch {
		case !models.ValidEventType(e.Type):
			p.add(CodeEventTypeInvalid, "type", "%q is not an event type such as onboarding.reminded", e.Type)
		case models.ReservedEventType(e.Type):
			p.add(CodeEventTypeReserved, "type", "%q lies in a namespace the service keeps for its own events", e.Type)
		}
	}
	if e.Payload == "" {
		return
	}
	p.text("payload", e.Payload, true)
	if t := p.k.c.tmpls[p.key("payload")]; t != nil && t.IsStatic() && !isJSONObject(e.Payload) {
		p.add(CodeParamInvalid, "payload", "the payload is not a JSON object")
	}
}

func isJSONObject(s string) bool {
	var m map[string]any
	return json.Unmarshal([]byte(s), &m) == nil && m != nil
}

// outgoing labels each kind accepts; "" stands for next.
func labelsOf(kind string) []string {
	switch kind {
	case models.NodeCondition:
		return []string{models.EdgeTrue, models.EdgeFalse}
	case models.NodeWaitForEvent:
		return []string{models.EdgeNext, models.EdgeTimeout}
	}
	return []string{models.EdgeNext}
}

func normLabel(l string) string {
	if l == "" {
		return models.EdgeNext
	}
	return l
}

func (k *checker) kindOf(id string) (string, bool) {
	i, ok := k.c.index[id]
	if !ok {
		return "", false
	}
	return k.c.graph.Nodes[i].Kind, true
}

func (k *checker) checkEdges(edges []models.PlaybookEdge) {
	type outKey struct{ from, label string }
	type pairKey struct{ from, to string }
	seenLabel := map[outKey]bool{}
	seenPair := map[pairKey]bool{}
	for j, e := range edges {
		edge := &j
		path := fmt.Sprintf("edges[%d]", j)
		fromKind, fromOK := k.kindOf(e.From)
		_, toOK := k.kindOf(e.To)
		if !fromOK {
			k.add(CodeEdgeFromUnknown, path+".from", e.From, edge, "edge %d leaves %q, which is not a node of the graph", j, e.From)
		}
		if !toOK {
			k.add(CodeEdgeToUnknown, path+".to", e.To, edge, "edge %d leads to %q, which is not a node of the graph", j, e.To)
		} else if k.c.graph.Nodes[k.c.index[e.To]].Kind == models.NodeTrigger {
			k.add(CodeEdgeIntoTrigger, path+".to", e.To, edge, "edge %d leads into the trigger %q; runs start only from events", j, e.To)
			toOK = false
		}
		if !fromOK {
			continue
		}
		label := normLabel(e.Label)
		if !slices.Contains(labelsOf(fromKind), label) {
			k.add(CodeEdgeLabelInvalid, path+".label", e.From, edge, "an edge out of a %s node is labelled %s, not %q", fromKind, strings.Join(labelsOf(fromKind), " or "), e.Label)
			continue
		}
		if fromKind == models.NodeParallel {
			if toOK && seenPair[pairKey{e.From, e.To}] {
				k.add(CodeEdgeDuplicate, path, e.From, edge, "%q already has an edge to %q", e.From, e.To)
				continue
			}
			seenPair[pairKey{e.From, e.To}] = true
		} else {
			if seenLabel[outKey{e.From, label}] {
				k.add(CodeEdgeLabelRepeated, path+".label", e.From, edge, "%q already has a %s edge; only parallel nodes fan out", e.From, label)
				continue
			}
			seenLabel[outKey{e.From, label}] = true
		}
		if toOK {
			k.c.out[e.From] = append(k.c.out[e.From], j)
			k.c.in[e.To] = append(k.c.in[e.To], j)
		}
	}
}

func (k *checker) hasLabel(id, label string) bool {
	for _, j := range k.c.out[id] {
		if normLabel(k.c.graph.Edges[j].Label) == label {
			return true
		}
	}
	return false
}

func (k *checker) checkBranches() {
	for i, n := range k.c.graph.Nodes {
		if k.c.index[n.ID] != i || !nodeIDPattern.MatchString(n.ID) {
			continue
		}
		path := fmt.Sprintf("nodes[%d]", i)
		switch n.Kind {
		case models.NodeTrigger:
			if len(k.c.out[n.ID]) == 0 {
				k.add(CodeBranchMissing, path, n.ID, nil, "the trigger %q needs an edge to the first step", n.ID)
			}
		case models.NodeCondition:
			for _, l := range []string{models.EdgeTrue, models.EdgeFalse} {
				if !k.hasLabel(n.ID, l) {
					k.add(CodeBranchMissing, path, n.ID, nil, "condition %q needs a %s edge", n.ID, l)
				}
			}
		case models.NodeWaitForEvent:
			for _, l := range []string{models.EdgeNext, models.EdgeTimeout} {
				if !k.hasLabel(n.ID, l) {
					k.add(CodeBranchMissing, path, n.ID, nil, "wait_for_event %q needs a %s edge", n.ID, l)
				}
			}
		case models.NodeParallel:
			if len(k.c.out[n.ID]) < 2 {
				k.add(CodeParallelTooFewBranches, path, n.ID, nil, "parallel %q needs at least two outgoing edges, it has %d", n.ID, len(k.c.out[n.ID]))
			}
		case models.NodeJoin:
			if len(k.c.in[n.ID]) < 2 {
				k.add(CodeJoinTooFewIncoming, path, n.ID, nil, "join %q needs at least two incoming edges, it has %d", n.ID, len(k.c.in[n.ID]))
			}
		}
	}
}

func (k *checker) successors(id string) []string {
	var s []string
	for _, j := range k.c.out[id] {
		s = append(s, k.c.graph.Edges[j].To)
	}
	return s
}

func (k *checker) checkReachable() {
	if k.c.trigger == "" {
		return
	}
	seen := map[string]bool{k.c.trigger: true}
	queue := []string{k.c.trigger}
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		for _, t := range k.successors(id) {
			if !seen[t] {
				seen[t] = true
				queue = append(queue, t)
			}
		}
	}
	for i, n := range k.c.graph.Nodes {
		if k.c.index[n.ID] != i || !nodeIDPattern.MatchString(n.ID) || seen[n.ID] {
			continue
		}
		k.add(CodeNodeUnreachable, fmt.Sprintf("nodes[%d]", i), n.ID, nil, "no path from the trigger reaches %q", n.ID)
	}
}

// checkCycles finds the strongly connected components of the graph without its wait and
// wait_for_event nodes (Tarjan's algorithm, iterative); each cycle among them passes through
// no wait.
func (k *checker) checkCycles() {
	isWait := func(id string) bool {
		kind, _ := k.kindOf(id)
		return kind == models.NodeWait || kind == models.NodeWaitForEvent
	}
	var ids []string
	for i, n := range k.c.graph.Nodes {
		if k.c.index[n.ID] == i && nodeIDPattern.MatchString(n.ID) && !isWait(n.ID) {
			ids = append(ids, n.ID)
		}
	}
	succ := func(id string) []string {
		var s []string
		for _, t := range k.successors(id) {
			if !isWait(t) {
				s = append(s, t)
			}
		}
		return s
	}
	index := map[string]int{}
	low := map[string]int{}
	onStack := map[string]bool{}
	var stack []string
	next := 0
	type frame struct {
		id   string
		succ []string
		i    int
	}
	for _, root := range ids {
		if _, done := index[root]; done {
			continue
		}
		calls := []*frame{{id: root, succ: succ(root)}}
		index[root], low[root] = next, next
		next++
		stack = append(stack, root)
		onStack[root] = true
		for len(calls) > 0 {
			f := calls[len(calls)-1]
			if f.i < len(f.succ) {
				w := f.succ[f.i]
				f.i++
				if _, seen := index[w]; !seen {
					index[w], low[w] = next, next
					next++
					stack = append(stack, w)
					onStack[w] = true
					calls = append(calls, &frame{id: w, succ: succ(w)})
				} else if onStack[w] {
					low[f.id] = min(low[f.id], index[w])
				}
				continue
			}
			calls = calls[:len(calls)-1]
			if len(calls) > 0 {
				parent := calls[len(calls)-1]
				low[parent.id] = min(low[parent.id], low[f.id])
			}
			if low[f.id] != index[f.id] {
				continue
			}
			var comp []string
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[w] = false
				comp = append(comp, w)
				if w == f.id {
					break
				}
			}
			if len(comp) > 1 || slices.Contains(succ(f.id), f.id) {
				k.reportCycle(comp)
			}
		}
	}
}

func (k *checker) reportCycle(comp []string) {
	slices.SortFunc(comp, func(a, b string) int { return k.c.index[a] - k.c.index[b] })
	first := comp[0]
	k.add(CodeCycleWithoutWait, fmt.Sprintf("nodes[%d]", k.c.index[first]), first, nil,
		"the cycle through %s passes through no wait or wait_for_event node", strings.Join(comp, ", "))
}

// computeReach records, for every node, the nodes reachable from it by one or more edges.
func (c *Compiled) computeReach() {
	c.reach = make(map[string]map[string]bool, len(c.index))
	for id := range c.index {
		seen := map[string]bool{}
		queue := []string{id}
		for len(queue) > 0 {
			cur := queue[0]
			queue = queue[1:]
			for _, j := range c.out[cur] {
				t := c.graph.Edges[j].To
				if !seen[t] {
					seen[t] = true
					queue = append(queue, t)
				}
			}
		}
		c.reach[id] = seen
	}
}
