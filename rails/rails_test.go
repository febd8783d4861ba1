package rails_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v82/webhook"

	"github.com/partnerd/partnerd/rails"
	"github.com/partnerd/partnerd/rails/railstest"
)

func TestDecimalWritesMinorUnitsInTheCurrencysExponent(t *testing.T) {
	for _, c := range []struct {
		minor    int64
		currency string
		want     string
	}{
		{12000, "EUR", "120.00"}, {4567, "eur", "45.67"}, {5, "USD", "0.05"}, {0, "EUR", "0.00"},
		{500, "JPY", "500"}, {1234, "KWD", "1.234"}, {-250, "EUR", "-2.50"}, {1_000_000_000_000_000, "EUR", "10000000000000.00"},
	} {
		if got := rails.Decimal(c.minor, c.currency); got != c.want {
			t.Errorf("Decimal(%d, %s) = %s, want %s", c.minor, c.currency, got, c.want)
		}
	}
}

func TestAStripeTransferGoesToTheConnectedAccountWithThePayoutAsIdempotencyKey(t *testing.T) {
	mock := railstest.StripeMock(t)
	s := &rails.Stripe{URL: mock}
	ctx := context.Background()
	out, err := s.Transfer(ctx, "sk_test_partnerd", rails.TransferOrder{PayoutID: "01936f3b-0000-7000-8000-000000000001", WithdrawalID: "w1", TenantID: "t1",
		Account: "acct_1Partner", Amount: 250_00, Currency: "EUR"})
	if err != nil {
		t.Fatal(err)
	}
	if !out.Settled || !out.Paid || !strings.HasPrefix(out.Reference, "tr_") {
		t.Fatalf("outcome %+v", out)
	}
	// The same payout again is the same request: Stripe answers it from the idempotency key.
	again, err := s.Transfer(ctx, "sk_test_partnerd", rails.TransferOrder{PayoutID: "01936f3b-0000-7000-8000-000000000001", WithdrawalID: "w1", TenantID: "t1",
		Account: "acct_1Partner", Amount: 250_00, Currency: "EUR"})
	if err != nil || !again.Paid {
		t.Fatalf("retry %+v, %v", again, err)
	}
}

func TestAStripeTransferWithoutAConnectedAccountIsRefusedWithAReason(t *testing.T) {
	s := &rails.Stripe{URL: "http://127.0.0.1:1"} // refused before any call
	_, err := s.Transfer(context.Background(), "sk_test_partnerd", rails.TransferOrder{PayoutID: "p", Account: "not-an-account", Amount: 1, Currency: "EUR"})
	if !rails.IsRejection(err) || !strings.Contains(err.Error(), "connected account") {
		t.Fatalf("err = %v, want a rejection naming the connected account", err)
	}
}

func TestStripesRefusalOfARequestIsAFinalRejectionWithStripesMessage(t *testing.T) {
	// Stripe's recorded refusal of a transfer to a deleted account (stripe-mock knows no accounts).
	s := &rails.Stripe{URL: railstest.StripeFixture(t)}
	_, err := s.Transfer(context.Background(), "sk_test_partnerd", rails.TransferOrder{PayoutID: "p-missing", Account: railstest.MissingStripeAccount, Amount: 1, Currency: "EUR"})
	if !rails.IsRejection(err) || err.Error() != "stripe: No such destination: 'acct_1Missing' (resource_missing)" {
		t.Fatalf("err = %v, want Stripe's refusal", err)
	}
}

func TestATransferMadeBeforeIsFoundNotMadeTwice(t *testing.T) {
	// Stripe keeps idempotency keys for 24 hours; a payout still retrying after that finds its
	// transfer by its group and metadata.
	s := &rails.Stripe{URL: railstest.StripeFixture(t)}
	out, err := s.Transfer(context.Background(), "sk_test_partnerd", rails.TransferOrder{PayoutID: railstest.PaidStripePayout, Account: "acct_1Nv0FGQ9RKHgCVdK", Amount: 400, Currency: "EUR"})
	if err != nil || !out.Paid || out.Reference != "tr_1KnownTransfer" {
		t.Fatalf("outcome %+v, %v, want the known transfer", out, err)
	}
}

