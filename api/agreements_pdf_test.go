package api

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/partnerd/partnerd/api/authn"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

// An operator uploads a PDF as an agreement version: only a PDF within the size limit is kept,
// its SHA-256 is over the exact bytes, it never changes once published, partners read it (with
// Range) only once it is published and required of them, accept it by that hash, and the signed
// certificate names it.
func TestAgreementPDFVersionThroughHTTP(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		e := newContentEnv(t, st, Config{AgreementPDFMaxBytes: 4096})
		h := e.h
		pdf := append([]byte("%PDF-1.7\n% reseller agreement 2027\n"), bytes.Repeat([]byte("0123456789abcdef"), 100)...)
		pdf = append(pdf, "\n%%EOF\n"...)
		sum := sha256.Sum256(pdf)
		hash := hex.EncodeToString(sum[:])
		res := do(t, h, http.MethodPost, "/api/agreements", jsonBody(t, map[string]any{"kind": "nda", "title": "Mutual NDA"}), e.op...)
		a := decode[Agreement](t, res)
		upload := func(name string, body []byte, token []string) response {
			return do(t, h, http.MethodPost, "/api/agreements/"+a.ID+"/pdf-versions?fileName="+name+"&summary=Signed+copy", bytes.NewReader(body), token...)
		}

		// Refused before anything is kept: another type, too large, a partner, a broken name.
		if res := upload("nda.pdf", []byte("<html><body><script>alert(1)</script></body></html>"), e.op); res.Status != http.StatusUnsupportedMediaType ||
			res.problem(t).Code != "UNSUPPORTED_FILE_TYPE" {
			t.Fatalf("an HTML page as the PDF = %d: %s", res.Status, res.Body)
		}
		big := append([]byte("%PDF-1.7\n"), bytes.Repeat([]byte("x"), 5000)...)
		if res := upload("nda.pdf", big, e.op); res.Status != http.StatusRequestEntityTooLarge {
			t.Fatalf("a PDF over the limit = %d: %s", res.Status, res.Body)
		}
		if res := upload("nda.pdf", pdf, e.gold); res.Status != http.StatusForbidden {
			t.Fatalf("a partner uploading = %d", res.Status)
		}
		if res := upload("..%2F..", pdf, e.op); res.Status != http.StatusUnprocessableEntity || res.problem(t).Code != "FILE_NAME_REQUIRED" {
			t.Fatalf("a name with nothing left = %d: %s", res.Status, res.Body)
		}
		if n := e.files(t); n != 0 {
			t.Fatalf("%d files kept after refusals", n)
		}

		res = upload("mutual-nda.pdf", pdf, e.op)
		if res.Status != http.StatusCreated {
			t.Fatalf("upload = %d: %s", res.Status, res.Body)
		}
		v := decode[AgreementVersion](t, res)
		if v.ContentType != "application/pdf" || v.SHA256 != hash || v.Size != int64(len(pdf)) || v.FileName != "mutual-nda.pdf" ||
			v.Status != "draft" || v.Number != 1 || v.Summary != "Signed copy" || e.files(t) != 1 {
			t.Fatalf("version %+v, want sha %s", v, hash)
		}
		doc := func(token []string, headers ...string) response {
			return do(t, h, http.MethodGet, "/api/agreements/"+a.ID+"/versions/"+v.ID+"/document", nil, append(token, headers...)...)
		}
		if res := doc(e.gold); res.Status != http.StatusNotFound {
			t.Fatalf("a partner reading a draft PDF = %d", res.Status)
		}
		res = do(t, h, http.MethodPost, "/api/agreements/"+a.ID+"/versions/"+v.ID+"/publish",
			jsonBody(t, map[string]any{"require": map[string]any{"levels": []string{"Gold"}}}), e.op...)
		if res.Status != http.StatusOK {
			t.Fatalf("publish = %d: %s", res.Status, res.Body)
		}
		// Published: the database refuses any change to the row, the file's key included.
		if err := st.DB(context.Background()).Exec("UPDATE agreement_versions SET blob_key = 'agreements/other' WHERE id = ?", v.ID).Error; err == nil {
			t.Fatal("a published PDF version's file was changed")
		}

		// The Gold partner reads the exact bytes, whole or by range; Silver is not asked to.
		res = doc(e.gold)
		got := sha256.Sum256(res.Body)
		if res.Status != http.StatusOK || !bytes.Equal(res.Body, pdf) || hex.EncodeToString(got[:]) != v.SHA256 ||
			res.Header.Get("Content-Type") != "application/pdf" || res.Header.Get("ETag") != `"`+hash+`"` ||
			res.Header.Get("Repr-Digest") != "sha-256=:"+base64.StdEncoding.EncodeToString(sum[:])+":" ||
			!strings.Contains(res.Header.Get("Content-Disposition"), "mutual-nda.pdf") || res.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Fatalf("document %d %v (%d bytes)", res.Status, res.Header, len(res.Body))
		}
		if res := doc(e.gold, "Range", "bytes=0-7"); res.Status != http.StatusPartialContent || string(res.Body) != "%PDF-1.7" {
			t.Fatalf("range = %d %q", res.Status, res.Body)
		}
		if res := doc(e.gold, "Range", "bytes=99999-"); res.Status != http.StatusRequestedRangeNotSatisfiable {
			t.Fatalf("a range past the end = %d", res.Status)
		}
		if res := doc(e.silver); res.Status != http.StatusNotFound {
			t.Fatalf("a partner the agreement is not required of = %d", res.Status)
		}

		// The portal's list says it is a PDF, with its name and hash.
		res = do(t, h, http.MethodGet, "/api/pending-agreements", nil, e.gold...)
		if pending := decode[struct {
			Data []PendingAgreement `json:"data"`
		}](t, res); len(pending.Data) != 1 || pending.Data[0].ContentType != "application/pdf" || pending.Data[0].FileName != "mutual-nda.pdf" ||
			pending.Data[0].SHA256 != hash {
			t.Fatalf("pending = %s", res.Body)
		}

		// Accepted by its hash; another hash is refused.
		accept := func(sha string) response {
			return do(t, h, http.MethodPost, "/api/agreements/"+a.ID+"/versions/"+v.ID+"/accept", jsonBody(t, map[string]any{"sha256": sha}), e.gold...)
		}
		if res := accept(strings.Repeat("0", 64)); res.Status != http.StatusConflict || res.problem(t).Code != "AGREEMENT_HASH_MISMATCH" {
			t.Fatalf("accepting another hash = %d: %s", res.Status, res.Body)
		}
		res = accept(hash)
		acc := decode[AgreementAcceptance](t, res)
		if res.Status != http.StatusCreated || acc.SHA256 != hash || acc.VersionID != v.ID || acc.PartnerID != e.goldID {
			t.Fatalf("accept = %d %+v", res.Status, acc)
		}
		res = do(t, h, http.MethodGet, "/api/pending-agreements", nil, e.gold...)
		if pending := decode[struct {
			Data []PendingAgreement `json:"data"`
		}](t, res); len(pending.Data) != 0 {
			t.Fatalf("still pending after accepting: %s", res.Body)
		}

		// The signed certificate names the PDF by its hash, type and name.
		res = do(t, h, http.MethodGet, "/api/agreement-acceptances/"+acc.ID+"/certificate", nil, e.gold...)
		cert := decode[SignedAgreementCertificate](t, res)
		jwks := decode[struct {
			Keys []CertificateKey `json:"keys"`
		}](t, do(t, h, http.MethodGet, "/api/agreement-certificate-keys", nil))
		var keys []authn.CertificateKey
		for _, k := range jwks.Keys {
			raw, _ := base64.RawURLEncoding.DecodeString(k.PublicKey)
			keys = append(keys, authn.CertificateKey{KeyID: k.KeyID, PublicKey: ed25519.PublicKey(raw)})
		}
		payload, err := authn.VerifyCertificate(cert.JWS, keys)
		if err != nil {
			t.Fatalf("the certificate does not verify: %v", err)
		}
		var signed map[string]any
		if err := json.Unmarshal(payload, &signed); err != nil || signed["sha256"] != hash || signed["contentType"] != "application/pdf" ||
			signed["fileName"] != "mutual-nda.pdf" || signed["versionId"] != v.ID || signed["partnerId"] != e.goldID {
			t.Fatalf("signed certificate %v, %v", signed, err)
		}
	})
}
