package api

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/partnerd/partnerd/api/authn"
	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/blobstore"
	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
	"github.com/partnerd/partnerd/models/store/storetest"
)

// contentEnv is a server with a blob store in a known directory, an operator and partner admins
// of a Gold and a Silver partner.
type contentEnv struct {
	s                *Server
	h                http.Handler
	dir              string
	op, gold, silver []string
	goldID, silverID string
	st               *stores.Set
	tenantID         string
}

func newContentEnv(t *testing.T, st *stores.Set, cfg Config) *contentEnv {
	t.Helper()
	cfg.Version = "test"
	s, _ := identityServerWith(t, st, cfg)
	dir := t.TempDir()
	b, err := blobstore.Open(context.Background(), blobstore.DefaultURL(dir))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	s.deps.Blobs = b
	h := s.Handler()
	tenantID, ownerEmail := seedTenant(t, st, "library")
	e := &contentEnv{s: s, h: h, dir: dir, st: st, tenantID: tenantID, op: bearer(login(t, h, ownerEmail, ownerPassword).AccessToken)}
	partner := func(level, email string) (string, []string) {
		res := do(t, h, http.MethodPost, "/api/partners", jsonBody(t, map[string]any{"name": level + " Co", "type": "reseller"}), e.op...)
		p := decode[struct{ ID string }](t, res)
		if res := do(t, h, http.MethodPatch, "/api/partners/"+p.ID, jsonBody(t, map[string]any{"level": level}), e.op...); res.Status != 200 {
			t.Fatalf("set level = %d: %s", res.Status, res.Body)
		}
		invite(t, st, tenantID, p.ID, email, authz.RolePartnerAdmin)
		s.deps.Authorizer.Invalidate(tenantID) // the user was created beside the API
		return p.ID, bearer(login(t, h, email, ownerPassword).AccessToken)
	}
	e.goldID, e.gold = partner("Gold", "admin@gold.test")
	e.silverID, e.silver = partner("Silver", "admin@silver.test")
	return e
}

// invite adds an active partner user who signs in with ownerPassword.
func invite(t *testing.T, st *stores.Set, tenantID, partnerID, email, role string) {
	t.Helper()
	users, err := st.UsersByEmail(context.Background(), "owner@library.test", "library")
	if err != nil || len(users) != 1 {
		t.Fatalf("owner: %v", err)
	}
	sc := st.For(&models.Principal{Kind: models.PrincipalOperator, TenantID: tenantID, UserID: users[0].ID})
	hash, err := authn.HashPassword(ownerPassword)
	if err != nil {
		t.Fatal(err)
	}
	u := &models.User{Email: email, Name: email, PasswordHash: hash, PartnerID: &partnerID, Status: models.UserStatusActive}
	if err := sc.CreateUser(context.Background(), u, []string{role}); err != nil {
		t.Fatal(err)
	}
}

// files counts the files kept in the blob directory.
func (e *contentEnv) files(t *testing.T) int {
	t.Helper()
	n := 0
	_ = filepath.WalkDir(e.dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasSuffix(path, ".attrs") {
			n++
		}
		return nil
	})
	return n
}

func (e *contentEnv) upload(t *testing.T, id, name string, body io.Reader, headers ...string) response {
	t.Helper()
	return do(t, e.h, http.MethodPost, "/api/content/items/"+id+"/versions?fileName="+name, body, append(e.op, headers...)...)
}

var pdfBytes = []byte("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n")

