package models

import (
	"testing"
	"unicode/utf8"
)

func TestClipCountsCharactersAndNeverSplitsOne(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"", 3, ""},
		{"abc", 3, "abc"},
		{"abcd", 3, "abc"},
		{"héllo", 2, "hé"}, // 2 characters, 3 bytes
		{"ééé", 3, "ééé"},  // 6 bytes but 3 characters: kept whole
		{"日本語テキスト", 4, "日本語テ"}, // 3-byte characters
		{"a😀b", 2, "a😀"},       // a 4-byte character
		{"abc", 0, ""},
	} {
		got := Clip(c.in, c.n)
		if got != c.want || !utf8.ValidString(got) {
			t.Errorf("Clip(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

func TestActorRefNamesUsersAndMachineKeysApart(t *testing.T) {
	user := &Principal{Kind: PrincipalOperator, UserID: "u1", KeyID: ""}
	key := &Principal{Kind: PrincipalMachineKey, UserID: "", KeyID: "k1"}
	if user.ActorRef() != "u1" || key.ActorRef() != "key:k1" {
		t.Fatalf("ActorRef = %q and %q, want u1 and key:k1", user.ActorRef(), key.ActorRef())
	}
}

func TestClipBytesCountsOctetsAndNeverSplitsACharacter(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"abc", 3, "abc"},
		{"abcd", 3, "abc"},
		{"ééé", 3, "é"}, // 6 bytes; the second é would be cut
		{"ééé", 4, "éé"},
		{"a😀", 4, "a"},
	} {
		if got := ClipBytes(c.in, c.n); got != c.want || !utf8.ValidString(got) {
			t.Errorf("ClipBytes(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

func TestTextRulesRefuseControlsBidiControlsAndInvalidUTF8(t *testing.T) {
	for _, c := range []struct {
		name, in, want string
	}{
		{"plain text passes", "Acme GmbH", ""},
		{"tab, line feed and carriage return pass", "line one\r\nline\ttwo\n", ""},
		{"right-to-left script passes", "شركة", ""},
		{"the left-to-right mark passes", "a\u200eb", ""},
		{"U+FFFD passes", "\ufffd", ""},
		{"NUL is refused", "a\x00b", ControlMessage},
		{"escape is refused", "\x1b[31m", ControlMessage},
		{"DEL is refused", "a\x7f", ControlMessage},
		{"a C1 control is refused", "a\u0085", ControlMessage},
		{"the right-to-left override is refused", "abc\u202egpj.exe", BidiMessage},
		{"a left-to-right embedding is refused", "\u202aabc", BidiMessage},
		{"the first strong isolate is refused", "\u2068abc\u2069", BidiMessage},
		{"a lone continuation byte is refused", "a\x80", InvalidUTF8Message},
		{"a truncated sequence is refused", "\xe2\x80", InvalidUTF8Message},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := TextProblem(c.in); got != c.want {
				t.Fatalf("TextProblem(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}
