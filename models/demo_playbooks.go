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

// DemoHealthCriticalGraph is the demo tenant's health playbook: when a partner's health tier
// becomes critical, the partner managers get a task to call the partner within two days.
func DemoHealthCriticalGraph() PlaybookGraph {
	return PlaybookGraph{
		Trigger: PlaybookTrigger{EventType: EventPartnerHealthChanged, Condition: `event.payload.toTier == "critical"`},
		Nodes: []PlaybookNode{
			{ID: "critical", Kind: NodeTrigger, Name: "Health became critical"},
			{ID: "call", Kind: NodeCreateTask, Name: "Call the partner", CreateTask: &PlaybookCreateTask{
				Title:       "Call {{.partner.name}}: partner health is critical",
				Description: "The health score fell to {{.event.payload.score}} (was {{.event.payload.fromTier}}). Open the partner's health card to see which components dropped.",
				Assignee:    AssigneeOperator, DueInDays: 2}},
		},
		Edges: []PlaybookEdge{{From: "critical", To: "call"}},
	}
}

// DemoHealthModel is the demo tenant's health model: won revenue in EUR over 90 days, NPS and
// CSAT, open tickets, SLA breaches and sign-ins; healthy from 70, at risk from 40, else critical.
func DemoHealthModel() HealthModel {
	return HealthModel{
		Components: []HealthComponent{
			{Source: HealthWonRevenue, Label: "Won revenue (90 days)", Weight: 3, ZeroAt: 0, FullAt: 5_000_000, Currency: "EUR", WindowDays: 90},
			{Source: HealthNPS, Label: "NPS", Weight: 2, ZeroAt: -50, FullAt: 50, WindowDays: 90},
			{Source: HealthCSAT, Label: "CSAT", Weight: 2, ZeroAt: 40, FullAt: 90, WindowDays: 90},
			{Source: HealthOpenTickets, Label: "Open tickets", Weight: 1, ZeroAt: 5, FullAt: 0},
			{Source: HealthSLABreaches, Label: "SLA breaches (90 days)", Weight: 2, ZeroAt: 3, FullAt: 0, WindowDays: 90},
			{Source: HealthDaysSinceSignIn, Label: "Days since a sign-in", Weight: 1, ZeroAt: 30, FullAt: 0},
		},
		Tiers: []HealthTier{{Name: "healthy", MinScore: 70}, {Name: "at_risk", MinScore: 40}, {Name: "critical", MinScore: 0}},
		Hour:  DefaultHealthHour,
	}
}
