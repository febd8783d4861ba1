import { useSearchParams } from 'react-router';
import { Alert, Group, Select, Skeleton, Stack, Tabs } from '@mantine/core';
import { useCan } from '../../auth/useCan';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { PageHeader } from '../../ui/PageHeader';
import { Board } from './deals/Board';
import { hasListFilter, usePipelines } from './deals/data';
import { DealsList } from './deals/DealsList';
import { Pipelines } from './deals/Pipelines';

type View = 'board' | 'list' | 'review' | 'pipelines';

/** Deals: the pipeline board, a filtered list, the registrations to review, and the pipelines. */
export default function Deals() {
  const [params, setParams] = useSearchParams();
  const canPipelines = useCan('pipelines:read');
  // Only reviewers get the review view: it lists registrations waiting for their decision.
  const canReview = useCan('deals:approve');
  const asked = params.get('view') as View | null;
  const fallback: View = canReview && params.get('status') === 'submitted' && !params.has('partnerId') ? 'review' : hasListFilter(params) || !canPipelines ? 'list' : 'board';
  const allowed = (v: View) => (v === 'review' ? canReview : v === 'board' || v === 'pipelines' ? canPipelines : true);
  const view: View = asked && ['board', 'list', 'review', 'pipelines'].includes(asked) && allowed(asked) ? asked : fallback;
  const pipelines = usePipelines(canPipelines);
  const all = pipelines.data ?? [];
  const chosen = all.find((p) => p.id === params.get('pipeline')) ?? all.find((p) => p.isDefault) ?? all[0];

  const show = (v: string | null) => {
    setParams((p) => {
      const n = new URLSearchParams(p);
      n.set('view', v ?? 'board');
      if (v === 'review') n.delete('status');
      return n;
    });
  };

  return (
    <Stack>
      <PageHeader title="Deals" description="Registrations partners bring, through review and the pipeline to won or lost." />
      <Tabs value={view} onChange={show} keepMounted={false}>
        <Tabs.List mb="md">
          {canPipelines && <Tabs.Tab value="board">Board</Tabs.Tab>}
          <Tabs.Tab value="list">List</Tabs.Tab>
          {canReview && <Tabs.Tab value="review">Review</Tabs.Tab>}
          {canPipelines && <Tabs.Tab value="pipelines">Pipelines</Tabs.Tab>}
        </Tabs.List>
        {canPipelines && (
          <Tabs.Panel value="board">
            <Stack>
              {all.length > 1 && (
                <Group>
                  <Select label="Pipeline" allowDeselect={false} w={280}
                    data={all.map((p) => ({ value: p.id, label: p.isDefault ? `${p.name} (default)` : p.name }))}
                    value={chosen?.id ?? null}
                    onChange={(v) => { setParams((p) => { const n = new URLSearchParams(p); if (v) n.set('pipeline', v); return n; }); }} />
                </Group>
              )}
              {pipelines.isPending && <Skeleton height={320} />}
              {pipelines.isError && <ErrorAlert error={pipelines.error} />}
              {pipelines.isSuccess && !chosen && <Alert>No pipeline yet: create one under Pipelines.</Alert>}
              {chosen && <Board key={chosen.id} pipeline={chosen} />}
            </Stack>
          </Tabs.Panel>
        )}
        <Tabs.Panel value="list"><DealsList /></Tabs.Panel>
        {canReview && <Tabs.Panel value="review"><DealsList review /></Tabs.Panel>}
        {canPipelines && <Tabs.Panel value="pipelines"><Pipelines /></Tabs.Panel>}
      </Tabs>
    </Stack>
  );
}
