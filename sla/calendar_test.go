package sla

import (
	"testing"
	"time"

	"github.com/partnerd/partnerd/models"
)

func weekdays(tz string, start, end string) models.BusinessHours {
	h := models.BusinessHours{TimeZone: tz}
	for _, d := range []string{"mon", "tue", "wed", "thu", "fri"} {
		h.Windows = append(h.Windows, models.BusinessWindow{Day: d, Start: start, End: end})
	}
	return h
}

func calendar(t *testing.T, h models.BusinessHours) *Calendar {
	t.Helper()
	if err := h.Check(); err != nil {
		t.Fatal(err)
	}
	c, err := NewCalendar(h)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func at(t *testing.T, loc, s string) time.Time {
	t.Helper()
	l, err := time.LoadLocation(loc)
	if err != nil {
		t.Fatal(err)
	}
	v, err := time.ParseInLocation("2006-01-02 15:04", s, l)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestAddSkipsNightsAndWeekends(t *testing.T) {
	const tz = "Europe/Berlin"
	c := calendar(t, weekdays(tz, "09:00", "17:00"))
	cases := []struct {
		name, start string
		d           time.Duration
		want        string
	}{
		{"within the day", "2026-11-25 10:00", 2 * time.Hour, "2026-11-25 12:00"},
		{"ends exactly at closing", "2026-11-25 10:00", 7 * time.Hour, "2026-11-25 17:00"},
		{"carries to the next morning", "2026-11-25 16:00", 2 * time.Hour, "2026-11-26 10:00"},
		{"before opening starts at opening", "2026-11-25 06:30", time.Hour, "2026-11-25 10:00"},
		{"Friday evening runs into Monday", "2026-11-27 19:00", 4 * time.Hour, "2026-11-30 13:00"},
		{"Friday afternoon breaches on Monday", "2026-11-27 15:00", 4 * time.Hour, "2026-11-30 11:00"},
		{"Saturday counts nothing", "2026-11-28 12:00", time.Minute, "2026-11-30 09:01"},
		{"a week of business time", "2026-11-23 09:00", 40 * time.Hour, "2026-11-27 17:00"},
		{"zero is the start", "2026-11-28 12:00", 0, "2026-11-28 12:00"},
	}
	for _, tc := range cases {
		got := c.Add(at(t, tz, tc.start), tc.d)
		if want := at(t, tz, tc.want); !got.Equal(want) {
			t.Errorf("%s: Add(%s, %s) = %s, want %s", tc.name, tc.start, tc.d, got.In(want.Location()), want)
		}
		if tc.d > 0 {
			if back := c.Between(at(t, tz, tc.start), got); back != tc.d {
				t.Errorf("%s: Between = %s, want %s", tc.name, back, tc.d)
			}
		}
	}
}

func TestBetweenCountsOnlyWindows(t *testing.T) {
	const tz = "America/New_York"
	c := calendar(t, weekdays(tz, "09:00", "17:00"))
	if got := c.Between(at(t, tz, "2026-11-27 16:00"), at(t, tz, "2026-11-30 10:00")); got != 2*time.Hour {
		t.Fatalf("Friday 16:00 to Monday 10:00 = %s, want 2h", got)
	}
	if got := c.Between(at(t, tz, "2026-11-28 08:00"), at(t, tz, "2026-11-29 20:00")); got != 0 {
		t.Fatalf("a weekend = %s, want 0", got)
	}
	if got := c.Between(at(t, tz, "2026-11-30 10:00"), at(t, tz, "2026-11-30 09:00")); got != 0 {
		t.Fatalf("backwards = %s, want 0", got)
	}
}

// A window that spans a clock change counts the time that really passes; one in the night of
// the change keeps its local hours.
func TestDaylightSavingTime(t *testing.T) {
	const tz = "Europe/Berlin"
	// Clocks go forward on Sunday 29 March 2026 at 02:00 (to 03:00) and back on 25 October at 03:00.
	around := models.BusinessHours{TimeZone: tz, Windows: []models.BusinessWindow{{Day: "sun", Start: "00:00", End: "24:00"}, {Day: "mon", Start: "09:00", End: "17:00"}}}
	c := calendar(t, around)
	if got := c.Between(at(t, tz, "2026-03-29 00:00"), at(t, tz, "2026-03-30 00:00")); got != 23*time.Hour {
		t.Fatalf("the spring-forward Sunday has %s of business time, want 23h", got)
	}
	if got := c.Between(at(t, tz, "2026-10-25 00:00"), at(t, tz, "2026-10-26 00:00")); got != 25*time.Hour {
		t.Fatalf("the fall-back Sunday has %s of business time, want 25h", got)
	}
	// Ten hours from Sunday 00:00 in spring end at 11:00 local (one hour skipped), in autumn at 09:00.
	if got, want := c.Add(at(t, tz, "2026-03-29 00:00"), 10*time.Hour), at(t, tz, "2026-03-29 11:00"); !got.Equal(want) {
		t.Fatalf("spring: %s, want %s", got, want)
	}
	if got, want := c.Add(at(t, tz, "2026-10-25 00:00"), 10*time.Hour), at(t, tz, "2026-10-25 09:00"); !got.Equal(want) {
		t.Fatalf("autumn: %s, want %s", got, want)
	}
	// Monday's 09:00 after each change is the local 09:00: 8h in UTC+1 and UTC+2.
	office := calendar(t, weekdays(tz, "09:00", "17:00"))
	if got, want := office.Add(at(t, tz, "2026-03-27 17:00"), time.Hour), at(t, tz, "2026-03-30 10:00"); !got.Equal(want) {
		t.Fatalf("across spring change: %s, want %s", got, want)
	}
	if got, want := office.Add(at(t, tz, "2026-10-23 17:00"), time.Hour), at(t, tz, "2026-10-26 10:00"); !got.Equal(want) || got.UTC().Hour() != 9 {
		t.Fatalf("across autumn change: %s (UTC %s), want %s", got, got.UTC(), want)
	}
}

func TestAroundTheClock(t *testing.T) {
	c := calendar(t, models.AroundTheClock)
	start := at(t, "UTC", "2026-11-28 12:00")
	if got := c.Add(start, 36*time.Hour); !got.Equal(start.Add(36 * time.Hour)) {
		t.Fatalf("24x7 Add = %s", got)
	}
	if got := c.Between(start, start.Add(90*time.Minute)); got != 90*time.Minute {
		t.Fatalf("24x7 Between = %s", got)
	}
}

func TestBusinessHoursCheck(t *testing.T) {
	bad := []models.BusinessHours{
		{TimeZone: "Mars/Olympus"},
		{TimeZone: ""},
		{TimeZone: "UTC", Windows: []models.BusinessWindow{{Day: "mon", Start: "17:00", End: "09:00"}}},
		{TimeZone: "UTC", Windows: []models.BusinessWindow{{Day: "funday", Start: "09:00", End: "17:00"}}},
		{TimeZone: "UTC", Windows: []models.BusinessWindow{{Day: "mon", Start: "09:00", End: "13:00"}, {Day: "mon", Start: "12:00", End: "17:00"}}},
		{TimeZone: "UTC", Windows: []models.BusinessWindow{{Day: "mon", Start: "9:00", End: "17:00"}}},
	}
	for _, h := range bad {
		if err := h.Check(); models.ErrorKind(err) != models.KindInvalid {
			t.Errorf("%+v: %v, want invalid", h, err)
		}
	}
	ok := models.BusinessHours{TimeZone: "Asia/Tokyo", Windows: []models.BusinessWindow{{Day: "mon", Start: "09:00", End: "12:00"}, {Day: "mon", Start: "13:00", End: "24:00"}}}
	if err := ok.Check(); err != nil {
		t.Fatal(err)
	}
}