func TestAKeyStripeRefusesIsRetriedNotARejection(t *testing.T) {
	// Finance can fix the key while the payout retries; stripe-mock refuses live keys.
	s := &rails.Stripe{URL: railstest.StripeMock(t)}
	_, err := s.Transfer(context.Background(), "sk_live_notTestMode", rails.TransferOrder{PayoutID: "p-key", Account: "acct_1Partner", Amount: 1, Currency: "EUR"})
	if err == nil || rails.IsRejection(err) || !strings.Contains(err.Error(), "authenticate") {
		t.Fatalf("err = %v, want a retryable error carrying Stripe's message", err)
	}
}

func TestOnboardingCreatesAnExpressAccountAndAnOnboardingLink(t *testing.T) {
	s := &rails.Stripe{URL: railstest.StripeMock(t)}
	ob, err := s.Onboard(context.Background(), "sk_test_partnerd", rails.OnboardOrder{PartnerID: "p1", TenantID: "t1", Country: "DE",
		RefreshURL: "https://partners.example.com/portal/payouts", ReturnURL: "https://partners.example.com/portal/payouts?done=1"})
	if err != nil {
		t.Fatal(err)
	}
	if !rails.StripeAccountID.MatchString(ob.AccountID) || !strings.HasPrefix(ob.URL, "https://") {
		t.Fatalf("onboarding %+v", ob)
	}
	// With an account already, only a fresh link is made for it.
	again, err := s.Onboard(context.Background(), "sk_test_partnerd", rails.OnboardOrder{AccountID: "acct_1Known", RefreshURL: "https://a.example/r", ReturnURL: "https://a.example/r"})
	if err != nil || again.AccountID != "acct_1Known" || again.URL == "" {
		t.Fatalf("resumed onboarding %+v, %v", again, err)
	}
}

func transferEvent(typ string, reversed bool) []byte {
	ev := map[string]any{"id": "evt_1", "object": "event", "api_version": "2020-08-27", "type": typ, "created": time.Now().Unix(),
		"data": map[string]any{"object": map[string]any{"id": "tr_1Q", "object": "transfer", "amount": 250_00, "currency": "eur", "reversed": reversed,
			"destination": "acct_1Partner", "metadata": map[string]string{"payout_id": "p1", "withdrawal_id": "w1", "tenant_id": "t1"}}}}
	raw, _ := json.Marshal(ev)
	return raw
}

func TestStripesWebhookIsVerifiedWithStripeGosSignatureCheck(t *testing.T) {
	secret := "whsec_" + base64.StdEncoding.EncodeToString([]byte("partnerd-test-webhook-secret-32b"))
	payload := transferEvent("transfer.created", false)
	signed := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: payload, Secret: secret, Timestamp: time.Now()})
	ev, err := rails.VerifyWebhook(signed.Payload, signed.Header, secret)
	if err != nil {
		t.Fatal(err)
	}
	if ev.Type != "transfer.created" || ev.TransferID != "tr_1Q" || ev.PayoutID != "p1" || ev.WithdrawalID != "w1" || ev.Amount != 250_00 || ev.Currency != "EUR" {
		t.Fatalf("event %+v", ev)
	}
	t.Run("a body changed after signing is refused", func(t *testing.T) {
		tampered := []byte(strings.Replace(string(signed.Payload), "25000", "99999", 1))
		if _, err := rails.VerifyWebhook(tampered, signed.Header, secret); err == nil {
			t.Fatal("a tampered body verified")
		}
	})
	t.Run("another secret's signature is refused", func(t *testing.T) {
		if _, err := rails.VerifyWebhook(signed.Payload, signed.Header, "whsec_other"); err == nil {
			t.Fatal("a foreign signature verified")
		}
	})
	t.Run("an old signature is refused", func(t *testing.T) {
		old := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: payload, Secret: secret, Timestamp: time.Now().Add(-time.Hour)})
		if _, err := rails.VerifyWebhook(old.Payload, old.Header, secret); err == nil {
			t.Fatal("an hour-old signature verified")
		}
	})
}

