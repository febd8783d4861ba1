package api

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"image"
	_ "image/gif"  // decodes uploaded GIF logos' sizes
	_ "image/jpeg" // decodes uploaded JPEG logos' sizes
	_ "image/png"  // decodes uploaded PNG logos' sizes
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/blobstore"
	"github.com/partnerd/partnerd/models"
)

// BrandingStore is what the branding operations need of storage, as the caller sees it.
type BrandingStore interface {
	Branding(ctx context.Context, partnerID string) (*models.Branding, error)
	UpdateBranding(ctx context.Context, ch models.BrandingChanges) (*models.Branding, error)
	SetBrandImage(ctx context.Context, partnerID, kind string, img models.BrandImage) (*models.Branding, models.BrandImage, error)
	ClearBrandImage(ctx context.Context, partnerID, kind string) (*models.Branding, models.BrandImage, error)
}

// PublicBrands answers what a portal shows before sign-in: presentation data only.
type PublicBrands interface {
	PublicBranding(ctx context.Context, tenantID, partnerID string) (*models.PublicBranding, error)
	BrandImageBySHA256(ctx context.Context, sum string) (models.BrandImage, error)
	TenantBySlug(ctx context.Context, slug string) (*models.Tenant, error)
}

// branding is the branding store as the caller sees it.
func (s *Server) branding(ctx context.Context) BrandingStore {
	return s.deps.Modules.Branding(models.PrincipalFrom(ctx))
}

// Theme is a brand's colours, each #rrggbb or absent for the product's default.
type Theme struct {
	Primary    string `json:"primary,omitempty" maxLength:"7" pattern:"^#[0-9a-fA-F]{6}$" example:"#1f6feb"`
	Accent     string `json:"accent,omitempty" maxLength:"7" pattern:"^#[0-9a-fA-F]{6}$"`
	Background string `json:"background,omitempty" maxLength:"7" pattern:"^#[0-9a-fA-F]{6}$"`
	Text       string `json:"text,omitempty" maxLength:"7" pattern:"^#[0-9a-fA-F]{6}$"`
}

// BrandImage is a stored logo or favicon, served by get-brand-image at URL.
type BrandImage struct {
	URL         string `json:"url" doc:"Where the image is served (public, cached for a year: the address changes with the image)"`
	ContentType string `json:"contentType"`
	Width       int    `json:"width"`
	Height      int    `json:"height"`
}

func brandImageOf(img models.BrandImage) *BrandImage {
	if img.Empty() {
		return nil
	}
	return &BrandImage{URL: "/api/branding/images/" + img.SHA256, ContentType: img.ContentType, Width: img.Width, Height: img.Height}
}

// Branding is a tenant's brand, or a partner's co-brand (its logo only), as operators manage it.
type Branding struct {
	PartnerID    string            `json:"partnerId,omitempty" doc:"The partner of a co-brand; absent for the tenant's brand"`
	Name         string            `json:"name" doc:"The portal's name; the tenant's name when empty"`
	Theme        Theme             `json:"theme"`
	SupportEmail string            `json:"supportEmail"`
	CSSVariables map[string]string `json:"cssVariables" nullable:"false"`
	Logo         *BrandImage       `json:"logo,omitempty"`
	Favicon      *BrandImage       `json:"favicon,omitempty"`
	UpdatedAt    *time.Time        `json:"updatedAt,omitempty"`
}

func brandingOf(b *models.Branding) Branding {
	out := Branding{PartnerID: b.PartnerID, Name: b.Name, Theme: Theme(b.Theme), SupportEmail: b.SupportEmail,
		CSSVariables: b.CSSVariables, Logo: brandImageOf(b.Logo), Favicon: brandImageOf(b.Favicon)}
	if out.CSSVariables == nil {
		out.CSSVariables = map[string]string{}
	}
	if !b.UpdatedAt.IsZero() {
		out.UpdatedAt = &b.UpdatedAt
	}
	return out
}

// BrandingOutput is a brand.
type BrandingOutput struct{ Body Branding }

// UpdateBrandingInput changes the tenant's brand; absent fields stay as they are.
type UpdateBrandingInput struct {
	Body struct {
		Name         *string       `json:"name,omitempty" maxLength:"100"`
		Theme        *Theme        `json:"theme,omitempty" doc:"Replaces every colour"`
		SupportEmail *string       `json:"supportEmail,omitempty" maxLength:"254" doc:"Empty removes it"`
		CSSVariables []CSSVariable `json:"cssVariables,omitempty" maxItems:"30" nullable:"false" doc:"Replaces every variable (an empty list removes them): values are plain CSS tokens (lengths, colours, numbers, keywords, rgb(), hsl(), calc(), var()); never url(), strings or blocks"`
	}
}

