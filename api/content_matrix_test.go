package api

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/partnerd/partnerd/models"
	"github.com/partnerd/partnerd/models/store/stores"
)

func init() {
	fixtureHooks = append(fixtureHooks, func(t *testing.T, f *fixture, sc, _, _ *stores.Scoped) {
		ctx := context.Background()
		item := func(kind string, vis models.ContentVisibility) string {
			n := models.NewContentItem{Kind: kind, Title: "Matrix item", Visibility: vis}
			if kind == models.ContentLink {
				n.URL = "https://example.com/matrix"
			}
			it, err := sc.CreateContentItem(ctx, n)
			if err != nil {
				t.Fatal(err)
			}
			if kind == models.ContentFile {
				res := do(t, f.h, http.MethodPost, "/api/content/items/"+it.ID+"/versions?fileName=matrix.txt",
					strings.NewReader("matrix file"), bearer(f.tokens["owner"])...)
				if res.Status != http.StatusCreated {
					t.Fatalf("fixture upload = %d: %s", res.Status, res.Body)
				}
			}
			return it.ID
		}
		f.ids["contentFile"] = item(models.ContentFile, models.ContentVisibility{AllPartners: true})
		f.ids["contentP2"] = item(models.ContentFile, models.ContentVisibility{PartnerIDs: []string{f.partner2}})
		f.fresh["contentItem"] = func(string) string { return item(models.ContentLink, models.ContentVisibility{}) }
	})
	on := func(method, name, suffix string, body any) func(*fixture, string) request {
		return func(f *fixture, _ string) request {
			return request{method, "/api/content/items/" + f.ids[name] + suffix, body}
		}
	}
	other := func(method, suffix string, body any) func(*fixture) request {
		return func(f *fixture) request {
			return request{method, "/api/content/items/" + f.ids["contentP2"] + suffix, body}
		}
	}
	cases := map[string]matrixCase{
		"list-content-folders": {call: get("/api/content/folders")},
		"create-content-folder": {call: func(f *fixture, _ string) request {
			return request{http.MethodPost, "/api/content/folders", map[string]any{"name": f.unique("folder")}}
		}},
		"list-content-items": {call: get("/api/content/items")},
		"create-content-item": {call: func(*fixture, string) request {
			return request{http.MethodPost, "/api/content/items", map[string]any{"kind": "link", "title": "Brand book",
				"url": "https://example.com/brand", "visibility": map[string]any{"allPartners": true}}}
		}},
		"get-content-item": {byID: true, call: on(http.MethodGet, "contentFile", "", nil), otherPartner: other(http.MethodGet, "", nil)},
		"update-content-item": {byID: true, call: on(http.MethodPatch, "contentFile", "", map[string]any{"description": "changed"}),
			otherPartner: other(http.MethodPatch, "", map[string]any{"description": "x"})},
		"archive-content-item": {byID: true, call: func(f *fixture, role string) request {
			id := f.ids["contentFile"]
			if role != "foreign" && role != "" {
				id = f.fresh["contentItem"](role)
			}
			return request{http.MethodDelete, "/api/content/items/" + id, nil}
		}, otherPartner: other(http.MethodDelete, "", nil)},
		// The JSON-encoded string is a text file.
		"upload-content-file": {byID: true, call: on(http.MethodPost, "contentFile", "/versions?fileName=v.txt", "new version"),
			otherPartner: other(http.MethodPost, "/versions?fileName=v.txt", "x")},
		"list-content-versions": {byID: true, call: on(http.MethodGet, "contentFile", "/versions", nil), otherPartner: other(http.MethodGet, "/versions", nil)},
		"download-content":      {byID: true, call: on(http.MethodGet, "contentFile", "/download", nil), otherPartner: other(http.MethodGet, "/download", nil)},
	}
	for id, c := range cases {
		matrix[id] = c
	}
}