func TestAPayPalBatchIsOneRequestAndItsItemsSettleWithPayPalsReasons(t *testing.T) {
	vars := map[string]string{"BATCH": "batch-2026-11-28", "PAYOUT_1": "payout-1", "PAYOUT_2": "payout-2", "EMAIL_1": "ada@partner.example", "EMAIL_2": "bob@partner.example",
		"BASIC": base64.StdEncoding.EncodeToString([]byte("client-id:client-secret"))}
	replay := railstest.NewReplay(t, "testdata/paypal/batch.json", vars)
	p := &rails.PayPal{URL: replay.URL}
	ctx := context.Background()
	sent, err := p.Send(ctx, "client-id", "client-secret", "batch-2026-11-28", []rails.PayPalItem{
		{PayoutID: "payout-1", Email: "ada@partner.example", Amount: 120_00, Currency: "EUR"},
		{PayoutID: "payout-2", Email: "bob@partner.example", Amount: 45_67, Currency: "EUR"},
	})
	if err != nil || sent.BatchID != "5UXD2E8A7EBQJ" || sent.Status != "PENDING" {
		t.Fatalf("sent %+v, %v", sent, err)
	}
	got, err := p.Batch(ctx, "client-id", "client-secret", sent.BatchID)
	if err != nil {
		t.Fatal(err)
	}
	if o := got.Items["payout-1"]; !o.Settled || !o.Paid || o.Reference != "8AELMXH8UB2P8" {
		t.Fatalf("item 1 %+v", o)
	}
	if o := got.Items["payout-2"]; !o.Settled || o.Paid || !strings.Contains(o.Reason, "Receiver's account is locked or inactive") {
		t.Fatalf("item 2 %+v", o)
	}
	replay.Done()
}

func TestPayPalRefusingABatchIsARejectionWithItsMessage(t *testing.T) {
	replay := railstest.NewReplay(t, "testdata/paypal/insufficient_funds.json", map[string]string{"BATCH": "b1"})
	_, err := (&rails.PayPal{URL: replay.URL}).Send(context.Background(), "id", "secret", "b1", []rails.PayPalItem{{PayoutID: "p", Email: "a@b.example", Amount: 1, Currency: "EUR"}})
	if !rails.IsRejection(err) || !strings.Contains(err.Error(), "Sender does not have sufficient funds") || !strings.Contains(err.Error(), "INSUFFICIENT_FUNDS") {
		t.Fatalf("err = %v", err)
	}
	replay.Done()
}

func TestAWisePayoutQuotesTransfersFundsAndIsAskedUntilSent(t *testing.T) {
	vars := map[string]string{"PROFILE": "16000001", "TOKEN": "wise-token", "PAYOUT": "01936f3b-0000-7000-8000-0000000000aa"}
	replay := railstest.NewReplay(t, "testdata/wise/recipient.json", vars)
	w := &rails.Wise{URL: replay.URL}
	ctx := context.Background()
	out, err := w.Pay(ctx, "wise-token", rails.WiseOrder{PayoutID: vars["PAYOUT"], ProfileID: "16000001", Recipient: rails.WiseRecipient{RecipientID: "40000000"}, Amount: 250_50, Currency: "EUR"})
	if err != nil || out.Settled || out.Reference != "16521632" || out.Status != "processing" {
		t.Fatalf("pay %+v, %v", out, err)
	}
	out, err = w.Transfer(ctx, "wise-token", out.Reference)
	if err != nil || !out.Settled || !out.Paid {
		t.Fatalf("transfer %+v, %v", out, err)
	}
	replay.Done()
}

func TestAWiseTransferThatBouncesFailsWithWisesStatus(t *testing.T) {
	vars := map[string]string{"PROFILE": "16000001", "PAYOUT": "01936f3b-0000-7000-8000-0000000000bb"}
	replay := railstest.NewReplay(t, "testdata/wise/iban_bounced.json", vars)
	w := &rails.Wise{URL: replay.URL}
	ctx := context.Background()
	out, err := w.Pay(ctx, "t", rails.WiseOrder{PayoutID: vars["PAYOUT"], ProfileID: "16000001",
		Recipient: rails.WiseRecipient{IBAN: "DE89370400440532013000", AccountHolder: "Northwind Traders GmbH"}, Amount: 99_00, Currency: "EUR"})
	if err != nil || out.Reference != "16521700" {
		t.Fatalf("pay %+v, %v", out, err)
	}
	out, err = w.Transfer(ctx, "t", out.Reference)
	if err != nil || !out.Settled || out.Paid || !strings.Contains(out.Reason, "bounced back") {
		t.Fatalf("transfer %+v, %v", out, err)
	}
	replay.Done()
}
