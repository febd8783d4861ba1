package models

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// fuzzQuiz has a single-choice, a multiple-choice and a ten-option question.
func fuzzQuiz(t testing.TB) Quiz {
	opts := func(n int, correct ...int) []QuizOption {
		out := make([]QuizOption, n)
		for i := range out {
			out[i] = QuizOption{Text: string(rune('A' + i)), Correct: slices.Contains(correct, i)}
		}
		return out
	}
	q, err := NormalizeQuiz(Quiz{Questions: []QuizQuestion{
		{Text: "One right", Options: opts(3, 1)},
		{Text: "Several right", Multiple: true, Options: opts(4, 0, 2)},
		{Text: "Ten options", Options: opts(10, 9)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return q
}

func TestQuizAnswersAreParsedAndGraded(t *testing.T) {
	q := fuzzQuiz(t)
	cases := []struct {
		name    string
		answers []QuizAnswer
		code    string
		score   int
	}{
		{"every question right scores 100", []QuizAnswer{{"q1", []string{"q1o2"}}, {"q2", []string{"q2o3", "q2o1"}}, {"q3", []string{"q3o10"}}}, "", 100},
		{"a multiple-choice question needs all its right options", []QuizAnswer{{"q1", []string{"q1o2"}}, {"q2", []string{"q2o1"}}, {"q3", []string{"q3o10"}}}, "", 66},
		{"a question left out is wrong", []QuizAnswer{{"q3", []string{"q3o10"}}}, "", 33},
		{"no answers score nothing", nil, "", 0},
		{"an unknown question is refused", []QuizAnswer{{"q4", []string{"q4o1"}}}, "INVALID_ANSWERS", 0},
		{"another question's option is refused", []QuizAnswer{{"q1", []string{"q2o1"}}}, "INVALID_ANSWERS", 0},
		{"two options for single choice are refused", []QuizAnswer{{"q1", []string{"q1o1", "q1o2"}}}, "INVALID_ANSWERS", 0},
		{"an option twice is refused", []QuizAnswer{{"q2", []string{"q2o1", "q2o1"}}}, "INVALID_ANSWERS", 0},
		{"a question twice is refused", []QuizAnswer{{"q1", []string{"q1o1"}}, {"q1", []string{"q1o2"}}}, "INVALID_ANSWERS", 0},
		{"an answer without options is refused", []QuizAnswer{{"q1", nil}}, "INVALID_ANSWERS", 0},
		{"more answers than questions are refused", make([]QuizAnswer, 4), "INVALID_ANSWERS", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseQuizAnswers(q, c.answers)
			if c.code != "" {
				if e, ok := AsError(err); !ok || e.Code != c.code {
					t.Fatalf("err = %v, want %s", err, c.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if g := GradeQuiz(q, got); g.Score != c.score || g.Questions != 3 {
				t.Fatalf("grade = %+v, want score %d", g, c.score)
			}
		})
	}
}

func TestTheLearnersQuizHidesTheRightOptions(t *testing.T) {
	b, _ := json.Marshal(fuzzQuiz(t).Public())
	if strings.Contains(string(b), `"correct":true`) {
		t.Fatalf("the public quiz shows the right options: %s", b)
	}
}

// FuzzParseQuizAnswers feeds any JSON to the answer parser: it never panics, and whatever it
// accepts names each question of the quiz at most once, in the quiz's order, with one or more
// distinct options of that question (one for single choice), and grades within 0..100.
func FuzzParseQuizAnswers(f *testing.F) {
	for _, seed := range []string{
		`[{"questionId":"q1","optionIds":["q1o2"]},{"questionId":"q2","optionIds":["q2o1","q2o3"]},{"questionId":"q3","optionIds":["q3o10"]}]`,
		`[{"questionId":"q3","optionIds":["q3o1"]},{"questionId":"q1","optionIds":["q1o1"]}]`,
		`[{"questionId":"q1","optionIds":["q1o1","q1o2"]}]`,
		`[{"questionId":"q2","optionIds":["q2o1","q2o1"]}]`,
		`[{"questionId":"q1","optionIds":[]}]`,
		`[{"questionId":"q1"},{"questionId":"q1"}]`,
		`[{"questionId":"q9","optionIds":["q9o1"]}]`,
		`[{"questionId":"","optionIds":[""]}]`,
		`[]`, `null`, `[{}]`,
		`[{"questionId":"q2","optionIds":["q2o1","q2o2","q2o3","q2o4","q2o5"]}]`,
	} {
		f.Add([]byte(seed))
	}
	q := fuzzQuiz(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var answers []QuizAnswer
		if json.Unmarshal(data, &answers) != nil {
			return
		}
		got, err := ParseQuizAnswers(q, answers)
		if err != nil {
			if e, ok := AsError(err); !ok || e.Code != "INVALID_ANSWERS" {
				t.Fatalf("refusal %v is not INVALID_ANSWERS", err)
			}
			return
		}
		if len(got) > len(q.Questions) {
			t.Fatalf("%d answers for %d questions", len(got), len(q.Questions))
		}
		last := -1
		for _, a := range got {
			qi := slices.IndexFunc(q.Questions, func(qq QuizQuestion) bool { return qq.ID == a.QuestionID })
			if qi <= last {
				t.Fatalf("question %q unknown, repeated or out of order in %+v", a.QuestionID, got)
			}
			last = qi
			qq := q.Questions[qi]
			if len(a.OptionIDs) == 0 || len(a.OptionIDs) > MaxQuizOptions || (!qq.Multiple && len(a.OptionIDs) != 1) {
				t.Fatalf("answer %+v has the wrong number of options", a)
			}
			seen := map[string]bool{}
			for _, id := range a.OptionIDs {
				if seen[id] || !slices.ContainsFunc(qq.Options, func(o QuizOption) bool { return o.ID == id }) {
					t.Fatalf("option %q repeated or not of question %s", id, qq.ID)
				}
				seen[id] = true
			}
		}
		if g := GradeQuiz(q, got); g.Score < 0 || g.Score > 100 || g.Correct > g.Questions {
			t.Fatalf("grade %+v out of bounds", g)
		}
	})
}
