import { Alert, List } from '@mantine/core';
import { ApiError } from '../api/client';

/** A failed request's problem: its detail, and the fields it names that no input shows. */
export function ErrorAlert({ error, shownFields = [] }: { error: unknown; shownFields?: string[] }) {
  if (!error) return null;
  const message = error instanceof Error ? error.message : 'Something went wrong.';
  const rest = error instanceof ApiError
    ? (error.problem.errors ?? []).filter((e) => !shownFields.some((f) => e.location === `body.${f}`))
    : [];
  return (
    <Alert color="red" role="alert" title={error instanceof ApiError ? error.problem.title : 'Error'}>
      {message}
      {rest.length > 0 && (
        <List size="sm" mt="xs">
          {rest.map((e, i) => <List.Item key={i}>{e.location ? `${e.location}: ` : ''}{e.message}</List.Item>)}
        </List>
      )}
    </Alert>
  );
}
