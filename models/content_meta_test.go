package models

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestParseContentMetaRefusesBrokenTextAndOversizeWithItsCodes(t *testing.T) {
	ok := ContentMeta{Title: "Pricing deck", Description: "Prices\tand\r\ndiscounts", Language: "pt-BR",
		FolderID: "0193a7c2-8a51-7d41-9c3e-6f0f2b1f4a10", Tags: []string{" Deck ", "deck", "pricing"}, FileName: `C:\decks\"pricing".pdf`}
	got, err := ParseContentMeta(ok)
	if err != nil {
		t.Fatal(err)
	}
	if got.Title != "Pricing deck" || got.FileName != "pricing.pdf" || !reflect.DeepEqual(got.Tags, []string{"deck", "pricing"}) {
		t.Fatalf("normalised = %+v", got)
	}
	for _, c := range []struct {
		name string
		edit func(*ContentMeta)
		code string
		loc  string
	}{
		{"NUL in the title", func(m *ContentMeta) { m.Title = "a\x00b" }, "INVALID_TEXT", "body.title"},
		{"broken UTF-8 in the description", func(m *ContentMeta) { m.Description = "caf\xe9" }, "INVALID_TEXT", "body.description"},
		{"bidi override in a tag", func(m *ContentMeta) { m.Tags = []string{"a\u202eb"} }, "INVALID_TEXT", "body.tags"},
		{"NUL in the file name", func(m *ContentMeta) { m.FileName = "a\x00.pdf" }, "INVALID_TEXT", "query.fileName"},
		{"broken UTF-8 in the file name", func(m *ContentMeta) { m.FileName = "\xff.pdf" }, "INVALID_TEXT", "query.fileName"},
		{"title of 201 characters", func(m *ContentMeta) { m.Title = strings.Repeat("é", 201) }, "TEXT_TOO_LONG", "body.title"},
		{"description of 5001 characters", func(m *ContentMeta) { m.Description = strings.Repeat("x", 5001) }, "TEXT_TOO_LONG", "body.description"},
		{"file name of 256 bytes", func(m *ContentMeta) { m.FileName = strings.Repeat("a", 252) + ".pdf" }, "TEXT_TOO_LONG", "query.fileName"},
		{"file name path of 1025 bytes", func(m *ContentMeta) { m.FileName = strings.Repeat("d/", 510) + "a.pdf" }, "TEXT_TOO_LONG", "query.fileName"},
		{"folder id of 37 bytes", func(m *ContentMeta) { m.FolderID = strings.Repeat("f", 37) }, "TEXT_TOO_LONG", "body.folderId"},
		{"21 tags", func(m *ContentMeta) { m.Tags = strings.Split(strings.Repeat("t,", 20)+"t", ",") }, "TOO_MANY_TAGS", "body.tags"},
		{"blank title", func(m *ContentMeta) { m.Title = " \t" }, "TITLE_REQUIRED", "body.title"},
		{"a path and no name", func(m *ContentMeta) { m.FileName = "decks/.." }, "FILE_NAME_REQUIRED", "query.fileName"},
		{"bad language", func(m *ContentMeta) { m.Language = "english!" }, "INVALID_LANGUAGE", "body.language"},
		{"expiry in year 10000", func(m *ContentMeta) {
			at := time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
			m.ExpiresAt = &at
		}, "INVALID_EXPIRY", "body.expiresAt"},
	} {
		m := ok
		c.edit(&m)
		_, err := ParseContentMeta(m)
		var e *Error
		if !errors.As(err, &e) || e.Code != c.code || e.Kind != KindInvalid || len(e.Fields) != 1 || e.Fields[0].Location != c.loc {
			t.Errorf("%s: %v, want %s at %s", c.name, err, c.code, c.loc)
		}
	}
}

