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
