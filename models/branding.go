package models

import (
	"regexp"
	"slices"
	"strings"
	"time"
)

// Brand image kinds: a logo (the tenant's, or a partner's co-brand logo) and the tenant's favicon.
const (
	BrandLogo    = "logo"
	BrandFavicon = "favicon"
)

// Brand limits.
const (
	// MaxLogoBytes bounds an uploaded logo.
	MaxLogoBytes = 512 << 10
	// MaxFaviconBytes bounds an uploaded favicon.
	MaxFaviconBytes = 64 << 10
	// MaxLogoSide and MinLogoSide bound a logo's width and height, in pixels.
	MaxLogoSide = 2048
	MinLogoSide = 16
	// MaxFaviconSide and MinFaviconSide bound a favicon's sides, in pixels; a favicon is square.
	MaxFaviconSide = 512
	MinFaviconSide = 16
	// MaxCSSVariables bounds the custom CSS variables of a brand.
	MaxCSSVariables = 30
	// MaxCSSValue bounds one CSS variable's value, in characters.
	MaxCSSValue = 100
)

// BrandImageTypes are the media types a logo or favicon may have (told from its bytes). SVG is
// refused: it can carry script, and no sanitiser is trusted with it (ADR 29).
var BrandImageTypes = []string{"image/png", "image/jpeg", "image/gif"}

// BrandImage is a stored logo or favicon: its blob key, type, hash and size in pixels.
type BrandImage struct {
	Key         string `gorm:"size:200"`
	ContentType string `gorm:"size:100"`
	SHA256      string `gorm:"size:64"`
	Width       int
	Height      int
}

// Empty reports whether no image is stored.
func (i BrandImage) Empty() bool { return i.Key == "" }

// Branding is a portal's brand: the tenant's (PartnerID empty) or a partner's co-brand, whose
// logo is shown beside the tenant's on the portal that partner's users see.
type Branding struct {
	TenantID  string `gorm:"primaryKey;size:36"`
	PartnerID string `gorm:"primaryKey;size:36"`
	// Name is the portal's name (the tenant's name when empty).
	Name         string            `gorm:"size:100"`
	Theme        ThemeTokens       `gorm:"embedded;embeddedPrefix:theme_"`
	SupportEmail string            `gorm:"size:254"`
	CSSVariables map[string]string `gorm:"serializer:json;type:text"`
	Logo         BrandImage        `gorm:"embedded;embeddedPrefix:logo_"`
	Favicon      BrandImage        `gorm:"embedded;embeddedPrefix:favicon_"`
	UpdatedAt    time.Time
}

// ThemeTokens are a brand's colours, each "#rrggbb" or empty for the product's default.
type ThemeTokens struct {
	Primary    string `json:"primary,omitempty" gorm:"size:7"`
	Accent     string `json:"accent,omitempty" gorm:"size:7"`
	Background string `json:"background,omitempty" gorm:"size:7"`
	Text       string `json:"text,omitempty" gorm:"size:7"`
}

// BrandingChanges changes a tenant's brand; nil fields stay as they are.
type BrandingChanges struct {
	Name         *string
	Theme        *ThemeTokens
	SupportEmail *string
	CSSVariables map[string]string
	// SetCSSVariables replaces the CSS variables with CSSVariables (none when it is empty).
	SetCSSVariables bool
}

// PublicBranding is what a portal shows before and after sign-in: presentation data only.
type PublicBranding struct {
	TenantSlug   string
	Name         string
	Theme        ThemeTokens
	SupportEmail string
	CSSVariables map[string]string
	Logo         BrandImage
	Favicon      BrandImage
	// PartnerLogo is the co-brand logo of the partner whose portal this is, if any.
	PartnerLogo BrandImage
	UpdatedAt   time.Time
}

var (
	colourPattern  = regexp.MustCompile(`^#[0-9a-fA-F]{6}$`)
	cssNamePattern = regexp.MustCompile(`^--[a-z][a-z0-9-]{0,47}$`)
	// cssValuePattern admits lengths, numbers, colours, keywords, font lists and the functions
	// below: no url(), no quotes, braces, semicolons, angle brackets or backslashes.
	cssValuePattern = regexp.MustCompile(`^[A-Za-z0-9#%.,()/ +-]*$`)
	cssFunctions    = []string{"rgb", "rgba", "hsl", "hsla", "calc", "var"}
	cssFunctionCall = regexp.MustCompile(`([A-Za-z-]*)\(`)
)

// CheckThemeTokens validates a brand's colours: each empty or "#rrggbb".
func CheckThemeTokens(t ThemeTokens) error {
	var fields []FieldError
	for name, v := range map[string]string{"primary": t.Primary, "accent": t.Accent, "background": t.Background, "text": t.Text} {
		if v != "" && !colourPattern.MatchString(v) {
			fields = append(fields, FieldError{Location: "body.theme." + name, Message: "a colour #rrggbb", Value: v})
		}
	}
	if len(fields) > 0 {
		slices.SortFunc(fields, func(a, b FieldError) int { return strings.Compare(a.Location, b.Location) })
		return Invalid("INVALID_COLOUR", "colours are #rrggbb", fields...)
	}
	return nil
}

// CheckCSSVariables validates a brand's custom CSS variables: at most MaxCSSVariables, names
// "--lower-case-words", values of plain tokens (lengths, colours, numbers, keywords, font lists,
// rgb/hsl/calc/var) and never url(), strings, blocks or anything that ends a declaration.
func CheckCSSVariables(vars map[string]string) error {
	if len(vars) > MaxCSSVariables {
		return Invalid("TOO_MANY_CSS_VARIABLES", "at most 30 CSS variables")
	}
	var fields []FieldError
	for name, v := range vars {
		loc := "body.cssVariables." + name
		switch {
		case !cssNamePattern.MatchString(name):
			fields = append(fields, FieldError{Location: loc, Message: "a name like --brand-radius (lower-case letters, digits, hyphens)", Value: name})
		case len(v) > MaxCSSValue || !cssValuePattern.MatchString(v):
			fields = append(fields, FieldError{Location: loc, Message: "a plain CSS value: lengths, colours, numbers, keywords, rgb(), hsl(), calc(), var()", Value: v})
		default:
			for _, m := range cssFunctionCall.FindAllStringSubmatch(v, -1) {
				if !slices.Contains(cssFunctions, strings.ToLower(m[1])) {
					fields = append(fields, FieldError{Location: loc, Message: "only rgb(), rgba(), hsl(), hsla(), calc() and var() are allowed", Value: v})
					break
				}
			}
		}
	}
	if len(fields) > 0 {
		slices.SortFunc(fields, func(a, b FieldError) int { return strings.Compare(a.Location, b.Location) })
		return Invalid("INVALID_CSS_VARIABLE", "CSS variables are plain values", fields...)
	}
	return nil
}

// CheckBrandImage validates a decoded logo or favicon's size in pixels.
func CheckBrandImage(kind string, width, height int) error {
	lo, hi := MinLogoSide, MaxLogoSide
	if kind == BrandFavicon {
		lo, hi = MinFaviconSide, MaxFaviconSide
		if width != height {
			return Invalid("IMAGE_NOT_SQUARE", "a favicon is square")
		}
	}
	if width < lo || height < lo || width > hi || height > hi {
		return Errorf(KindInvalid, "IMAGE_DIMENSIONS", "the image must be between %d and %d pixels on each side", lo, hi)
	}
	return nil
}