func TestContentLibraryThroughHTTP(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		e := newContentEnv(t, st, Config{})
		folder := decode[ContentFolder](t, do(t, e.h, http.MethodPost, "/api/content/folders", jsonBody(t, map[string]any{"name": "Decks"}), e.op...))
		res := do(t, e.h, http.MethodPost, "/api/content/items", jsonBody(t, map[string]any{"kind": "file", "title": "Gold price list",
			"folderId": folder.ID, "tags": []string{"pricing"}, "language": "en", "visibility": map[string]any{"levels": []string{"Gold"}}}), e.op...)
		if res.Status != http.StatusCreated {
			t.Fatalf("create = %d: %s", res.Status, res.Body)
		}
		item := decode[ContentItem](t, res)

		// The type is told by the bytes: an HTML page named .pdf is refused before anything is kept.
		before := e.files(t)
		if res := e.upload(t, item.ID, "evil.pdf", strings.NewReader("<html><body><script>alert(1)</script></body></html>")); res.Status != http.StatusUnsupportedMediaType ||
			res.problem(t).Code != "UNSUPPORTED_FILE_TYPE" {
			t.Fatalf("html upload = %d: %s", res.Status, res.Body)
		}
		if e.files(t) != before {
			t.Fatal("a refused upload left a file behind")
		}
		res = e.upload(t, item.ID, "prices.pdf", bytes.NewReader(pdfBytes))
		if res.Status != http.StatusCreated {
			t.Fatalf("upload = %d: %s", res.Status, res.Body)
		}
		v1 := decode[ContentVersion](t, res)
		sum := sha256.Sum256(pdfBytes)
		if v1.ContentType != "application/pdf" || v1.SHA256 != hex.EncodeToString(sum[:]) || v1.Size != int64(len(pdfBytes)) || v1.Number != 1 {
			t.Fatalf("version = %+v", v1)
		}

		// The Gold partner finds and downloads it; Range requests are served.
		res = do(t, e.h, http.MethodGet, "/api/content/items?tag=pricing&q=price", nil, e.gold...)
		list := decode[ListBody[ContentItem]](t, res)
		if len(list.Data) != 1 || list.Data[0].ID != item.ID || list.Data[0].Visibility != nil {
			t.Fatalf("gold list = %+v", list.Data)
		}
		res = do(t, e.h, http.MethodGet, "/api/content/items/"+item.ID+"/download", nil, e.gold...)
		if res.Status != 200 || !bytes.Equal(res.Body, pdfBytes) || res.Header.Get("Content-Type") != "application/pdf" ||
			!strings.HasPrefix(res.Header.Get("Content-Disposition"), "attachment") || res.Header.Get("Accept-Ranges") != "bytes" {
			t.Fatalf("download = %d %v", res.Status, res.Header)
		}
		res = do(t, e.h, http.MethodGet, "/api/content/items/"+item.ID+"/download", nil, append(e.gold, "Range", "bytes=5-8")...)
		if res.Status != http.StatusPartialContent || string(res.Body) != string(pdfBytes[5:9]) {
			t.Fatalf("range = %d %q", res.Status, res.Body)
		}

		// The Silver partner sees neither the item nor its URLs.
		list = decode[ListBody[ContentItem]](t, do(t, e.h, http.MethodGet, "/api/content/items", nil, e.silver...))
		if len(list.Data) != 0 {
			t.Fatalf("silver list = %+v", list.Data)
		}
		for _, suffix := range []string{"", "/download", "/versions"} {
			if res := do(t, e.h, http.MethodGet, "/api/content/items/"+item.ID+suffix, nil, e.silver...); res.Status != http.StatusNotFound {
				t.Fatalf("silver GET %s = %d", suffix, res.Status)
			}
		}

		// A new version replaces the file; the history stays and operators can fetch it.
		v2bytes := append(bytes.Clone(pdfBytes), []byte("% second\n")...)
		v2 := decode[ContentVersion](t, e.upload(t, item.ID, "prices-2.pdf", bytes.NewReader(v2bytes)))
		if res := do(t, e.h, http.MethodGet, "/api/content/items/"+item.ID+"/download?versionId="+v1.ID, nil, e.gold...); !bytes.Equal(res.Body, v2bytes) {
			t.Fatal("a partner named an old version and did not get the current one")
		}
		if res := do(t, e.h, http.MethodGet, "/api/content/items/"+item.ID+"/download?versionId="+v1.ID, nil, e.op...); !bytes.Equal(res.Body, pdfBytes) {
			t.Fatal("the operator did not get version 1")
		}
		versions := decode[ListBody[ContentVersion]](t, do(t, e.h, http.MethodGet, "/api/content/items/"+item.ID+"/versions", nil, e.op...))
		if len(versions.Data) != 2 || versions.Data[1].ID != v2.ID {
			t.Fatalf("versions = %+v", versions.Data)
		}

		// Downloads from the first byte count once each, attributed to the partner.
		evs, _, err := st.For(&models.Principal{Kind: models.PrincipalOperator, TenantID: e.tenantID, UserID: "x"}).
			ListEvents(context.Background(), models.EventFilter{Type: models.EventContentDownloaded}, models.Page{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		byPartner := map[string]int{}
		for _, ev := range evs {
			if ev.PartnerID != nil {
				byPartner[*ev.PartnerID]++
			}
		}
		if byPartner[e.goldID] != 2 || byPartner[e.silverID] != 0 || len(evs) != 3 {
			t.Fatalf("content.downloaded by partner = %v of %d", byPartner, len(evs))
		}

		// An upload whose row cannot be written leaves no file behind.
		if res := do(t, e.h, http.MethodDelete, "/api/content/items/"+item.ID, nil, e.op...); res.Status != 200 {
			t.Fatalf("archive = %d", res.Status)
		}
		before = e.files(t)
		if res := e.upload(t, item.ID, "late.pdf", bytes.NewReader(pdfBytes)); res.Status != http.StatusConflict || res.problem(t).Code != "CONTENT_ARCHIVED" {
			t.Fatalf("upload to an archived item = %d: %s", res.Status, res.Body)
		}
		if e.files(t) != before {
			t.Fatal("the blob of a failed upload was not deleted")
		}
		if res := do(t, e.h, http.MethodGet, "/api/content/items/"+item.ID+"/download", nil, e.gold...); res.Status != http.StatusNotFound {
			t.Fatalf("archived download = %d", res.Status)
		}
	})
}

