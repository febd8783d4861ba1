import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { Anchor, Button, Group, Select, Stack, Text } from '@mantine/core';
import { api, unwrap, type Schemas } from '../../api/client';
import { useCan } from '../../auth/useCan';
import { DateTime } from '../../ui/DateTime';
import { PageHeader } from '../../ui/PageHeader';
import { PagedTable } from '../../ui/PagedTable';
import { PlanEditor } from './money/PlanEditor';
import { MoneyStatus } from './money/shared';
import { PlanRule } from './money/PlanRule';

type Plan = Schemas['CommissionPlan'];

/** The commission plans: what pays partners, on which events, at which rates. */
export default function Commissions() {
  const navigate = useNavigate();
  const canWrite = useCan('commissions:write');
  const [status, setStatus] = useState<'active' | 'archived' | 'all'>('active');
  const [creating, setCreating] = useState(false);
  return (
    <Stack>
      <PageHeader title="Commissions" description="Plans compute commissions on deal.won and ingested events; every change makes a new version."
        actions={canWrite && <Button onClick={() => { setCreating(true); }}>New plan</Button>} />
      <Group>
        <Select label="Status" allowDeselect={false} value={status} w={180}
          onChange={(v) => { setStatus(v === 'archived' || v === 'all' ? v : 'active'); }}
          data={[{ value: 'active', label: 'Active' }, { value: 'archived', label: 'Archived' }, { value: 'all', label: 'All' }]} />
      </Group>
      <PagedTable<Plan>
        label="Commission plans"
        queryKey={['commission-plans', 'list', { status }]}
        fetchPage={async (cursor) => unwrap(await api.GET('/api/commission-plans', {
          params: { query: { cursor, limit: 25, status: status === 'all' ? undefined : status } },
        }))}
        rowKey={(p) => p.id}
        empty={status === 'archived' ? 'No archived plans.' : 'No commission plans yet. Create one to start paying partners.'}
        columns={[
          { header: 'Plan', render: (p) => <Anchor component={Link} to={`/commissions/${p.id}`}>{p.name}</Anchor> },
          { header: 'Trigger', render: (p) => <Text size="sm" ff="monospace">{p.definition.trigger}</Text> },
          { header: 'Pays', render: (p) => <PlanRule plan={p} /> },
          { header: 'Holding', render: (p) => `${String(p.definition.holdingDays)} days` },
          { header: 'Status', render: (p) => <MoneyStatus status={p.status} /> },
          { header: 'Version', render: (p) => `v${String(p.version)}`, numeric: true },
          { header: 'Changed', render: (p) => <DateTime value={p.updatedAt} /> },
        ]}
      />
      {creating && (
        <PlanEditor opened onClose={() => { setCreating(false); }}
          onSaved={(p) => { setCreating(false); void navigate(`/commissions/${p.id}`); }} />
      )}
    </Stack>
  );
}
