package api

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"syscall"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/gin-gonic/gin"

	"github.com/partnerd/partnerd/api/authz"
	"github.com/partnerd/partnerd/blobstore"
	"github.com/partnerd/partnerd/models"
)

// ContentStore is what the content library's operations need of storage, as the caller sees it.
type ContentStore interface {
	CreateContentFolder(ctx context.Context, name string) (*models.ContentFolder, error)
	ListContentFolders(ctx context.Context, pg models.Page) ([]models.ContentFolder, string, error)
	CreateContentItem(ctx context.Context, n models.NewContentItem) (*models.ContentItem, error)
	ListContentItems(ctx context.Context, f models.ContentFilter, pg models.Page) ([]models.ContentItem, string, error)
	ContentItem(ctx context.Context, id string) (*models.ContentItem, error)
	UpdateContentItem(ctx context.Context, id string, ch models.ContentChanges) (*models.ContentItem, error)
	ArchiveContentItem(ctx context.Context, id string) (*models.ContentItem, error)
	AddContentVersion(ctx context.Context, id string, up models.ContentUpload) (*models.ContentVersion, error)
	ListContentVersions(ctx context.Context, id string, pg models.Page) ([]models.ContentVersion, string, error)
	ContentDownload(ctx context.Context, id, versionID string) (*models.ContentItem, *models.ContentVersion, error)
	RecordContentDownload(ctx context.Context, it *models.ContentItem, v *models.ContentVersion) error
}

// content is the content library as the caller sees it.
func (s *Server) content(ctx context.Context) ContentStore {
	return s.deps.Modules.Content(models.PrincipalFrom(ctx))
}