// CSSVariable is one custom CSS variable of a brand.
type CSSVariable struct {
	Name  string `json:"name" maxLength:"50" example:"--brand-radius" doc:"--lower-case-words"`
	Value string `json:"value" maxLength:"100" example:"8px"`
}

// BrandImageKindPath names the tenant's logo or favicon.
type BrandImageKindPath struct {
	Kind string `path:"kind" enum:"logo,favicon"`
}

// UploadBrandImageInput is the tenant's new logo or favicon: the request body is the image.
type UploadBrandImageInput struct {
	BrandImageKindPath
}

// PartnerBrandPath names a partner's co-brand.
type PartnerBrandPath struct {
	ID string `path:"id" maxLength:"36" doc:"The partner"`
}

// PublicBrandingInput names the portal: by the host the request came in on, or by the tenant's
// slug on the installation's own host.
type PublicBrandingInput struct {
	Tenant      string `query:"tenant" maxLength:"63" doc:"The tenant's slug, for a portal on the installation's own host; a verified custom domain needs none"`
	IfNoneMatch string `header:"If-None-Match" maxLength:"200"`
}

// PublicBranding is what a portal shows: presentation data only.
type PublicBranding struct {
	Tenant       string            `json:"tenant" doc:"The tenant's slug, which sign-in takes"`
	Name         string            `json:"name"`
	Theme        Theme             `json:"theme"`
	SupportEmail string            `json:"supportEmail,omitempty"`
	CSSVariables map[string]string `json:"cssVariables" nullable:"false"`
	Logo         *BrandImage       `json:"logo,omitempty"`
	Favicon      *BrandImage       `json:"favicon,omitempty"`
	PartnerLogo  *BrandImage       `json:"partnerLogo,omitempty" doc:"The co-brand logo of the partner whose portal this is"`
}

// PublicBrandingOutput is a portal's brand, with its validator.
type PublicBrandingOutput struct {
	Status       int
	ETag         string `header:"ETag"`
	CacheControl string `header:"Cache-Control"`
	Vary         string `header:"Vary"`
	Body         *PublicBranding
}

// BrandImageInput names a brand image by the SHA-256 of its bytes.
type BrandImageInput struct {
	SHA256 string `path:"sha256" minLength:"64" maxLength:"64" pattern:"^[0-9a-f]{64}$"`
}

// brandImageBytes bounds the image bodies the upload operations take.
const brandImageBytes = models.MaxLogoBytes

