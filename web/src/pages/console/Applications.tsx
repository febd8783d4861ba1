import { Link, useSearchParams } from 'react-router';
import { Anchor, Badge, SegmentedControl, Stack, Text } from '@mantine/core';
import { api, unwrap, type Schemas } from '../../api/client';
import { DateTime } from '../../ui/DateTime';
import { PageHeader } from '../../ui/PageHeader';
import { PagedTable } from '../../ui/PagedTable';
import { StatusBadge } from '../../ui/StatusBadge';
import { label } from './partnerOptions';

type Application = Schemas['Application'];
const statuses = ['pending', 'approved', 'rejected'] as const;
type Status = (typeof statuses)[number];

/** Applications to join the program, pending ones first. */
export default function Applications() {
  const [params, setParams] = useSearchParams();
  const raw = params.get('status') ?? 'pending';
  const status: Status = (statuses as readonly string[]).includes(raw) ? raw as Status : 'pending';
  return (
    <Stack>
      <PageHeader title="Applications" description="Organisations that applied to become partners through your public application form." />
      <SegmentedControl aria-label="Status" w="fit-content" value={status}
        data={statuses.map((s) => ({ value: s, label: label(s) }))}
        onChange={(v) => { setParams(v === 'pending' ? {} : { status: v }, { replace: true }); }} />
      <PagedTable<Application>
        label={`${label(status)} applications`}
        queryKey={['applications', 'list', { status }]}
        fetchPage={async (cursor) => unwrap(await api.GET('/api/applications', { params: { query: { cursor, limit: 25, status } } }))}
        rowKey={(a) => a.id}
        empty={status === 'pending' ? 'No application waits for a decision.' : `No ${status} applications.`}
        columns={[
          { header: 'Organisation', render: (a) => <Anchor component={Link} to={`/applications/${a.id}`}>{a.organisation}</Anchor> },
          { header: 'Contact', render: (a) => <><Text size="sm">{a.contactName}</Text><Text size="xs" c="dimmed">{a.contactEmail}</Text></> },
          { header: 'Type', render: (a) => label(a.partnerType) },
          { header: 'Status', render: (a) => <>
            <StatusBadge status={a.status} />{a.autoApproved && <Badge ml={4} variant="outline" size="sm">auto</Badge>}
          </> },
          { header: 'Received', render: (a) => <DateTime value={a.createdAt} /> },
          ...(status === 'pending' ? [] : [{ header: 'Decided', render: (a: Application) => <DateTime value={a.decidedAt} /> }]),
        ]}
      />
    </Stack>
  );
}
