package api

import (
	"context"
	"errors"
	"mime"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/partnerd/partnerd/blobstore"
)

// download describes a stored file served to a browser as an attachment.
type download struct {
	ContentType, FileName string
	ModTime               time.Time
	// ETag, when set, lets a client revalidate (the file's SHA-256); without it the answer is
	// not stored at all.
	ETag string
}

// openBlob opens a stored file; a file missing from the blob store is notFound.
func (s *Server) openBlob(ctx context.Context, key string, notFound error) (blobstore.File, error) {
	b, err := s.blobs()
	if err != nil {
		return blobstore.File{}, err
	}
	f, err := b.Open(ctx, key)
	if errors.Is(err, blobstore.ErrNotFound) {
		return blobstore.File{}, notFound
	}
	return f, err
}

// downloadResponse streams f as an attachment that no browser renders in place (nosniff, a
// sandboxing CSP), with range requests.
func downloadResponse(f blobstore.File, d download) *huma.StreamResponse {
	return &huma.StreamResponse{Body: func(hctx huma.Context) {
		defer func() { _ = f.Close() }()
		c := ginOf(hctx)
		if c == nil {
			hctx.SetStatus(http.StatusInternalServerError)
			return
		}
		h := c.Writer.Header()
		h.Set("Content-Type", d.ContentType)
		h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": d.FileName}))
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Content-Security-Policy", "sandbox; default-src 'none'")
		if d.ETag != "" {
			h.Set("ETag", `"`+d.ETag+`"`)
			h.Set("Cache-Control", "private, no-cache")
		} else {
			h.Set("Cache-Control", "private, no-store")
		}
		http.ServeContent(c.Writer, c.Request, "", d.ModTime, f)
	}}
}
