import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { Anchor, Button, Stack, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { api, unwrap, type Schemas } from '../../api/client';
import { useCan } from '../../auth/useCan';
import { DateTime } from '../../ui/DateTime';
import { PageHeader } from '../../ui/PageHeader';
import { PagedTable } from '../../ui/PagedTable';
import { CustomerDialog } from './CustomerForm';

/** The customers attributed to the partner, searchable by email. */
export default function Customers() {
  const [params, setParams] = useSearchParams();
  const email = params.get('email') ?? '';
  const [search] = useDebouncedValue(email.trim(), 300);
  const canWrite = useCan('customers:write');
  const [adding, setAdding] = useState(false);
  return (
    <Stack>
      <PageHeader title="Customers" description="Customers attributed to you: from deals you won, from referrals and those you add."
        actions={canWrite && <Button onClick={() => { setAdding(true); }}>Add a customer</Button>} />
      <TextInput label="Email" type="search" placeholder="name@company.com" maw={360} value={email}
        onChange={(e) => { const v = e.currentTarget.value; setParams(v ? { email: v } : {}, { replace: true }); }} />
      <PagedTable<Schemas['Customer']>
        label="Customers"
        queryKey={['customers', 'mine', { email: search }]}
        fetchPage={async (cursor) => unwrap(await api.GET('/api/customers', { params: { query: { email: search || undefined, cursor, limit: 25 } } }))}
        rowKey={(c) => c.id}
        empty={search ? `No customer with the email ${search}.` : 'No customers yet: a deal you win makes its customer yours.'}
        columns={[
          { header: 'Name', render: (c) => <Anchor component={Link} to={`/portal/customers/${c.id}`}>{c.name || c.email || c.externalId || 'Unnamed customer'}</Anchor> },
          { header: 'Email', render: (c) => c.email ?? '—' },
          { header: 'Reference', render: (c) => c.externalId ?? '—' },
          { header: 'Since', render: (c) => <DateTime value={c.createdAt} /> },
        ]}
      />
      {canWrite && adding && <CustomerDialog onClose={() => { setAdding(false); }} />}
    </Stack>
  );
}
