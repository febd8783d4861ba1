package playbook

import (
	"fmt"
	"strings"
)

// Problem codes of graph validation, each naming one rule.
const (
	// CodeGraphTooLarge: more than MaxNodes nodes or MaxEdges edges.
	CodeGraphTooLarge = "GRAPH_TOO_LARGE"
	// CodeTriggerMissing: no node of kind trigger.
	CodeTriggerMissing = "TRIGGER_MISSING"
	// CodeTriggerDuplicate: a second node of kind trigger.
	CodeTriggerDuplicate = "TRIGGER_DUPLICATE"
	// CodeNodeIDInvalid: a node id that is empty, too long or not an identifier.
	CodeNodeIDInvalid = "NODE_ID_INVALID"
	// CodeNodeIDDuplicate: a node id used by an earlier node.
	CodeNodeIDDuplicate = "NODE_ID_DUPLICATE"
	// CodeNodeKindUnknown: a node kind outside models.PlaybookNodeKinds.
	CodeNodeKindUnknown = "NODE_KIND_UNKNOWN"
	// CodeNameTooLong: a node name longer than 200 characters.
	CodeNameTooLong = "NAME_TOO_LONG"
	// CodeParamsMissing: a node without the parameters of its kind.
	CodeParamsMissing = "PARAMS_MISSING"
	// CodeParamsForeign: a node carrying the parameters of another kind.
	CodeParamsForeign = "PARAMS_FOREIGN"
	// CodeEdgeFromUnknown: an edge from a node that does not exist.
	CodeEdgeFromUnknown = "EDGE_FROM_UNKNOWN"
	// CodeEdgeToUnknown: an edge to a node that does not exist.
	CodeEdgeToUnknown = "EDGE_TO_UNKNOWN"
	// CodeEdgeIntoTrigger: an edge that leads back to the trigger.
	CodeEdgeIntoTrigger = "EDGE_INTO_TRIGGER"
	// CodeEdgeLabelInvalid: a label its source's kind does not have.
	CodeEdgeLabelInvalid = "EDGE_LABEL_INVALID"
	// CodeEdgeLabelRepeated: a second edge with the same label out of a node that follows one.
	CodeEdgeLabelRepeated = "EDGE_LABEL_REPEATED"
	// CodeEdgeDuplicate: a second edge from a parallel node to the same node.
	CodeEdgeDuplicate = "EDGE_DUPLICATE"
	// CodeBranchMissing: a trigger without its edge, a condition without its true or false
	// edge, a wait_for_event without its next or timeout edge.
	CodeBranchMissing = "BRANCH_MISSING"
	// CodeParallelTooFewBranches: a parallel node with fewer than two outgoing edges.
	CodeParallelTooFewBranches = "PARALLEL_TOO_FEW_BRANCHES"
	// CodeJoinTooFewIncoming: a join node with fewer than two incoming edges.
	CodeJoinTooFewIncoming = "JOIN_TOO_FEW_INCOMING"
	// CodeNodeUnreachable: a node no path from the trigger reaches.
	CodeNodeUnreachable = "NODE_UNREACHABLE"
	// CodeCycleWithoutWait: a cycle that passes through no wait or wait_for_event node.
	CodeCycleWithoutWait = "CYCLE_WITHOUT_WAIT"
	// CodeExpressionInvalid: an expression that does not compile or has the wrong type.
	CodeExpressionInvalid = "EXPRESSION_INVALID"
	// CodeTemplateInvalid: a template that does not parse.
	CodeTemplateInvalid = "TEMPLATE_INVALID"
	// CodeParamRequired: a required parameter left empty.
	CodeParamRequired = "PARAM_REQUIRED"
	// CodeParamConflict: parameters of which only one may be set, set together.
	CodeParamConflict = "PARAM_CONFLICT"
	// CodeParamInvalid: a parameter of the wrong shape (name, length, JSON payload).
	CodeParamInvalid = "PARAM_INVALID"
	// CodeEventTypeInvalid: an event type or pattern that is not well formed.
	CodeEventTypeInvalid = "EVENT_TYPE_INVALID"
	// CodeEventTypeReserved: an emitted event type in a namespace the service keeps.
	CodeEventTypeReserved = "EVENT_TYPE_RESERVED"
	// CodeEmailInvalid: a recipient list that is not a list of email addresses.
	CodeEmailInvalid = "EMAIL_INVALID"
	// CodeCurrencyInvalid: a currency that is not three capital letters (ISO 4217).
	CodeCurrencyInvalid = "CURRENCY_INVALID"
	// CodeAmountInvalid: an amount that is not more than zero or is too large.
	CodeAmountInvalid = "AMOUNT_INVALID"
	// CodeDurationInvalid: a duration that does not parse, is not more than zero or exceeds
	// 365 days.
	CodeDurationInvalid = "DURATION_INVALID"
	// CodeURLInvalid: a webhook URL that is not an absolute http or https URL.
	CodeURLInvalid = "URL_INVALID"
	// CodePartnerStatusInvalid: a partner status that does not exist.
	CodePartnerStatusInvalid = "PARTNER_STATUS_INVALID"
	// CodeAssigneeInvalid: a task assignee other than partner or operator.
	CodeAssigneeInvalid = "ASSIGNEE_INVALID"
	// CodeDueDaysInvalid: a task due in fewer than 0 or more than 365 days.
	CodeDueDaysInvalid = "DUE_DAYS_INVALID"
)

// Problem is one thing wrong with a graph.
type Problem struct {
	// Code is one of the Code constants.
	Code    string `json:"code" doc:"Rule broken, e.g. NODE_UNREACHABLE"`
	Message string `json:"message" doc:"What is wrong, for people"`
	// Path locates the value in the graph's JSON: "trigger.eventType", "nodes[2].sendEmail.to",
	// "edges[4].label".
	Path string `json:"path" doc:"Where in the graph JSON, e.g. nodes[2].sendEmail.to"`
	// NodeID is the node concerned, when there is one.
	NodeID string `json:"nodeId,omitempty" doc:"Node concerned"`
	// Edge is the index of the edge concerned, when there is one.
	Edge *int `json:"edge,omitempty" doc:"Index of the edge concerned"`
}

// String shows the problem as path: code: message.
func (p Problem) String() string {
	return fmt.Sprintf("%s: %s: %s", p.Path, p.Code, p.Message)
}

// ValidationError is returned for a graph with problems; it lists all of them.
type ValidationError struct {
	Problems []Problem
}

// Error lists the problems in one line.
func (e *ValidationError) Error() string {
	parts := make([]string, 0, len(e.Problems))
	for _, p := range e.Problems {
		parts = append(parts, p.String())
	}
	return "invalid playbook graph: " + strings.Join(parts, "; ")
}