func registerBrandingRoutes(s *Server) {
	tags := []string{"Branding"}
	upload := func(desc string) *huma.RequestBody {
		return &huma.RequestBody{Required: true, Description: desc, Content: map[string]*huma.MediaType{
			"application/octet-stream": {Schema: &huma.Schema{Type: "string", Format: "binary", MaxLength: ptrInt(brandImageBytes)}}}}
	}
	uploadErrors := []int{http.StatusBadRequest, http.StatusNotFound, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType,
		http.StatusUnprocessableEntity, http.StatusServiceUnavailable}
	register(s, huma.Operation{OperationID: "get-public-branding", Method: http.MethodGet, Path: "/api/branding", Tags: tags,
		Summary:     "A portal's brand",
		Description: "Public: the brand of the portal of the host the request came in on (a verified custom domain), or of the tenant named by `tenant` on the installation's own host. Presentation data only. Answers an ETag; a matching If-None-Match is 304.",
		Responses:   map[string]*huma.Response{"304": {Description: "Not modified"}},
		Errors:      []int{http.StatusNotFound}}, Public(), s.getPublicBranding)
	register(s, huma.Operation{OperationID: "get-brand-image", Method: http.MethodGet, Path: "/api/branding/images/{sha256}", Tags: tags,
		Summary: "A logo or favicon", Description: "Public: a brand image by the SHA-256 of its bytes, cached for a year.",
		Responses: map[string]*huma.Response{
			"200": {Description: "The image", Content: map[string]*huma.MediaType{"image/png": {Schema: &huma.Schema{Type: "string", Format: "binary"}}}},
		},
		Errors: []int{http.StatusNotFound, http.StatusServiceUnavailable}}, Public(), s.getBrandImage)
	register(s, huma.Operation{OperationID: "get-branding", Method: http.MethodGet, Path: "/api/settings/branding", Tags: tags,
		Summary: "The tenant's portal brand", Security: UsersOrKeys}, Requires(authz.BrandingRead), s.getBranding)
	register(s, huma.Operation{OperationID: "update-branding", Method: http.MethodPatch, Path: "/api/settings/branding", Tags: tags,
		RequestBody: requestExample(`{"name": "Acme Partner Portal", "theme": {"primary": "#1f6feb", "accent": "#f78166"}, "supportEmail": "partners@acme.example", "cssVariables": [{"name": "--brand-radius", "value": "8px"}]}`),
		Summary:     "Change the tenant's portal brand", Description: "Name, colours, support email and CSS variables (plain values only: no url(), strings or blocks). Audited.",
		Security: UsersOrKeys, Errors: []int{http.StatusUnprocessableEntity}}, Requires(authz.BrandingWrite), s.updateBranding)
	register(s, huma.Operation{OperationID: "upload-brand-image", Method: http.MethodPut, Path: "/api/settings/branding/{kind}", Tags: tags,
		Summary:     "Upload the tenant's logo or favicon",
		Description: "The request body is the image (PNG, JPEG or GIF, told from its bytes; SVG is refused with 415). A logo is at most 512 KiB and 16 to 2048 pixels a side; a favicon at most 64 KiB, square, 16 to 512 pixels. It replaces the current one.",
		Security:    UsersOrKeys, MaxBodyBytes: brandImageBytes, RequestBody: upload("The image's bytes"),
		Metadata: map[string]any{metaStreamBody: true}, Errors: uploadErrors}, Requires(authz.BrandingWrite), s.uploadBrandImage)
	register(s, huma.Operation{OperationID: "delete-brand-image", Method: http.MethodDelete, Path: "/api/settings/branding/{kind}", Tags: tags,
		Summary: "Remove the tenant's logo or favicon", Security: UsersOrKeys, Errors: []int{http.StatusNotFound}},
		Requires(authz.BrandingWrite), s.deleteBrandImage)
	register(s, huma.Operation{OperationID: "get-partner-branding", Method: http.MethodGet, Path: "/api/partners/{id}/branding", Tags: tags,
		Summary: "A partner's co-brand", Description: "Its logo, shown beside the tenant's on the portal its users see.", Security: UsersOrKeys,
		Errors: []int{http.StatusNotFound}}, Requires(authz.BrandingRead), s.getPartnerBranding)
	register(s, huma.Operation{OperationID: "upload-partner-logo", Method: http.MethodPut, Path: "/api/partners/{id}/branding/logo", Tags: tags,
		Summary:     "Upload a partner's co-brand logo",
		Description: "The request body is the image, checked as the tenant's logo is. Operators only: the tenant vouches for what its portal shows.",
		Security:    UsersOrKeys, MaxBodyBytes: brandImageBytes, RequestBody: upload("The image's bytes"),
		Metadata: map[string]any{metaStreamBody: true}, Errors: uploadErrors}, Requires(authz.BrandingWrite), s.uploadPartnerLogo)
	register(s, huma.Operation{OperationID: "delete-partner-logo", Method: http.MethodDelete, Path: "/api/partners/{id}/branding/logo", Tags: tags,
		Summary: "Remove a partner's co-brand logo", Security: UsersOrKeys, Errors: []int{http.StatusNotFound}},
		Requires(authz.BrandingWrite), s.deletePartnerLogo)
}

// publicBrandingOf is the public view of a portal's brand.
func publicBrandingOf(b *models.PublicBranding) *PublicBranding {
	out := &PublicBranding{Tenant: b.TenantSlug, Name: b.Name, Theme: Theme(b.Theme), SupportEmail: b.SupportEmail,
		CSSVariables: b.CSSVariables, Logo: brandImageOf(b.Logo), Favicon: brandImageOf(b.Favicon), PartnerLogo: brandImageOf(b.PartnerLogo)}
	if out.CSSVariables == nil {
		out.CSSVariables = map[string]string{}
	}
	return out
}

