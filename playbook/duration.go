package playbook

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// MaxWait is the longest a wait, a wait_for_event timeout or a wait until a time may last.
const MaxWait = 365 * 24 * time.Hour

// ParseDuration reads a duration as Go writes it ("72h", "90m", "1h30m") with an optional
// leading whole number of days ("3d", "1d12h").
func ParseDuration(s string) (time.Duration, error) {
	if s == "" {
		return 0, errors.New("the duration is empty")
	}
	var days time.Duration
	rest := s
	if i := strings.IndexByte(s, 'd'); i >= 0 {
		n, err := strconv.Atoi(s[:i])
		if err != nil || n < 0 || s[0] == '+' || s[0] == '-' {
			return 0, fmt.Errorf("%q is not a duration such as 72h or 3d", s)
		}
		if n > 100*365 {
			return 0, fmt.Errorf("%q is too long", s)
		}
		days = time.Duration(n) * 24 * time.Hour
		rest = s[i+1:]
		if rest == "" {
			return days, nil
		}
		if rest[0] == '+' || rest[0] == '-' {
			return 0, fmt.Errorf("%q is not a duration such as 72h or 3d", s)
		}
	}
	d, err := time.ParseDuration(rest)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration such as 72h or 3d", s)
	}
	if d < 0 && days > 0 {
		return 0, fmt.Errorf("%q is not a duration such as 72h or 3d", s)
	}
	if days+d < days {
		return 0, fmt.Errorf("%q is too long", s)
	}
	return days + d, nil
}

// parseWait parses a wait or timeout duration and checks that it is more than zero and at most
// MaxWait.
func parseWait(s string) (time.Duration, error) {
	d, err := ParseDuration(s)
	if err != nil {
		return 0, err
	}
	if d <= 0 {
		return 0, fmt.Errorf("%q is not more than zero", s)
	}
	if d > MaxWait {
		return 0, fmt.Errorf("%q is longer than 365 days", s)
	}
	return d, nil
}

// FormatDuration writes d with whole days first ("7d", "1d12h", "90m").
func FormatDuration(d time.Duration) string {
	if d <= 0 {
		return "0s"
	}
	days := d / (24 * time.Hour)
	rest := d - days*24*time.Hour
	var b strings.Builder
	if days > 0 {
		b.WriteString(strconv.FormatInt(int64(days), 10))
		b.WriteByte('d')
	}
	if rest > 0 {
		s := rest.String()
		// "12h0m0s" → "12h", "1h30m0s" → "1h30m".
		if strings.HasSuffix(s, "m0s") {
			s = strings.TrimSuffix(s, "0s")
		}
		if strings.HasSuffix(s, "h0m") {
			s = strings.TrimSuffix(s, "0m")
		}
		b.WriteString(s)
	}
	return b.String()
}