func TestContentUploadLimits(t *testing.T) {
	storetest.RunSet(t, func(t *testing.T, st *stores.Set) {
		e := newContentEnv(t, st, Config{ContentMaxBytes: 1024})
		item := decode[ContentItem](t, do(t, e.h, http.MethodPost, "/api/content/items", jsonBody(t, map[string]any{"kind": "file", "title": "Big"}), e.op...))
		big := append(bytes.Clone(pdfBytes), bytes.Repeat([]byte("x"), 2048)...)
		before := e.files(t)
		// A declared length over the limit is refused before the body is read.
		if res := e.upload(t, item.ID, "big.pdf", bytes.NewReader(big)); res.Status != http.StatusRequestEntityTooLarge || res.problem(t).Code != "PAYLOAD_TOO_LARGE" {
			t.Fatalf("declared oversize = %d: %s", res.Status, res.Body)
		}
		// A streamed body (no length) is cut off while it is stored.
		if res := e.upload(t, item.ID, "big.pdf", io.MultiReader(bytes.NewReader(big))); res.Status != http.StatusRequestEntityTooLarge || res.problem(t).Code != "FILE_TOO_LARGE" {
			t.Fatalf("streamed oversize = %d: %s", res.Status, res.Body)
		}
		if res := e.upload(t, item.ID, "empty.pdf", io.MultiReader(strings.NewReader(""))); res.Status != http.StatusUnprocessableEntity {
			t.Fatalf("empty = %d: %s", res.Status, res.Body)
		}
		if e.files(t) != before {
			t.Fatal("a refused upload left a file behind")
		}
		// A link takes no upload; another tenant's or an unknown item is 404 without storing.
		link := decode[ContentItem](t, do(t, e.h, http.MethodPost, "/api/content/items", jsonBody(t, map[string]any{"kind": "link", "title": "L", "url": "https://example.com"}), e.op...))
		if res := e.upload(t, link.ID, "a.pdf", bytes.NewReader(pdfBytes)); res.Status != http.StatusUnprocessableEntity || res.problem(t).Code != "NOT_A_FILE" {
			t.Fatalf("upload to a link = %d: %s", res.Status, res.Body)
		}
		if res := e.upload(t, models.NewID(), "a.pdf", bytes.NewReader(pdfBytes)); res.Status != http.StatusNotFound {
			t.Fatalf("upload to an unknown item = %d", res.Status)
		}
		if e.files(t) != before {
			t.Fatal("an upload to a link or an unknown item left a file behind")
		}
		// Without a blob store uploads and downloads answer 503.
		e.s.deps.Blobs = nil
		if res := e.upload(t, item.ID, "a.pdf", bytes.NewReader(pdfBytes)); res.Status != http.StatusServiceUnavailable || res.problem(t).Code != "FILES_UNAVAILABLE" {
			t.Fatalf("no blob store = %d: %s", res.Status, res.Body)
		}
	})
}