// getPublicBranding answers the brand of the portal the request is for.
func (s *Server) getPublicBranding(ctx context.Context, in *PublicBrandingInput) (*PublicBrandingOutput, error) {
	if s.deps.Brands == nil {
		return nil, models.NotFound("PORTAL_NOT_FOUND", "portal")
	}
	site, ok := portalFrom(ctx)
	if !ok {
		if in.Tenant == "" {
			return nil, models.NotFound("PORTAL_NOT_FOUND", "portal")
		}
		t, err := s.deps.Brands.TenantBySlug(ctx, in.Tenant)
		if err != nil {
			return nil, models.NotFound("PORTAL_NOT_FOUND", "portal")
		}
		site = PortalSite{TenantID: t.ID}
	}
	b, err := s.deps.Brands.PublicBranding(ctx, site.TenantID, site.PartnerID)
	if err != nil {
		return nil, err
	}
	body := publicBrandingOf(b)
	raw, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(raw)
	etag := `"` + hex.EncodeToString(sum[:16]) + `"`
	out := &PublicBrandingOutput{Status: http.StatusOK, ETag: etag, CacheControl: "public, max-age=60, must-revalidate", Vary: "Host, Origin", Body: body}
	if etagMatches(in.IfNoneMatch, etag) {
		out.Status, out.Body = http.StatusNotModified, nil
	}
	return out, nil
}

// etagMatches reports whether an If-None-Match header names etag (weakly compared) or is *.
func etagMatches(header, etag string) bool {
	for _, v := range strings.Split(header, ",") {
		v = strings.TrimPrefix(strings.TrimSpace(v), "W/")
		if v == "*" || v == etag {
			return true
		}
	}
	return false
}

// getBrandImage streams a logo or favicon.
func (s *Server) getBrandImage(ctx context.Context, in *BrandImageInput) (*huma.StreamResponse, error) {
	b, err := s.blobs()
	if err != nil {
		return nil, err
	}
	if s.deps.Brands == nil {
		return nil, models.NotFound("IMAGE_NOT_FOUND", "image")
	}
	img, err := s.deps.Brands.BrandImageBySHA256(ctx, in.SHA256)
	if err != nil {
		return nil, err
	}
	f, err := b.Open(ctx, img.Key)
	if errors.Is(err, blobstore.ErrNotFound) {
		return nil, models.NotFound("IMAGE_NOT_FOUND", "image")
	}
	if err != nil {
		return nil, err
	}
	return &huma.StreamResponse{Body: func(hctx huma.Context) {
		defer func() { _ = f.Close() }()
		c := ginOf(hctx)
		if c == nil {
			hctx.SetStatus(http.StatusInternalServerError)
			return
		}
		h := c.Writer.Header()
		h.Set("Content-Type", img.ContentType)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Content-Security-Policy", "default-src 'none'")
		h.Set("Cross-Origin-Resource-Policy", "cross-origin")
		h.Set("ETag", `"`+img.SHA256+`"`)
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
		http.ServeContent(c.Writer, c.Request, "", f.ModTime(), f)
	}}, nil
}

func (s *Server) getBranding(ctx context.Context, _ *struct{}) (*BrandingOutput, error) {
	b, err := s.branding(ctx).Branding(ctx, "")
	if err != nil {
		return nil, err
	}
	return &BrandingOutput{Body: brandingOf(b)}, nil
}

func (s *Server) updateBranding(ctx context.Context, in *UpdateBrandingInput) (*BrandingOutput, error) {
	ch := models.BrandingChanges{Name: in.Body.Name, SupportEmail: in.Body.SupportEmail, SetCSSVariables: in.Body.CSSVariables != nil}
	if ch.SetCSSVariables {
		ch.CSSVariables = make(map[string]string, len(in.Body.CSSVariables))
		for _, v := range in.Body.CSSVariables {
			ch.CSSVariables[v.Name] = v.Value
		}
	}
	if in.Body.Theme != nil {
		t := models.ThemeTokens(*in.Body.Theme)
		ch.Theme = &t
	}
	b, err := s.branding(ctx).UpdateBranding(ctx, ch)
	if err != nil {
		return nil, err
	}
	return &BrandingOutput{Body: brandingOf(b)}, nil
}