// FuzzContentMeta feeds arbitrary metadata to ParseContentMeta: it never panics; what it accepts
// is bounded, keeps the text rules and parses to itself; what it refuses is a 422 with one of the
// documented codes, and broken UTF-8, NUL and oversize values are always refused.
func FuzzContentMeta(f *testing.F) {
	f.Add("pricing.pdf", "Pricing deck", "Prices for resellers", "en", "0193a7c2-8a51-7d41-9c3e-6f0f2b1f4a10", "deck,pricing", int64(1893456000))
	f.Add(`C:\Users\a\"deck".pdf`, "  Deck  ", "line\r\nbreak\ttab", "pt-BR", "", " Deck ,deck", int64(0))
	f.Add("a\x00.pdf", "t", "", "", "", "", int64(-1))
	f.Add("\xff\xfe", "caf\xe9", "x", "zz-Latn-x", "f", "", int64(253402300800))
	f.Add("../..", "\u202e", "\u0085", "en", "", "a\u2066,b", int64(1))
	f.Add(strings.Repeat("é", 200)+".pdf", strings.Repeat("日", 200), "", "de", "", strings.Repeat("t,", 25), int64(1e12))
	f.Fuzz(func(t *testing.T, fileName, title, description, language, folderID, tags string, expiry int64) {
		in := ContentMeta{FileName: fileName, Title: title, Description: description, Language: language, FolderID: folderID}
		if tags != "" {
			in.Tags = strings.Split(tags, ",")
		}
		if expiry != -1 {
			at := time.Unix(expiry%(1<<40), expiry%1e9)
			in.ExpiresAt = &at
		}
		out, err := ParseContentMeta(in)
		fields := []string{fileName, title, description, language, folderID, tags}
		broken := false
		for _, s := range fields {
			if !utf8.ValidString(s) || strings.ContainsRune(s, 0) {
				broken = true
			}
		}
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Kind != KindInvalid || len(e.Fields) != 1 {
				t.Fatalf("refusal %v is not one 422 field error", err)
			}
			switch e.Code {
			case "INVALID_TEXT", "TEXT_TOO_LONG", "TITLE_REQUIRED", "FILE_NAME_REQUIRED", "INVALID_LANGUAGE", "INVALID_TAG",
				"TOO_MANY_TAGS", "INVALID_EXPIRY":
			default:
				t.Fatalf("undocumented code %s", e.Code)
			}
			return
		}
		if broken {
			t.Fatalf("accepted broken text or NUL: %q", fields)
		}
		for _, s := range append([]string{out.FileName, out.Title, out.Description, out.Language, out.FolderID}, out.Tags...) {
			if TextProblem(s) != "" {
				t.Fatalf("accepted %q, which breaks the text rules", s)
			}
		}
		switch {
		case len(fileName) > ContentFileNameRawMax, len(out.FileName) > ContentFileNameMax,
			strings.ContainsAny(out.FileName, `/\"`),
			out.Title == "", utf8.RuneCountInString(out.Title) > ContentTitleMax,
			utf8.RuneCountInString(out.Description) > ContentDescriptionMax,
			len(out.Language) > ContentLanguageMax, len(out.FolderID) > ContentFolderIDMax, len(out.Tags) > ContentTagsMax:
			t.Fatalf("accepted an unbounded value: %+v", out)
		}
		for _, tag := range out.Tags {
			if len(tag) > 50 || tag != strings.ToLower(strings.TrimSpace(tag)) {
				t.Fatalf("tag %q not normalised", tag)
			}
		}
		if out.ExpiresAt != nil && (out.ExpiresAt.Location() != time.UTC || out.ExpiresAt.Before(ContentExpiryMin) || out.ExpiresAt.After(ContentExpiryMax)) {
			t.Fatalf("expiry %v", out.ExpiresAt)
		}
		// Accepted values round-trip: the result parses to itself, and a canonical value is kept as given.
		again, err := ParseContentMeta(out)
		if err != nil || !reflect.DeepEqual(again, out) {
			t.Fatalf("result %+v parses to %+v, %v", out, again, err)
		}
		if out.Description != description || out.Language != language || out.FolderID != folderID {
			t.Fatalf("free text changed: %+v", out)
		}
		if strings.TrimSpace(title) == title && out.Title != title {
			t.Fatalf("title %q became %q", title, out.Title)
		}
		if fileName != "" && !strings.ContainsAny(fileName, `/\"`) && strings.TrimSpace(fileName) == fileName && out.FileName != fileName {
			t.Fatalf("file name %q became %q", fileName, out.FileName)
		}
	})
}
