package api

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/partnerd/partnerd/api/authn"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

type problemBody struct {
	Status int    `json:"status"`
	Code   string `json:"code"`
	Detail string `json:"detail"`
	Errors []struct {
		Location string `json:"location"`
		Value    any    `json:"value"`
	} `json:"errors"`
}

func TestAgreementsGateDealsAndWithdrawalsUntilAccepted(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		e := newContentEnv(t, st, Config{})
		h := e.h
		text := "# Reseller agreement\n\n1. Term: one year.\r\n2. Ünïcode stays byte for byte.\n"
		res := do(t, h, http.MethodPost, "/api/agreements", jsonBody(t, map[string]any{"kind": "partner_agreement", "title": "Reseller agreement"}), e.op...)
		if res.Status != http.StatusCreated {
			t.Fatalf("create = %d: %s", res.Status, res.Body)
		}
		a := decode[Agreement](t, res)
		res = do(t, h, http.MethodPost, "/api/agreements/"+a.ID+"/versions", jsonBody(t, map[string]any{"markdown": text}), e.op...)
		if res.Status != http.StatusCreated {
			t.Fatalf("version = %d: %s", res.Status, res.Body)
		}
		v := decode[AgreementVersion](t, res)
		if v.Status != "draft" {
			t.Fatalf("a new version is %s", v.Status)
		}
		// A draft is not the partners' to see.
		if res := do(t, h, http.MethodGet, "/api/agreements/"+a.ID+"/versions/"+v.ID+"/document", nil, e.gold...); res.Status != http.StatusNotFound {
			t.Fatalf("a partner reading a draft = %d", res.Status)
		}
		res = do(t, h, http.MethodPost, "/api/agreements/"+a.ID+"/versions/"+v.ID+"/publish", jsonBody(t, map[string]any{"require": map[string]any{"allPartners": true}}), e.op...)
		if res.Status != http.StatusOK {
			t.Fatalf("publish = %d: %s", res.Status, res.Body)
		}
		if res := do(t, h, http.MethodPost, "/api/agreements/"+a.ID+"/versions/"+v.ID+"/publish", jsonBody(t, map[string]any{}), e.op...); res.Status != http.StatusConflict {
			t.Fatalf("publishing twice = %d", res.Status)
		}

		// The document served is exactly the bytes hashed.
		doc := do(t, h, http.MethodGet, "/api/agreements/"+a.ID+"/versions/"+v.ID+"/document", nil, e.gold...)
		sum := sha256.Sum256(doc.Body)
		if doc.Status != http.StatusOK || !bytes.Equal(doc.Body, []byte(text)) || hex.EncodeToString(sum[:]) != v.SHA256 ||
			doc.Header.Get("ETag") != `"`+v.SHA256+`"` || !strings.HasPrefix(doc.Header.Get("Content-Type"), "text/markdown") {
			t.Fatalf("document %d %q %v, sha %s", doc.Status, doc.Body, doc.Header, v.SHA256)
		}

		deal := map[string]any{"customerCompany": "Initech", "amountMinor": 100000, "currency": "EUR"}
		// One key for every withdrawal request: a refusal the partner can lift by accepting is not
		// kept for the key, so the same request tried again after accepting is not refused again.
		withdrawKey := "w-" + time.Now().Format(time.RFC3339Nano)
		withdraw := func(token []string, who string) response {
			return do(t, h, http.MethodPost, "/api/withdrawals", jsonBody(t, map[string]any{"amount": 100, "currency": "EUR",
				"payoutMethodId": "0193a7c2-8a51-7d41-9c3e-6f0f2b1f4a10"}), append(token, HeaderIdempotencyKey, withdrawKey+who)...)
		}
		refused := func(what string, res response) {
			t.Helper()
			p := decode[problemBody](t, res)
			if res.Status != http.StatusForbidden || p.Code != "AGREEMENT_REQUIRED" || !strings.Contains(p.Detail, "Reseller agreement") ||
				!strings.Contains(p.Detail, "version 1") || !strings.Contains(p.Detail, v.ID) || len(p.Errors) != 2 ||
				p.Errors[0].Location != "agreementId" || p.Errors[0].Value != a.ID || p.Errors[1].Location != "versionId" || p.Errors[1].Value != v.ID {
				t.Fatalf("%s = %d: %s", what, res.Status, res.Body)
			}
		}
		refused("gold registering a deal", do(t, h, http.MethodPost, "/api/deals", jsonBody(t, deal), e.gold...))
		refused("gold requesting a withdrawal", withdraw(e.gold, "gold"))
		// Operators acting for the partner are not refused.
		opDeal := map[string]any{"partnerId": e.goldID, "customerCompany": "Globex", "amountMinor": 5000, "currency": "EUR"}
		if res := do(t, h, http.MethodPost, "/api/deals", jsonBody(t, opDeal), e.op...); res.Status != http.StatusCreated {
			t.Fatalf("an operator registering for gold = %d: %s", res.Status, res.Body)
		}

		pending := decode[struct {
			Data     []PendingAgreement `json:"data"`
			Blocking bool               `json:"blocking"`
		}](t, do(t, h, http.MethodGet, "/api/pending-agreements", nil, e.gold...))
		if !pending.Blocking || len(pending.Data) != 1 || pending.Data[0].VersionID != v.ID || pending.Data[0].SHA256 != v.SHA256 {
			t.Fatalf("gold's pending agreements %+v", pending)
		}
		if res := do(t, h, http.MethodGet, "/api/pending-agreements?partnerId="+e.silverID, nil, e.gold...); res.Status != http.StatusNotFound {
			t.Fatalf("gold reading silver's pending agreements = %d", res.Status)
		}

		accept := func(token []string, body map[string]any, ua string) response {
			return do(t, h, http.MethodPost, "/api/agreements/"+a.ID+"/versions/"+v.ID+"/accept", jsonBody(t, body), append(token, "User-Agent", ua)...)
		}
		if res := accept(e.gold, map[string]any{"sha256": strings.Repeat("0", 64)}, "Browser/1"); res.Status != http.StatusConflict {
			t.Fatalf("accepting another text = %d: %s", res.Status, res.Body)
		}
		res = accept(e.gold, map[string]any{"sha256": v.SHA256}, "=HYPERLINK(\"http://evil\")")
		if res.Status != http.StatusCreated {
			t.Fatalf("accept = %d: %s", res.Status, res.Body)
		}
		acc := decode[AgreementAcceptance](t, res)
		if acc.PartnerID != e.goldID || acc.SHA256 != v.SHA256 || acc.UserAgent != `=HYPERLINK("http://evil")` || acc.ClientAddress == "" || acc.OnBehalf {
			t.Fatalf("acceptance %+v", acc)
		}
		if res := accept(e.gold, map[string]any{}, "Browser/1"); res.Status != http.StatusOK || decode[AgreementAcceptance](t, res).ID != acc.ID {
			t.Fatalf("accepting again = %d: %s", res.Status, res.Body)
		}

		if res := do(t, h, http.MethodPost, "/api/deals", jsonBody(t, deal), e.gold...); res.Status != http.StatusCreated {
			t.Fatalf("gold registering after accepting = %d: %s", res.Status, res.Body)
		}
		if res := withdraw(e.gold, "gold"); decode[problemBody](t, res).Code == "AGREEMENT_REQUIRED" {
			t.Fatalf("gold's withdrawal after accepting is still refused: %s", res.Body)
		}

		// Silver has not accepted; a grace period lets it act, one that ended does not.
		refused("silver registering a deal", do(t, h, http.MethodPost, "/api/deals", jsonBody(t, deal), e.silver...))
		grace := func(until time.Time) {
			t.Helper()
			res := do(t, h, http.MethodPost, "/api/agreement-graces", jsonBody(t, map[string]any{"partnerId": e.silverID,
				"until": until.UTC().Format(time.RFC3339), "reason": "legal review"}), e.op...)
			if res.Status != http.StatusCreated {
				t.Fatalf("grace = %d: %s", res.Status, res.Body)
			}
		}
		grace(time.Now().Add(24 * time.Hour))
		if res := do(t, h, http.MethodPost, "/api/deals", jsonBody(t, deal), e.silver...); res.Status != http.StatusCreated {
			t.Fatalf("silver during grace = %d: %s", res.Status, res.Body)
		}
		grace(time.Now().Add(-time.Minute))
		refused("silver after its grace", withdraw(e.silver, "silver"))

		// Silver never sees gold's acceptances.
		list := decode[ListBody[AgreementAcceptance]](t, do(t, h, http.MethodGet, "/api/agreement-acceptances", nil, e.silver...))
		if len(list.Data) != 0 {
			t.Fatalf("silver sees acceptances %+v", list.Data)
		}
		if res := do(t, h, http.MethodGet, "/api/agreement-acceptances/"+acc.ID+"/certificate", nil, e.silver...); res.Status != http.StatusNotFound {
			t.Fatalf("silver reading gold's certificate = %d", res.Status)
		}
		exported := do(t, h, http.MethodGet, "/api/agreement-acceptances/export", nil, e.silver...)
		if rows, err := csv.NewReader(bytes.NewReader(exported.Body)).ReadAll(); err != nil || len(rows) != 1 {
			t.Fatalf("silver's export %q, %v", exported.Body, err)
		}

		// The operator's export holds gold's acceptance, with formula-like cells defused.
		exported = do(t, h, http.MethodGet, "/api/agreement-acceptances/export?agreementId="+a.ID, nil, e.op...)
		if exported.Status != http.StatusOK || !strings.HasPrefix(exported.Header.Get("Content-Type"), "text/csv") {
			t.Fatalf("export = %d %v", exported.Status, exported.Header)
		}
		rows, err := csv.NewReader(bytes.NewReader(exported.Body)).ReadAll()
		if err != nil || len(rows) != 2 {
			t.Fatalf("export %q, %v", exported.Body, err)
		}
		want := []string{acc.ID, a.ID, v.ID, "1", v.SHA256, e.goldID, acc.UserID, "false", acc.ClientAddress, `'=HYPERLINK("http://evil")`}
		if strings.Join(rows[0], ",") != "acceptedAt,acceptanceId,agreementId,versionId,versionNumber,sha256,partnerId,userId,onBehalf,clientAddress,userAgent" ||
			strings.Join(rows[1][1:], "|") != strings.Join(want, "|") {
			t.Fatalf("export rows %q", rows)
		}

		// The certificate verifies with the published key, and not once tampered with.
		res = do(t, h, http.MethodGet, "/api/agreement-acceptances/"+acc.ID+"/certificate", nil, e.gold...)
		if res.Status != http.StatusOK {
			t.Fatalf("certificate = %d: %s", res.Status, res.Body)
		}
		cert := decode[SignedAgreementCertificate](t, res)
		keysRes := do(t, h, http.MethodGet, "/api/agreement-certificate-keys", nil)
		jwks := decode[struct {
			Keys []CertificateKey `json:"keys"`
		}](t, keysRes)
		var keys []authn.CertificateKey
		for _, k := range jwks.Keys {
			raw, err := base64.RawURLEncoding.DecodeString(k.PublicKey)
			if err != nil || k.Curve != "Ed25519" {
				t.Fatalf("key %+v: %v", k, err)
			}
			keys = append(keys, authn.CertificateKey{KeyID: k.KeyID, PublicKey: ed25519.PublicKey(raw)})
		}
		payload, err := authn.VerifyCertificate(cert.JWS, keys)
		if err != nil {
			t.Fatalf("the certificate does not verify: %v", err)
		}
		var signed map[string]any
		if err := json.Unmarshal(payload, &signed); err != nil || signed["sha256"] != v.SHA256 || signed["partnerId"] != e.goldID ||
			signed["acceptanceId"] != acc.ID || signed["agreement"] != "Reseller agreement" || signed["userEmail"] != "admin@gold.test" {
			t.Fatalf("signed certificate %v, %v", signed, err)
		}
		parts := strings.Split(cert.JWS, ".")
		signed["partnerId"] = e.silverID
		forged, _ := json.Marshal(signed)
		for name, jws := range map[string]string{
			"a changed payload":   parts[0] + "." + base64.RawURLEncoding.EncodeToString(forged) + "." + parts[2],
			"another key id":      base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"EdDSA","kid":"v9"}`)) + "." + parts[1] + "." + parts[2],
			"no signature":        parts[0] + "." + parts[1] + ".",
			"alg none":            base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","kid":"v1"}`)) + "." + parts[1] + ".",
			"a truncated message": parts[0] + "." + parts[1],
		} {
			if _, err := authn.VerifyCertificate(jws, keys); err == nil {
				t.Errorf("%s verifies", name)
			}
		}
	})
}
