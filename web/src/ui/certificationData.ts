// What the certification pages share: their types, a content item's title by id, and the quiz as
// an operator edits it.
import { useQuery } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../api/client';

export type Course = Schemas['Course'];
export type Certificate = Schemas['Certificate'];
export type QuizAttempt = Schemas['QuizAttempt'];
export type Enrolment = Schemas['Enrolment'];
export type QuestionInput = Schemas['QuizQuestionInput'];

export const courseStatuses = ['draft', 'published', 'archived'] as const;

/** One content item of a course, by id (a partner gets only the items it may see). */
export function useContentItem(id: string) {
  return useQuery({
    queryKey: ['content', 'item', id],
    staleTime: 60_000,
    retry: false,
    queryFn: async () => unwrap(await api.GET('/api/content/items/{id}', { params: { path: { id } } })),
  });
}

/** A course's quiz as the editor holds it: texts and flags, ids coming from positions on the server. */
export function quizInput(questions: Schemas['QuizQuestion'][]): QuestionInput[] {
  return questions.map((q) => ({ text: q.text, multiple: q.multiple, options: q.options.map((o) => ({ text: o.text, correct: !!o.correct })) }));
}

/** An attempt's result in words. */
export function attemptText(a: QuizAttempt): string {
  return `${String(a.score)}% · ${String(a.correct)} of ${String(a.questions)} right · ${a.passed ? 'passed' : 'not passed'}`;
}
