package blobstore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

func openDir(t *testing.T) (*Store, string) {
	t.Helper()
	dir := t.TempDir()
	s, err := Open(context.Background(), DefaultURL(dir))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, filepath.Join(dir, "blobs")
}

// files lists the regular files under dir, sidecar attributes included.
func files(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var pdf = []byte("%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n")

func TestPutStoresTheBytesUnderARandomKeyWithTheirSniffedType(t *testing.T) {
	s, dir := openDir(t)
	ctx := context.Background()
	obj, err := s.Put(ctx, "desk", bytes.NewReader(pdf), Limits{MaxBytes: 1 << 20, Types: []string{"application/pdf"}})
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(pdf)
	if obj.Size != int64(len(pdf)) || obj.ContentType != "application/pdf" || obj.SHA256 != hex.EncodeToString(sum[:]) {
		t.Fatalf("object %+v", obj)
	}
	if !strings.HasPrefix(obj.Key, "desk/") || len(obj.Key) != len("desk/")+32 {
		t.Fatalf("key %q", obj.Key)
	}
	other, err := s.Put(ctx, "desk", bytes.NewReader(pdf), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if other.Key == obj.Key {
		t.Fatal("two files share a key")
	}
	f, err := s.Open(ctx, obj.Key)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(f)
	_ = f.Close()
	if !bytes.Equal(got, pdf) || f.Size() != int64(len(pdf)) || f.ContentType() != "application/pdf" {
		t.Fatalf("read back %q (%d, %s)", got, f.Size(), f.ContentType())
	}
	if n := len(files(t, dir)); n == 0 {
		t.Fatal("nothing in the directory")
	}
}

func TestPutRefusesTooLargeAndDisallowedFilesLeavingNothing(t *testing.T) {
	s, dir := openDir(t)
	ctx := context.Background()
	big := bytes.Repeat([]byte("a line of text\n"), 10_000) // 150 kB of text/plain
	for _, tc := range []struct {
		name string
		body []byte
		lim  Limits
		want error
	}{
		{"over the limit after the first bytes", big, Limits{MaxBytes: 100_000}, ErrTooLarge},
		{"over the limit within the first bytes", pdf, Limits{MaxBytes: 10}, ErrTooLarge},
		{"a script named like a PDF", []byte("#!/bin/sh\nrm -rf /\n"), Limits{Types: []string{"application/pdf"}}, ErrTypeNotAllowed},
		{"an HTML page among images", []byte("<!DOCTYPE html><html><script>alert(1)</script></html>"), Limits{Types: []string{"image/png", "image/jpeg"}}, ErrTypeNotAllowed},
		{"empty", nil, Limits{}, ErrEmpty},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := s.Put(ctx, "content", bytes.NewReader(tc.body), tc.lim); !errors.Is(err, tc.want) {
				t.Fatalf("err %v, want %v", err, tc.want)
			}
			if left := files(t, dir); len(left) != 0 {
				t.Fatalf("left behind: %v", left)
			}
		})
	}
	if _, err := s.Put(ctx, "content", bytes.NewReader(big), Limits{MaxBytes: int64(len(big)), Types: []string{"text/plain"}}); err != nil {
		t.Fatalf("a file of exactly the limit: %v", err)
	}
}

func TestAllowedAdmitsChildTypes(t *testing.T) {
	if !Allowed(Sniff([]byte("a,b,c\n1,2,3\n")), []string{"text/plain"}) {
		t.Error("CSV is refused as text/plain")
	}
	for _, active := range []string{"text/html", "image/svg+xml", "text/javascript"} {
		if Allowed(active, []string{"text/plain", "text/xml"}) {
			t.Errorf("%s passes as a child of text/plain", active)
		}
		if !Allowed(active, []string{active}) {
			t.Errorf("%s is refused where it is listed", active)
		}
	}
	if Allowed("application/x-msdownload", []string{"application/pdf", "image/png"}) {
		t.Error("an executable is allowed")
	}
	if got := Sniff([]byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R'}); got != "image/png" {
		t.Errorf("PNG sniffed as %s", got)
	}
}

func TestOpenedFilesServeRangeRequests(t *testing.T) {
	s, _ := openDir(t)
	ctx := context.Background()
	body := bytes.Repeat([]byte("0123456789"), 1000)
	obj, err := s.Put(ctx, "content", bytes.NewReader(body), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := s.Open(ctx, obj.Key)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	req := httptest.NewRequest(http.MethodGet, "/x", nil)
	req.Header.Set("Range", "bytes=5-14")
	rec := httptest.NewRecorder()
	http.ServeContent(rec, req, "x.txt", f.ModTime(), f)
	if rec.Code != http.StatusPartialContent || rec.Body.String() != "5678901234" {
		t.Fatalf("%d %q", rec.Code, rec.Body.String())
	}
	if _, err := s.Open(ctx, "content/nosuchkey"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing file: %v", err)
	}
	if err := s.Delete(ctx, obj.Key); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.Exists(ctx, obj.Key); ok {
		t.Fatal("deleted file still exists")
	}
	if err := s.Delete(ctx, obj.Key); err != nil {
		t.Fatalf("deleting twice: %v", err)
	}
}

func TestKeysAndURLsRevealNothing(t *testing.T) {
	if _, err := NewKey("../etc"); err == nil {
		t.Error("a prefix with a path is accepted")
	}
	if got := Redact("s3://AKIA:secret@bucket?endpoint=http://minio:9000&region=x"); got != "s3://bucket" {
		t.Errorf("redacted %q", got)
	}
}
