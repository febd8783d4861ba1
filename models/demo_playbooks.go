package models

// DemoOnboardingGraph is the demo tenant's onboarding playbook: when an application is
// approved, it welcomes the applicant, gives the new partner its first task, waits for the
// partner to accept an agreement (agreement.accepted) and reminds it after three days if it
// has not.
func DemoOnboardingGraph() PlaybookGraph {
	return PlaybookGraph{
		Trigger: PlaybookTrigger{EventType: EventPartnerApproved},
		Nodes: []PlaybookNode{
			{ID: "approved", Kind: NodeTrigger, Name: "Application approved"},
			{ID: "welcome", Kind: NodeSendEmail, Name: "Welcome email", SendEmail: &PlaybookSendEmail{
				To:      "{{.event.payload.contactEmail}}",
				Subject: "Welcome to the partner program, {{.event.payload.organisation}}",
				Text:    "Hello,\n\n{{.event.payload.organisation}} is now a partner. Your first steps are waiting in the portal: sign the partner agreement and complete your profile.\n",
			}},
			{ID: "profile", Kind: NodeCreateTask, Name: "Profile task", CreateTask: &PlaybookCreateTask{
				Title: "Complete your partner profile", Assignee: AssigneePartner, DueInDays: 7}},
			{ID: "signed", Kind: NodeWaitForEvent, Name: "Agreement accepted?", WaitForEvent: &PlaybookWaitForEvent{
				EventType: EventAgreementAccepted, Timeout: "3d"}},
			{ID: "thanks", Kind: NodeEmitEvent, Name: "Agreement signed", EmitEvent: &PlaybookEmitEvent{
				Type: "onboarding.agreement_signed", Payload: `{"partnerId":"{{.event.partnerId}}"}`}},
			{ID: "reminder", Kind: NodeSendEmail, Name: "Reminder", SendEmail: &PlaybookSendEmail{
				To:      "{{.event.payload.contactEmail}}",
				Subject: "Reminder: your partner agreement is waiting",
				Text:    "Hello,\n\nThe partner agreement of {{.event.payload.organisation}} is still unsigned. It takes two minutes in the portal.\n",
			}},
		},
		Edges: []PlaybookEdge{
			{From: "approved", To: "welcome"}, {From: "welcome", To: "profile"},
			{From: "profile", To: "signed"}, {From: "signed", To: "thanks", Label: EdgeNext},
			{From: "signed", To: "reminder", Label: EdgeTimeout},
		},
	}
}

// DemoDealWonGraph is the demo tenant's deal-won playbook: big wins (10 000.00 and more) get a
// kick-off task for the partner and a certificate document; every win is announced as an event.
func DemoDealWonGraph() PlaybookGraph {
	return PlaybookGraph{
		Trigger: PlaybookTrigger{EventType: EventDealWon},
		Nodes: []PlaybookNode{
			{ID: "won", Kind: NodeTrigger, Name: "Deal won"},
			{ID: "big", Kind: NodeCondition, Name: "10 000 or more?", Condition: &PlaybookCondition{Expression: "event.payload.amountMinor >= 1000000"}},
			{ID: "fan", Kind: NodeParallel},
			{ID: "kickoff", Kind: NodeCreateTask, Name: "Kick-off task", CreateTask: &PlaybookCreateTask{
				Title: "Plan the kick-off with {{.event.payload.customerCompany}}", Assignee: AssigneePartner, DueInDays: 5}},
			{ID: "certificate", Kind: NodeCreateDocument, Name: "Certificate", CreateDocument: &PlaybookCreateDocument{
				Title: "Deal won: {{.event.payload.customerCompany}}",
				Body:  "<h1>Congratulations, {{.partner.name}}</h1><p>You won {{.event.payload.customerCompany}}.</p>"}},
			{ID: "together", Kind: NodeJoin},
			{ID: "announce", Kind: NodeEmitEvent, Name: "Announce", EmitEvent: &PlaybookEmitEvent{
				Type: "sales.win_announced", Payload: `{"dealId":"{{.event.payload.dealId}}","customer":"{{.event.payload.customerCompany}}"}`}},
		},
		Edges: []PlaybookEdge{
			{From: "won", To: "big"}, {From: "big", To: "fan", Label: EdgeTrue}, {From: "big", To: "announce", Label: EdgeFalse},
			{From: "fan", To: "kickoff"}, {From: "fan", To: "certificate"},
			{From: "kickoff", To: "together"}, {From: "certificate", To: "together"}, {From: "together", To: "announce"},
		},
	}
}
