package models

import "unicode/utf8"

// Clip shortens s to at most n characters (runes, as a VARCHAR(n) counts them), never cutting
// one in two.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	count := 0
	for i := range s {
		if count == n {
			return s[:i]
		}
		count++
	}
	return s
}

// ClipBytes shortens s to at most n bytes, never cutting a character in two: for limits
// counted in octets, like the 998 of a mail header line.
func ClipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Text rules: every string that arrives from outside (path and query parameters, headers the
// service reads, JSON strings and object keys at any depth) must be valid UTF-8 and hold no
// control character but tab, line feed and carriage return, and no bidirectional override,
// embedding or isolate. Both databases then store the same text, and no name can reorder what
// is shown around it.

// AllowedRune reports whether r may appear in text the service accepts.
func AllowedRune(r rune) bool {
	switch {
	case r == '\t', r == '\n', r == '\r':
		return true
	case r < 0x20, r >= 0x7f && r < 0xa0: // C0, DEL and C1 controls
		return false
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069: // bidi embeddings, overrides and isolates
		return false
	}
	return true
}

// TextProblem says why s breaks the text rules, or returns "" when it keeps them. The message
// never repeats s.
func TextProblem(s string) string {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if !AllowedRune(rune(c)) {
				return ControlMessage
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return InvalidUTF8Message
		}
		if !AllowedRune(r) {
			return RuneMessage(r)
		}
		i += size
	}
	return ""
}

// Messages of the text rules.
const (
	ControlMessage     = "must not contain control characters other than tab and line breaks"
	BidiMessage        = "must not contain bidirectional override, embedding or isolate characters (U+202A–U+202E, U+2066–U+2069)"
	InvalidUTF8Message = "must be valid UTF-8"
)

// RuneMessage is the message for a rune that AllowedRune refuses.
func RuneMessage(r rune) string {
	if r >= 0x202a {
		return BidiMessage
	}
	return ControlMessage
}
