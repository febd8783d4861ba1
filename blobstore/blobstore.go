// Package blobstore keeps the files partnerd is given (ticket attachments, content items, agreement
// versions, claim proofs, logos) in a bucket: a local directory by default, any S3-compatible bucket
// by URL in production (gocloud.dev/blob). Callers store a file's key beside their own rows; keys
// are random, so they reveal neither the tenant nor the file's name.
package blobstore

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/gabriel-vasile/mimetype"
	"gocloud.dev/blob"
	_ "gocloud.dev/blob/fileblob" // file:// buckets
	_ "gocloud.dev/blob/memblob"  // mem:// buckets (tests)
	_ "gocloud.dev/blob/s3blob"   // s3:// buckets, also S3-compatible ones through ?endpoint=
	"gocloud.dev/gcerrors"
)

// Errors of Put and Open; the API answers them with 413, 415 and 404.
var (
	ErrTooLarge       = errors.New("the file is larger than allowed")
	ErrTypeNotAllowed = errors.New("the file's type is not allowed")
	ErrNotFound       = errors.New("no such file")
	ErrEmpty          = errors.New("the file is empty")
)

// sniffBytes is how much of a file is read to tell its type before anything is stored.
const sniffBytes = 3072

// Store is a bucket of files.
type Store struct {
	bucket *blob.Bucket
	url    string
}

// Limits are what Put accepts: at most MaxBytes bytes of one of Types (media types without
// parameters, e.g. "application/pdf", "image/png"; "text/plain" also admits the types detected as
// its children, such as text/csv). An empty Types admits any type.
type Limits struct {
	MaxBytes int64
	Types    []string
}

// Object is a stored file.
type Object struct {
	// Key names the file in the bucket.
	Key string
	// Size in bytes.
	Size int64
	// ContentType is the media type told by the file's bytes, not by the uploader.
	ContentType string
	// SHA256 is the hex SHA-256 of the exact bytes stored.
	SHA256 string
}

// DefaultURL is the bucket of a data directory: a directory blobs/ under it.
func DefaultURL(dataDir string) string {
	return "file://" + filepath.ToSlash(filepath.Join(dataDir, "blobs")) + "?create_dir=true&no_tmp_dir=true"
}

// Open opens the bucket at url: file:///path (a local directory, created when missing with
// ?create_dir=true), s3://bucket?region=…&endpoint=…&use_path_style=true (S3 or S3-compatible;
// credentials from the standard AWS environment), mem:// (in memory, for tests).
func Open(ctx context.Context, url string) (*Store, error) {
	if strings.HasPrefix(url, "file://") {
		dir := strings.TrimPrefix(url, "file://")
		if i := strings.IndexByte(dir, '?'); i >= 0 {
			dir = dir[:i]
		}
		if dir == "" {
			return nil, fmt.Errorf("blob store %q: no directory", url)
		}
		if err := os.MkdirAll(filepath.FromSlash(dir), 0o700); err != nil {
			return nil, fmt.Errorf("blob store directory: %w", err)
		}
	}
	b, err := blob.OpenBucket(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("blob store %s: %w", Redact(url), err)
	}
	return &Store{bucket: b, url: url}, nil
}

// Redact is url without credentials or query, for log lines.
func Redact(url string) string {
	if i := strings.IndexByte(url, '?'); i >= 0 {
		url = url[:i]
	}
	if i := strings.Index(url, "@"); i >= 0 {
		if j := strings.Index(url, "://"); j >= 0 && j < i {
			url = url[:j+3] + url[i+1:]
		}
	}
	return url
}

// Close closes the bucket.
func (s *Store) Close() error { return s.bucket.Close() }

// Ping reports whether the bucket can be reached.
func (s *Store) Ping(ctx context.Context) error {
	ok, err := s.bucket.IsAccessible(ctx)
	if err != nil {
		return err
	}
	if !ok {
		return errors.New("the blob store is not accessible")
	}
	return nil
}

var prefixRE = regexp.MustCompile(`^[a-z][a-z0-9-]{0,30}$`)

// NewKey is a fresh random key under prefix (a module's name, e.g. "desk"): 160 random bits.
func NewKey(prefix string) (string, error) {
	if !prefixRE.MatchString(prefix) {
		return "", fmt.Errorf("blob key prefix %q", prefix)
	}
	var b [20]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return prefix + "/" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:])), nil
}