// ContentFolder groups content items.
type ContentFolder struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"createdAt"`
}

func contentFolderOf(f *models.ContentFolder) ContentFolder {
	return ContentFolder{ID: f.ID, Name: f.Name, CreatedAt: f.CreatedAt}
}

// ContentVisibility says which partners see an item.
type ContentVisibility struct {
	AllPartners bool     `json:"allPartners" doc:"Every partner sees the item" example:"false"`
	Levels      []string `json:"levels" nullable:"false" maxItems:"50" maxLength:"64" doc:"Partners at these levels see the item" example:"[\"Gold\"]"`
	PartnerIDs  []string `json:"partnerIds" nullable:"false" maxItems:"200" maxLength:"36" doc:"These partners see the item" example:"[]"`
}

// ContentItem is a file or link of the content library.
type ContentItem struct {
	ID            string     `json:"id"`
	Kind          string     `json:"kind" enum:"file,link"`
	Title         string     `json:"title"`
	Description   string     `json:"description,omitempty"`
	Language      string     `json:"language,omitempty"`
	URL           string     `json:"url,omitempty" doc:"The link's address (links)"`
	FolderID      string     `json:"folderId,omitempty"`
	Tags          []string   `json:"tags" nullable:"false"`
	Status        string     `json:"status" enum:"active,archived"`
	ExpiresAt     *time.Time `json:"expiresAt,omitempty" doc:"Partners no longer see the item after this time"`
	VersionID     string     `json:"versionId,omitempty" doc:"The current version (files)"`
	VersionNumber int        `json:"versionNumber" doc:"The current version's number; 0 for a file not uploaded yet and for links"`
	FileName      string     `json:"fileName,omitempty"`
	ContentType   string     `json:"contentType,omitempty" doc:"The media type told by the file's bytes"`
	Size          int64      `json:"size" doc:"The current file's size in bytes"`
	SHA256        string     `json:"sha256,omitempty" doc:"Hex SHA-256 of the current file"`
	// Visibility is shown to operators only.
	Visibility *ContentVisibility `json:"visibility,omitempty" doc:"Who sees the item (operators only)"`
	CreatedAt  time.Time          `json:"createdAt"`
	UpdatedAt  time.Time          `json:"updatedAt"`
}

func contentItemView(partner bool) func(*models.ContentItem) ContentItem {
	return func(it *models.ContentItem) ContentItem {
		out := ContentItem{ID: it.ID, Kind: it.Kind, Title: it.Title, Description: it.Description, Language: it.Language, URL: it.URL,
			FolderID: str(it.FolderID), Tags: it.Tags, Status: it.Status, ExpiresAt: it.ExpiresAt, VersionID: str(it.CurrentVersionID),
			VersionNumber: it.VersionNumber, FileName: it.FileName, ContentType: it.ContentType, Size: it.Size, SHA256: it.SHA256,
			CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt}
		if out.Tags == nil {
			out.Tags = []string{}
		}
		if !partner {
			v := ContentVisibility{AllPartners: it.AllPartners, Levels: it.Levels, PartnerIDs: it.PartnerIDs}
			if v.Levels == nil {
				v.Levels = []string{}
			}
			if v.PartnerIDs == nil {
				v.PartnerIDs = []string{}
			}
			out.Visibility = &v
		}
		return out
	}
}

func (s *Server) contentItemOf(ctx context.Context) func(*models.ContentItem) ContentItem {
	p := models.PrincipalFrom(ctx)
	return contentItemView(p != nil && p.PartnerID != "")
}

// ContentVersion is one uploaded file of an item.
type ContentVersion struct {
	ID          string    `json:"id"`
	Number      int       `json:"number"`
	FileName    string    `json:"fileName"`
	ContentType string    `json:"contentType" doc:"The media type told by the file's bytes"`
	Size        int64     `json:"size"`
	SHA256      string    `json:"sha256"`
	CreatedBy   string    `json:"createdBy,omitempty"`
	CreatedAt   time.Time `json:"createdAt"`
}

func contentVersionOf(v *models.ContentVersion) ContentVersion {
	return ContentVersion{ID: v.ID, Number: v.Number, FileName: v.FileName, ContentType: v.ContentType, Size: v.Size,
		SHA256: v.SHA256, CreatedBy: v.CreatedBy, CreatedAt: v.CreatedAt}
}

// CreateContentFolderInput adds a folder.
type CreateContentFolderInput struct {
	Body struct {
		Name string `json:"name" minLength:"1" maxLength:"200" example:"Sales decks"`
	}
}

// ContentVisibilityInput says which partners see an item.
type ContentVisibilityInput struct {
	AllPartners bool     `json:"allPartners,omitempty" doc:"Every partner sees the item" example:"false"`
	Levels      []string `json:"levels,omitempty" maxItems:"50" maxLength:"64" doc:"Partners at these levels see the item" example:"[\"Gold\"]"`
	PartnerIDs  []string `json:"partnerIds,omitempty" maxItems:"200" maxLength:"36" doc:"These partners see the item" example:"[\"0193a7c2-8a51-7d41-9c3e-6f0f2b1f4a10\"]"`
}

func (v ContentVisibilityInput) model() models.ContentVisibility {
	return models.ContentVisibility{AllPartners: v.AllPartners, Levels: v.Levels, PartnerIDs: v.PartnerIDs}
}

// CreateContentItemInput adds a file or link item.
type CreateContentItemInput struct {
	Body struct {
		Kind        string                 `json:"kind" enum:"file,link" doc:"A file is uploaded afterwards (upload-content-file); a link needs url" example:"file"`
		Title       string                 `json:"title" minLength:"1" maxLength:"200" example:"Pricing deck 2027"`
		Description string                 `json:"description,omitempty" maxLength:"5000" example:"The list prices and discounts for resellers."`
		Language    string                 `json:"language,omitempty" maxLength:"35" doc:"BCP 47 tag" example:"en"`
		URL         string                 `json:"url,omitempty" maxLength:"2048" doc:"The link's address (links only)" example:"https://example.com/brand"`
		FolderID    string                 `json:"folderId,omitempty" maxLength:"36" example:"0193a7c2-8a51-7d41-9c3e-6f0f2b1f4a10"`
		Tags        []string               `json:"tags,omitempty" maxItems:"20" maxLength:"50" example:"[\"pricing\",\"deck\"]"`
		ExpiresAt   *time.Time             `json:"expiresAt,omitempty" doc:"Partners no longer see the item after this time" example:"2027-12-31T23:59:59Z"`
		Visibility  ContentVisibilityInput `json:"visibility,omitempty" doc:"Who sees the item; nobody but operators when absent"`
	}
}

// UpdateContentItemInput changes an item; absent fields stay.
type UpdateContentItemInput struct {
	ID   string `path:"id" maxLength:"36"`
	Body struct {
		Title       *string                 `json:"title,omitempty" minLength:"1" maxLength:"200" example:"Pricing deck 2027 (v2)"`
		Description *string                 `json:"description,omitempty" maxLength:"5000" example:"Updated discounts."`
		Language    *string                 `json:"language,omitempty" maxLength:"35" example:"de"`
		URL         *string                 `json:"url,omitempty" maxLength:"2048" example:"https://example.com/brand-2027"`
		FolderID    *string                 `json:"folderId,omitempty" maxLength:"36" doc:"\"\" takes the item out of its folder" example:""`
		Tags        *[]string               `json:"tags,omitempty" maxItems:"20" maxLength:"50" example:"[\"pricing\"]"`
		ExpiresAt   *time.Time              `json:"expiresAt,omitempty" example:"2028-06-30T00:00:00Z"`
		ClearExpiry bool                    `json:"clearExpiry,omitempty" doc:"Remove the expiry" example:"false"`
		Visibility  *ContentVisibilityInput `json:"visibility,omitempty" doc:"Replaces who sees the item"`
	}
}

// ListContentItemsInput filters the content library.
type ListContentItemsInput struct {
	ListParams
	FolderID string `query:"folderId" maxLength:"36"`
	Tag      string `query:"tag" maxLength:"50"`
	Language string `query:"language" maxLength:"35"`
	Kind     string `query:"kind" enum:"file,link"`
	Q        string `query:"q" maxLength:"200" doc:"Text in the title or description"`
	Archived bool   `query:"archived" doc:"List archived items instead (operators)"`
}

// UploadContentFileInput is a file for an item: the request body is the file's bytes.
type UploadContentFileInput struct {
	ID       string `path:"id" maxLength:"36"`
	FileName string `query:"fileName" required:"true" minLength:"1" maxLength:"255" doc:"The file's name, shown on download" example:"pricing.pdf"`
}

// ContentVersionsInput pages an item's versions.
type ContentVersionsInput struct {
	ListParams
	ID string `path:"id" maxLength:"36"`
}

// DownloadContentInput names the item and, for operators, a version.
type DownloadContentInput struct {
	ID        string `path:"id" maxLength:"36"`
	VersionID string `query:"versionId" maxLength:"36" doc:"An earlier version (operators); partners always get the current one"`
	Range     string `header:"Range" maxLength:"200" doc:"Byte ranges (RFC 9110)"`
}

// ContentFolderOutput is one folder.
type ContentFolderOutput struct{ Body ContentFolder }

// ContentFolderListOutput is a page of folders.
type ContentFolderListOutput struct{ Body ListBody[ContentFolder] }

// ContentItemOutput is one item.
type ContentItemOutput struct{ Body ContentItem }

// ContentItemListOutput is a page of items.
type ContentItemListOutput struct{ Body ListBody[ContentItem] }

// ContentVersionOutput is the version uploaded.
type ContentVersionOutput struct{ Body ContentVersion }

// ContentVersionListOutput is a page of versions.
type ContentVersionListOutput struct{ Body ListBody[ContentVersion] }

// metaStreamBody marks an operation whose handler reads the request body itself, as a stream
// (uploads); bounds then checks only its parameters and size.
const metaStreamBody = "partnerd.streamBody"

// streamBodyKey holds, in a stream-body operation's context, the request body.
type streamBodyKey struct{}

// contentMaxBytes is the largest content file accepted.
func (s *Server) contentMaxBytes() int64 {
	if s.cfg.ContentMaxBytes > 0 {
		return s.cfg.ContentMaxBytes
	}
	return models.ContentMaxBytes
}

func registerContentRoutes(s *Server) {
	tags := []string{"Content"}
	maxBytes := s.contentMaxBytes()
	register(s, huma.Operation{OperationID: "list-content-folders", Method: http.MethodGet, Path: "/api/content/folders", Tags: tags,
		Summary: "List the content library's folders", Security: UsersOrKeys}, Requires(authz.ContentRead), s.listContentFolders)
	register(s, huma.Operation{OperationID: "create-content-folder", RequestBody: requestExample(`{"name": "Sales decks"}`), Method: http.MethodPost, Path: "/api/content/folders", Tags: tags,
		Summary: "Add a folder to the content library", DefaultStatus: http.StatusCreated, Security: UsersOrKeys,
		Errors: []int{http.StatusConflict, http.StatusUnprocessableEntity}}, Requires(authz.ContentWrite), s.createContentFolder)
	register(s, huma.Operation{OperationID: "list-content-items", Method: http.MethodGet, Path: "/api/content/items", Tags: tags,
		Summary: "List and search the content library", Description: "Partners see only active, unexpired items visible to all partners, to their level or to them by name; a file item appears once its file is uploaded.",
		Security: UsersOrKeys}, Requires(authz.ContentRead), s.listContentItems)
	register(s, huma.Operation{OperationID: "create-content-item", RequestBody: requestExample(`{"kind": "file", "title": "Pricing deck 2027", "description": "The list prices and discounts for resellers.", "folderId": "0193a7c2-8a51-7d41-9c3e-6f0f2b1f4a10", "language": "en", "tags": ["pricing", "deck"], "expiresAt": "2027-12-31T23:59:59Z"}`), Method: http.MethodPost, Path: "/api/content/items", Tags: tags,
		Summary: "Add a file or link to the content library", DefaultStatus: http.StatusCreated, Security: UsersOrKeys,
		Errors: []int{http.StatusUnprocessableEntity}}, Requires(authz.ContentWrite), s.createContentItem)
	register(s, huma.Operation{OperationID: "get-content-item", Method: http.MethodGet, Path: "/api/content/items/{id}", Tags: tags,
		Summary: "Get a content item", Description: "An item the caller may not see is 404.", Security: UsersOrKeys,
		Errors: []int{http.StatusNotFound}}, Requires(authz.ContentRead), s.getContentItem)
	register(s, huma.Operation{OperationID: "update-content-item", RequestBody: requestExample(`{"title": "Pricing deck 2027 (v2)", "description": "Updated discounts.", "tags": ["pricing"]}`), Method: http.MethodPatch, Path: "/api/content/items/{id}", Tags: tags,
		Summary: "Change a content item's details or visibility", Security: UsersOrKeys,
		Errors: []int{http.StatusNotFound, http.StatusUnprocessableEntity}}, Requires(authz.ContentWrite), s.updateContentItem)
	register(s, huma.Operation{OperationID: "archive-content-item", Method: http.MethodDelete, Path: "/api/content/items/{id}", Tags: tags,
		Summary: "Archive a content item", Description: "Partners no longer see it; its files and history stay.", Security: UsersOrKeys,
		Errors: []int{http.StatusNotFound}}, Requires(authz.ContentWrite), s.archiveContentItem)
	register(s, huma.Operation{OperationID: "upload-content-file", Method: http.MethodPost, Path: "/api/content/items/{id}/versions", Tags: tags,
		Summary: "Upload a file item's new version", Description: "The request body is the file's bytes (any Content-Type; the type is told from the bytes and must be a document, image, video, audio, archive or text type). The new version becomes the current one; earlier ones stay in the history. Over the size limit is 413 FILE_TOO_LARGE, a type outside the list 415 UNSUPPORTED_FILE_TYPE, both before anything is kept.",
		DefaultStatus: http.StatusCreated, Security: UsersOrKeys, MaxBodyBytes: maxBytes,
		RequestBody: &huma.RequestBody{Required: true, Description: "The file's bytes", Content: map[string]*huma.MediaType{
			"application/octet-stream": {Schema: &huma.Schema{Type: "string", Format: "binary", MaxLength: ptrInt(int(maxBytes))}}}},
		Metadata: map[string]any{metaStreamBody: true},
		Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType,
			http.StatusUnprocessableEntity, http.StatusServiceUnavailable}},
		Requires(authz.ContentWrite), s.uploadContentFile)
	register(s, huma.Operation{OperationID: "list-content-versions", Method: http.MethodGet, Path: "/api/content/items/{id}/versions", Tags: tags,
		Summary: "List a file item's versions, oldest first", Security: UsersOrKeys, Errors: []int{http.StatusNotFound}},
		Requires(authz.ContentRead), s.listContentVersions)
	register(s, huma.Operation{OperationID: "download-content", Method: http.MethodGet, Path: "/api/content/items/{id}/download", Tags: tags,
		Summary: "Download a file item's file", Description: "Streams the current version (operators may name an earlier one) with Range support (206). A download that starts at the first byte emits content.downloaded, attributed to the partner. An item the caller may not see is 404.",
		Security: UsersOrKeys,
		Responses: map[string]*huma.Response{
			"200": {Description: "The file", Content: map[string]*huma.MediaType{"application/octet-stream": {Schema: &huma.Schema{Type: "string", Format: "binary"}}}},
			"206": {Description: "The requested byte ranges"},
		},
		Errors: []int{http.StatusNotFound, http.StatusRequestedRangeNotSatisfiable, http.StatusServiceUnavailable}},
		Requires(authz.ContentRead), s.downloadContent)
}

func ptrInt(n int) *int { return &n }

func (s *Server) listContentFolders(ctx context.Context, in *ListParams) (*ContentFolderListOutput, error) {
	body, err := listPage(ctx, s, *in, func(pg models.Page) ([]models.ContentFolder, string, error) {
		return s.content(ctx).ListContentFolders(ctx, pg)
	}, contentFolderOf)
	return &ContentFolderListOutput{Body: body}, err
}

func (s *Server) createContentFolder(ctx context.Context, in *CreateContentFolderInput) (*ContentFolderOutput, error) {
	f, err := s.content(ctx).CreateContentFolder(ctx, in.Body.Name)
	if err != nil {
		return nil, err
	}
	return &ContentFolderOutput{Body: contentFolderOf(f)}, nil
}

func (s *Server) listContentItems(ctx context.Context, in *ListContentItemsInput) (*ContentItemListOutput, error) {
	f := models.ContentFilter{FolderID: in.FolderID, Tag: in.Tag, Language: in.Language, Kind: in.Kind, Query: in.Q, Archived: in.Archived}
	body, err := listPage(ctx, s, in.ListParams, func(pg models.Page) ([]models.ContentItem, string, error) {
		return s.content(ctx).ListContentItems(ctx, f, pg)
	}, s.contentItemOf(ctx))
	return &ContentItemListOutput{Body: body}, err
}

func (s *Server) contentItemOutput(ctx context.Context, it *models.ContentItem, err error) (*ContentItemOutput, error) {
	if err != nil {
		return nil, err
	}
	return &ContentItemOutput{Body: s.contentItemOf(ctx)(it)}, nil
}

func (s *Server) createContentItem(ctx context.Context, in *CreateContentItemInput) (*ContentItemOutput, error) {
	b := in.Body
	it, err := s.content(ctx).CreateContentItem(ctx, models.NewContentItem{Kind: b.Kind, Title: b.Title, Description: b.Description,
		Language: b.Language, URL: b.URL, FolderID: b.FolderID, Tags: b.Tags, ExpiresAt: b.ExpiresAt, Visibility: b.Visibility.model()})
	return s.contentItemOutput(ctx, it, err)
}

func (s *Server) getContentItem(ctx context.Context, in *IDPath) (*ContentItemOutput, error) {
	it, err := s.content(ctx).ContentItem(ctx, in.ID)
	return s.contentItemOutput(ctx, it, err)
}

func (s *Server) updateContentItem(ctx context.Context, in *UpdateContentItemInput) (*ContentItemOutput, error) {
	b := in.Body
	ch := models.ContentChanges{FolderID: b.FolderID, Title: b.Title, Description: b.Description, Language: b.Language, URL: b.URL,
		Tags: b.Tags, ExpiresAt: b.ExpiresAt, ClearExpiry: b.ClearExpiry}
	if b.Visibility != nil {
		v := b.Visibility.model()
		ch.Visibility = &v
	}
	it, err := s.content(ctx).UpdateContentItem(ctx, in.ID, ch)
	return s.contentItemOutput(ctx, it, err)
}

func (s *Server) archiveContentItem(ctx context.Context, in *IDPath) (*ContentItemOutput, error) {
	it, err := s.content(ctx).ArchiveContentItem(ctx, in.ID)
	return s.contentItemOutput(ctx, it, err)
}

// blobs is the blob store, or the 503 that answers without one.
func (s *Server) blobs() (*blobstore.Store, error) {
	if s.deps.Blobs == nil {
		return nil, models.Errorf(models.KindUnavailable, "FILES_UNAVAILABLE", "file storage is not configured")
	}
	return s.deps.Blobs, nil
}

// storeUpload keeps the request body of a stream-body operation in the blob store under prefix,
// within lim, answering 413, 415 or 422 for what it refuses.
func (s *Server) storeUpload(ctx context.Context, prefix string, lim blobstore.Limits) (blobstore.Object, error) {
	b, err := s.blobs()
	if err != nil {
		return blobstore.Object{}, err
	}
	body, _ := ctx.Value(streamBodyKey{}).(io.Reader)
	if body == nil {
		return blobstore.Object{}, models.Invalid("FILE_REQUIRED", "the request body is the file")
	}
	obj, err := b.Put(ctx, prefix, body, lim)
	var tooBig *http.MaxBytesError
	switch {
	case errors.Is(err, blobstore.ErrTooLarge), errors.As(err, &tooBig):
		return obj, models.Errorf(models.KindTooLarge, "FILE_TOO_LARGE", "the file is larger than %d bytes", lim.MaxBytes)
	case errors.Is(err, blobstore.ErrTypeNotAllowed):
		return obj, codedProblem(ctx, http.StatusUnsupportedMediaType, "UNSUPPORTED_FILE_TYPE", "files of this type are not accepted")
	case errors.Is(err, blobstore.ErrEmpty):
		return obj, models.Invalid("FILE_EMPTY", "the file is empty")
	case err != nil:
		if p := s.blobWriteProblem(ctx, err); p != nil {
			return obj, p
		}
	}
	return obj, err
}

// blobWriteProblem is the answer to a blob store that refuses to write for lack of space
// (507 FILE_STORAGE_FULL) or because it is read-only (503 FILE_STORAGE_READ_ONLY); nil for any
// other failure. Either is logged: an operator has to act.
func (s *Server) blobWriteProblem(ctx context.Context, err error) *Problem {
	var p *Problem
	switch {
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		p = codedProblem(ctx, http.StatusInsufficientStorage, "FILE_STORAGE_FULL", "file storage is full; the file was not stored")
	case errors.Is(err, syscall.EROFS), errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM):
		p = codedProblem(ctx, http.StatusServiceUnavailable, "FILE_STORAGE_READ_ONLY", "file storage does not accept files now; the file was not stored")
		p.headers = http.Header{"Retry-After": []string{"60"}}
	default:
		return nil
	}
	s.log.ErrorContext(ctx, "file storage refused a write", "request_id", RequestID(ctx), "code", p.Code, "error", err.Error())
	return p
}

func (s *Server) uploadContentFile(ctx context.Context, in *UploadContentFileInput) (*ContentVersionOutput, error) {
	st := s.content(ctx)
	if _, err := st.ContentItem(ctx, in.ID); err != nil {
		return nil, err // nothing is stored for an item the caller cannot see
	}
	name, err := models.ParseContentFileName(in.FileName)
	if err != nil {
		return nil, err // nor for a name that would be refused
	}
	obj, err := s.storeUpload(ctx, "content", blobstore.Limits{MaxBytes: s.contentMaxBytes(), Types: models.ContentTypes})
	if err != nil {
		return nil, err
	}
	v, err := st.AddContentVersion(ctx, in.ID, models.ContentUpload{BlobKey: obj.Key, FileName: name,
		ContentType: obj.ContentType, Size: obj.Size, SHA256: obj.SHA256})
	if err != nil {
		if derr := s.deps.Blobs.Delete(context.WithoutCancel(ctx), obj.Key); derr != nil {
			s.log.ErrorContext(ctx, "deleting an orphaned upload failed", "request_id", RequestID(ctx), "error", derr.Error())
		}
		return nil, err
	}
	return &ContentVersionOutput{Body: contentVersionOf(v)}, nil
}

func (s *Server) listContentVersions(ctx context.Context, in *ContentVersionsInput) (*ContentVersionListOutput, error) {
	body, err := listPage(ctx, s, in.ListParams, func(pg models.Page) ([]models.ContentVersion, string, error) {
		return s.content(ctx).ListContentVersions(ctx, in.ID, pg)
	}, contentVersionOf)
	return &ContentVersionListOutput{Body: body}, err
}

// startsAtFirstByte reports whether a request with this Range header reads the file from its
// start: a whole download, or the first range of one. Later ranges of the same download do not
// count again.
func startsAtFirstByte(rangeHeader string) bool {
	r := strings.TrimSpace(rangeHeader)
	return r == "" || strings.HasPrefix(r, "bytes=0-")
}

func (s *Server) downloadContent(ctx context.Context, in *DownloadContentInput) (*huma.StreamResponse, error) {
	if _, err := s.blobs(); err != nil {
		return nil, err
	}
	st := s.content(ctx)
	it, v, err := st.ContentDownload(ctx, in.ID, in.VersionID)
	if err != nil {
		return nil, err
	}
	f, err := s.openBlob(ctx, v.BlobKey, models.NotFound("CONTENT_FILE_NOT_FOUND", "file"))
	if err != nil {
		return nil, err
	}
	if startsAtFirstByte(in.Range) {
		if err := st.RecordContentDownload(ctx, it, v); err != nil {
			_ = f.Close()
			return nil, err
		}
	}
	return downloadResponse(f, download{ContentType: v.ContentType, FileName: v.FileName, ModTime: v.CreatedAt, ETag: v.SHA256}), nil
}

// ginOf is the gin context under a huma context, through middleware wrappers.
func ginOf(hctx huma.Context) *gin.Context {
	for {
		switch c := hctx.(type) {
		case interface{ Unwrap() *gin.Context }:
			return c.Unwrap()
		case interface{ Unwrap() huma.Context }:
			hctx = c.Unwrap()
		default:
			return nil
		}
	}
}
