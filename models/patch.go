package models

// SetChanged applies one field of a partial update: when v is given and differs from *dst, it
// sets *dst to *v, adds field (the name the API gives it) to changed and reports true.
func SetChanged[T comparable](changed *[]string, field string, v *T, dst *T) bool {
	if v == nil || *v == *dst {
		return false
	}
	*dst = *v
	*changed = append(*changed, field)
	return true
}
