package models

import (
	"strings"
	"time"
	"unicode/utf8"
)

// Bounds of a content item's metadata; the API declares the same ones.
const (
	ContentTitleMax       = 200  // runes
	ContentDescriptionMax = 5000 // runes
	ContentLanguageMax    = 35   // bytes
	ContentFolderIDMax    = 36   // bytes
	ContentTagsMax        = 20
	ContentFileNameMax    = 255 // bytes of the name kept (without its path)
	// ContentFileNameRawMax bounds the name as sent, path included.
	ContentFileNameRawMax = 1024
)

// ContentExpiryMin and ContentExpiryMax bound an item's expiry: years both databases store and
// RFC 3339 can write.
var (
	ContentExpiryMin = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)
	ContentExpiryMax = time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)
)

// ContentMeta is the metadata that arrives with a content item or upload: the file's name (an
// upload's query parameter; empty when none is given), the item's title, description, language,
// folder, tags and expiry.
type ContentMeta struct {
	FileName    string
	Title       string
	Description string
	Language    string
	FolderID    string
	Tags        []string
	ExpiresAt   *time.Time
}

// ParseContentMeta checks and normalises content metadata without touching anything else. Errors
// (all 422, each naming the field's location):
//
//   - INVALID_TEXT: a value is not valid UTF-8, or holds a control character (NUL included) other
//     than tab and line breaks, or a bidirectional control;
//   - TEXT_TOO_LONG: over its bound (ContentTitleMax, ContentDescriptionMax, ContentLanguageMax,
//     ContentFolderIDMax, ContentFileNameMax/ContentFileNameRawMax);
//   - TITLE_REQUIRED, FILE_NAME_REQUIRED (a name with nothing left of it), INVALID_LANGUAGE,
//     INVALID_TAG, TOO_MANY_TAGS, INVALID_EXPIRY (outside ContentExpiryMin..ContentExpiryMax).
//
// The result is its own normal form: title trimmed, tags lower-cased, trimmed and de-duplicated,
// the file name reduced to its base name without quotes, the expiry in UTC to the microsecond.
// Parsing a result again returns it unchanged.
func ParseContentMeta(m ContentMeta) (ContentMeta, error) {
	out := ContentMeta{Description: m.Description, Language: m.Language, FolderID: m.FolderID}
	for _, f := range []struct{ loc, val string }{
		{"body.title", m.Title}, {"body.description", m.Description}, {"body.language", m.Language}, {"body.folderId", m.FolderID},
	} {
		if err := textRules(f.loc, f.val); err != nil {
			return ContentMeta{}, err
		}
	}
	if m.FileName != "" {
		name, err := ParseContentFileName(m.FileName)
		if err != nil {
			return ContentMeta{}, err
		}
		out.FileName = name
	}
	out.Title = strings.TrimSpace(m.Title)
	switch {
	case out.Title == "":
		return ContentMeta{}, Invalid("TITLE_REQUIRED", "a content item needs a title", FieldError{Location: "body.title", Message: "required"})
	case utf8.RuneCountInString(out.Title) > ContentTitleMax:
		return ContentMeta{}, tooLong("body.title", ContentTitleMax, "characters")
	case utf8.RuneCountInString(m.Description) > ContentDescriptionMax:
		return ContentMeta{}, tooLong("body.description", ContentDescriptionMax, "characters")
	case len(m.Language) > ContentLanguageMax:
		return ContentMeta{}, tooLong("body.language", ContentLanguageMax, "bytes")
	case len(m.FolderID) > ContentFolderIDMax:
		return ContentMeta{}, tooLong("body.folderId", ContentFolderIDMax, "bytes")
	case len(m.Tags) > ContentTagsMax:
		return ContentMeta{}, Invalid("TOO_MANY_TAGS", "an item has at most 20 tags", FieldError{Location: "body.tags", Message: "at most 20"})
	}
	if err := ValidateContentLanguage(m.Language); err != nil {
		return ContentMeta{}, err
	}
	for _, t := range m.Tags {
		if err := textRules("body.tags", t); err != nil {
			return ContentMeta{}, err
		}
	}
	tags, err := NormalizeTags(m.Tags)
	if err != nil {
		return ContentMeta{}, err
	}
	out.Tags = tags
	if m.ExpiresAt != nil {
		at := m.ExpiresAt.UTC().Truncate(time.Microsecond)
		if at.Before(ContentExpiryMin) || at.After(ContentExpiryMax) {
			return ContentMeta{}, Invalid("INVALID_EXPIRY", "the expiry is between 1970 and 9999", FieldError{Location: "body.expiresAt", Message: "out of range"})
		}
		out.ExpiresAt = &at
	}
	return out, nil
}

// ParseContentFileName checks an uploaded file's name and reduces it to what is stored and sent
// in Content-Disposition: the base name (after the last / or \), without double quotes,
// trimmed. Errors as ParseContentMeta's, at query.fileName. Its result parses to itself.
func ParseContentFileName(raw string) (string, error) {
	const loc = "query.fileName"
	if len(raw) > ContentFileNameRawMax {
		return "", tooLong(loc, ContentFileNameRawMax, "bytes")
	}
	if err := textRules(loc, raw); err != nil {
		return "", err
	}
	name := raw
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	name = strings.TrimSpace(strings.ReplaceAll(name, `"`, ""))
	if name == "" || name == "." || name == ".." {
		return "", Invalid("FILE_NAME_REQUIRED", "the file needs a name", FieldError{Location: loc, Message: "no name left after its path"})
	}
	if len(name) > ContentFileNameMax {
		return "", tooLong(loc, ContentFileNameMax, "bytes")
	}
	return name, nil
}

func textRules(loc, s string) error {
	if msg := TextProblem(s); msg != "" {
		return Invalid("INVALID_TEXT", "a value breaks the text rules", FieldError{Location: loc, Message: msg})
	}
	return nil
}

func tooLong(loc string, n int, unit string) error {
	e := Errorf(KindInvalid, "TEXT_TOO_LONG", "a value is longer than %d %s", n, unit)
	e.Fields = []FieldError{{Location: loc, Message: "too long"}}
	return e
}
