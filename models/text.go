package models

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
