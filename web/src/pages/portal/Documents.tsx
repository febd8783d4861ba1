import { Link } from 'react-router';
import { Anchor, Stack } from '@mantine/core';
import { api, unwrap, type Schemas } from '../../api/client';
import { DateTime } from '../../ui/DateTime';
import { PageHeader } from '../../ui/PageHeader';
import { PagedTable } from '../../ui/PagedTable';

/** Documents the program made for the partner: agreements, welcome packs, statements. */
export default function Documents() {
  return (
    <Stack>
      <PageHeader title="Documents" description="Agreements and other documents the program prepared for you." />
      <PagedTable<Schemas['Document']>
        label="Documents"
        queryKey={['documents', 'mine']}
        fetchPage={async (cursor) => unwrap(await api.GET('/api/documents', { params: { query: { cursor, limit: 25 } } }))}
        rowKey={(d) => d.id}
        empty="No documents yet."
        columns={[
          { header: 'Title', render: (d) => <Anchor component={Link} to={`/portal/documents/${d.id}`}>{d.title}</Anchor> },
          { header: 'Created', render: (d) => <DateTime value={d.createdAt} /> },
        ]}
      />
    </Stack>
  );
}