// Put stores the bytes of r under a new key in prefix. It reads the start of the file to tell its
// type and refuses a type outside lim.Types (ErrTypeNotAllowed) before storing anything, and stops
// with ErrTooLarge, leaving nothing behind, when more than lim.MaxBytes arrive. An empty file is
// ErrEmpty.
func (s *Store) Put(ctx context.Context, prefix string, r io.Reader, lim Limits) (Object, error) {
	key, err := NewKey(prefix)
	if err != nil {
		return Object{}, err
	}
	br := bufio.NewReaderSize(r, sniffBytes)
	head, err := br.Peek(sniffBytes)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return Object{}, err
	}
	if len(head) == 0 {
		return Object{}, ErrEmpty
	}
	if lim.MaxBytes > 0 && int64(len(head)) > lim.MaxBytes {
		return Object{}, ErrTooLarge
	}
	ct := Sniff(head)
	if !Allowed(ct, lim.Types) {
		return Object{}, fmt.Errorf("%w: %s", ErrTypeNotAllowed, ct)
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := s.bucket.NewWriter(wctx, key, &blob.WriterOptions{ContentType: ct})
	if err != nil {
		return Object{}, err
	}
	h := sha256.New()
	var src io.Reader = br
	if lim.MaxBytes > 0 {
		src = io.LimitReader(br, lim.MaxBytes+1)
	}
	n, err := io.Copy(io.MultiWriter(w, h), src)
	if err == nil && lim.MaxBytes > 0 && n > lim.MaxBytes {
		err = ErrTooLarge
	}
	if err != nil {
		cancel() // aborts the write: nothing is stored
		_ = w.Close()
		return Object{}, err
	}
	if err := w.Close(); err != nil {
		return Object{}, err
	}
	return Object{Key: key, Size: n, ContentType: ct, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// Sniff is the media type (without parameters) told by a file's first bytes.
func Sniff(head []byte) string {
	mt := mimetype.Detect(head).String()
	if base, _, err := mime.ParseMediaType(mt); err == nil {
		return base
	}
	return mt
}

// browserActive are types a browser runs (markup with scripts, scripts): they pass Allowed only
// when listed themselves, never as a child of an allowed parent such as text/plain.
var browserActive = []string{"text/html", "application/xhtml+xml", "image/svg+xml", "text/javascript",
	"application/javascript", "application/x-javascript"}

// Allowed reports whether the media type ct is one of types or a child of one (text/csv of
// text/plain); a type a browser runs must be listed itself. An empty types admits everything.
func Allowed(ct string, types []string) bool {
	if len(types) == 0 {
		return true
	}
	if slices.Contains(browserActive, ct) {
		return slices.Contains(types, ct)
	}
	for m := mimetype.Lookup(ct); m != nil; m = m.Parent() {
		for _, t := range types {
			if m.Is(t) {
				return true
			}
		}
	}
	for _, t := range types {
		if t == ct {
			return true
		}
	}
	return false
}

// File is an opened stored file: a reader that can seek (for HTTP Range requests) with the
// file's size, type and time.
type File struct {
	*blob.Reader
}

// ModTime is when the file was stored.
func (f File) ModTime() time.Time { return f.Reader.ModTime() }

// Open opens the file under key for reading; ErrNotFound when there is none.
func (s *Store) Open(ctx context.Context, key string) (File, error) {
	r, err := s.bucket.NewReader(ctx, key, nil)
	if err != nil {
		if gcerrors.Code(err) == gcerrors.NotFound {
			return File{}, ErrNotFound
		}
		return File{}, err
	}
	return File{Reader: r}, nil
}

// Delete removes the file under key; a missing file is not an error.
func (s *Store) Delete(ctx context.Context, key string) error {
	err := s.bucket.Delete(ctx, key)
	if gcerrors.Code(err) == gcerrors.NotFound {
		return nil
	}
	return err
}

// Exists reports whether a file is stored under key.
func (s *Store) Exists(ctx context.Context, key string) (bool, error) {
	return s.bucket.Exists(ctx, key)
}
