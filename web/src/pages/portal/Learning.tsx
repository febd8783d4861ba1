import { Link } from 'react-router';
import { Anchor, Stack, Text, Title } from '@mantine/core';
import { api, unwrap } from '../../api/client';
import { useMe } from '../../auth/me';
import type { Certificate, Course } from '../../ui/certificationData';
import { DateTime } from '../../ui/DateTime';
import { PageHeader } from '../../ui/PageHeader';
import { PagedTable } from '../../ui/PagedTable';
import { StatusBadge } from '../../ui/StatusBadge';

/** The courses the program offers the partner, and the signed-in user's certificates. */
export default function Learning() {
  const me = useMe();
  const userId = me.data?.userId;
  return (
    <Stack>
      <PageHeader title="Learning" description="Courses the program offers you: study their content, pass the quiz and get a certificate." />
      <PagedTable<Course>
        label="Courses"
        queryKey={['courses', 'portal']}
        fetchPage={async (cursor) => unwrap(await api.GET('/api/courses', { params: { query: { cursor, limit: 25 } } }))}
        rowKey={(c) => c.id}
        empty="No course is offered to you yet."
        columns={[
          { header: 'Course', render: (c) => (
            <Stack gap={0}>
              <Anchor component={Link} to={`/portal/learning/${c.id}`} size="sm" fw={600}>{c.title}</Anchor>
              {c.description && <Text size="xs" c="dimmed" lineClamp={2}>{c.description}</Text>}
            </Stack>
          ) },
          { header: 'Items', render: (c) => String(c.itemIds.length) },
          { header: 'Questions', render: (c) => String(c.questions.length) },
          { header: 'Pass mark', render: (c) => `${String(c.passMark)}%` },
          { header: 'Certificate valid for', render: (c) => `${String(c.validityDays)} days` },
        ]}
      />
      <Stack gap="xs" component="section" aria-labelledby="certificates-title">
        <Title order={2} size="h4" id="certificates-title">My certificates</Title>
        {userId && (
          <PagedTable<Certificate>
            label="My certificates"
            queryKey={['certificates', 'mine', userId]}
            fetchPage={async (cursor) => unwrap(await api.GET('/api/certificates', { params: { query: { userId, cursor, limit: 25 } } }))}
            rowKey={(x) => x.id}
            empty="No certificate yet: pass a course's quiz to earn one."
            columns={[
              { header: 'Course', render: (x) => <Anchor component={Link} to={`/portal/learning/${x.courseId}`} size="sm">{x.courseTitle}</Anchor> },
              { header: 'Score', render: (x) => `${String(x.score)}%` },
              { header: 'Status', render: (x) => <StatusBadge status={x.status} /> },
              { header: 'Issued', render: (x) => <DateTime value={x.issuedAt} /> },
              { header: 'Expires', render: (x) => <DateTime value={x.expiresAt} /> },
            ]}
          />
        )}
      </Stack>
    </Stack>
  );
}
