import { Badge } from '@mantine/core';

const colors: Record<string, string> = {
  active: 'green', approved: 'green', won: 'green', paid: 'green', succeeded: 'green', completed: 'green', published: 'green', delivered: 'green', sent: 'green', done: 'green', enabled: 'green',
  submitted: 'blue', pending: 'blue', requested: 'blue', running: 'blue', open: 'blue', queued: 'blue', draft: 'gray', review: 'orange',
  rejected: 'red', lost: 'red', failed: 'red', cancelled: 'gray', canceled: 'gray', expired: 'gray', archived: 'gray', disabled: 'gray', inactive: 'gray', deactivated: 'gray', revoked: 'gray',
};

/** A row's status as a badge: a coloured dot beside text in the page's own colour (AA contrast in both schemes). */
export function StatusBadge({ status }: { status: string | undefined }) {
  if (!status) return null;
  return <Badge variant="dot" color={colors[status] ?? 'gray'}>{status.replaceAll('_', ' ')}</Badge>;
}