// storeBrandImage reads the uploaded image of kind, checks its size in bytes, its type (told
// from its bytes) and its size in pixels, and keeps it in the blob store.
func (s *Server) storeBrandImage(ctx context.Context, kind string) (models.BrandImage, error) {
	b, err := s.blobs()
	if err != nil {
		return models.BrandImage{}, err
	}
	body, _ := ctx.Value(streamBodyKey{}).(io.Reader)
	if body == nil {
		return models.BrandImage{}, models.Invalid("FILE_REQUIRED", "the request body is the image")
	}
	limit := int64(models.MaxLogoBytes)
	if kind == models.BrandFavicon {
		limit = models.MaxFaviconBytes
	}
	data, err := io.ReadAll(io.LimitReader(body, limit+1))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) || int64(len(data)) > limit {
		return models.BrandImage{}, models.Errorf(models.KindTooLarge, "FILE_TOO_LARGE", "the image is larger than %d bytes", limit)
	}
	if err != nil {
		return models.BrandImage{}, err
	}
	if len(data) == 0 {
		return models.BrandImage{}, models.Invalid("FILE_EMPTY", "the image is empty")
	}
	ct := blobstore.Sniff(data)
	if !blobstore.Allowed(ct, models.BrandImageTypes) {
		return models.BrandImage{}, codedProblem(ctx, http.StatusUnsupportedMediaType, "UNSUPPORTED_IMAGE_TYPE", "images are PNG, JPEG or GIF; SVG is not accepted")
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return models.BrandImage{}, models.Invalid("IMAGE_UNREADABLE", "the image cannot be read")
	}
	if err := models.CheckBrandImage(kind, cfg.Width, cfg.Height); err != nil {
		return models.BrandImage{}, err
	}
	obj, err := b.Put(ctx, "branding", bytes.NewReader(data), blobstore.Limits{MaxBytes: limit, Types: models.BrandImageTypes})
	if err != nil {
		if p := s.blobWriteProblem(ctx, err); p != nil {
			return models.BrandImage{}, p
		}
		return models.BrandImage{}, err
	}
	return models.BrandImage{Key: obj.Key, ContentType: obj.ContentType, SHA256: obj.SHA256, Width: cfg.Width, Height: cfg.Height}, nil
}

// setBrandImage uploads the image of kind for the tenant (partnerID empty) or a partner and
// deletes the blob of the image it replaces.
func (s *Server) setBrandImage(ctx context.Context, partnerID, kind string) (*BrandingOutput, error) {
	st := s.branding(ctx)
	if _, err := st.Branding(ctx, partnerID); err != nil {
		return nil, err // nothing is stored for a partner the caller cannot see
	}
	img, err := s.storeBrandImage(ctx, kind)
	if err != nil {
		return nil, err
	}
	b, old, err := st.SetBrandImage(ctx, partnerID, kind, img)
	if err != nil {
		s.deleteBlob(ctx, img.Key)
		return nil, err
	}
	if old.Key != "" && old.Key != img.Key {
		s.deleteBlob(ctx, old.Key)
	}
	return &BrandingOutput{Body: brandingOf(b)}, nil
}

// clearBrandImage removes the image of kind and deletes its blob.
func (s *Server) clearBrandImage(ctx context.Context, partnerID, kind string) (*BrandingOutput, error) {
	b, old, err := s.branding(ctx).ClearBrandImage(ctx, partnerID, kind)
	if err != nil {
		return nil, err
	}
	if old.Key != "" {
		s.deleteBlob(ctx, old.Key)
	}
	return &BrandingOutput{Body: brandingOf(b)}, nil
}

// deleteBlob deletes a file no record names any more; a failure is logged, not answered.
func (s *Server) deleteBlob(ctx context.Context, key string) {
	if s.deps.Blobs == nil {
		return
	}
	if err := s.deps.Blobs.Delete(context.WithoutCancel(ctx), key); err != nil && !errors.Is(err, blobstore.ErrNotFound) {
		s.log.ErrorContext(ctx, "deleting a replaced file failed", "request_id", RequestID(ctx), "error", err.Error())
	}
}

func (s *Server) uploadBrandImage(ctx context.Context, in *UploadBrandImageInput) (*BrandingOutput, error) {
	return s.setBrandImage(ctx, "", in.Kind)
}

func (s *Server) deleteBrandImage(ctx context.Context, in *BrandImageKindPath) (*BrandingOutput, error) {
	return s.clearBrandImage(ctx, "", in.Kind)
}

func (s *Server) getPartnerBranding(ctx context.Context, in *PartnerBrandPath) (*BrandingOutput, error) {
	b, err := s.branding(ctx).Branding(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	return &BrandingOutput{Body: brandingOf(b)}, nil
}

func (s *Server) uploadPartnerLogo(ctx context.Context, in *PartnerBrandPath) (*BrandingOutput, error) {
	return s.setBrandImage(ctx, in.ID, models.BrandLogo)
}

func (s *Server) deletePartnerLogo(ctx context.Context, in *PartnerBrandPath) (*BrandingOutput, error) {
	return s.clearBrandImage(ctx, in.ID, models.BrandLogo)
}
