import { useState, type ReactNode } from 'react';
import { Link } from 'react-router';
import { useInfiniteQuery } from '@tanstack/react-query';
import {
  DndContext, DragOverlay, KeyboardSensor, PointerSensor, useDraggable, useDroppable, useSensor, useSensors,
  type Announcements, type KeyboardCoordinateGetter,
} from '@dnd-kit/core';
import { Anchor, Badge, Box, Button, Group, Loader, Menu, Paper, ScrollArea, Skeleton, Stack, Text, Title } from '@mantine/core';
import { api, unwrap } from '../../../api/client';
import { useCan } from '../../../auth/useCan';
import { ErrorAlert } from '../../../ui/ErrorAlert';
import { Money } from '../../../ui/Money';
import { movable, type Deal, type Pipeline, type Stage } from './data';
import { ConflictMarker, DealStatus, PartnerName } from './shared';
import { useMoveDeal } from './useMoveDeal';

const columnWidth = 272;

/** Left and right arrows carry a picked-up card to the neighbouring column. */
const columnCoordinates: KeyboardCoordinateGetter = (event, { context, currentCoordinates }) => {
  const step = event.code === 'ArrowRight' ? 1 : event.code === 'ArrowLeft' ? -1 : 0;
  if (!step) return undefined;
  event.preventDefault();
  const { collisionRect, droppableRects, droppableContainers, over } = context;
  if (!collisionRect) return undefined;
  const columns = droppableContainers.getEnabled()
    .map((c) => ({ id: c.id, rect: droppableRects.get(c.id) }))
    .filter((c): c is { id: typeof c.id; rect: NonNullable<typeof c.rect> } => !!c.rect)
    .sort((a, b) => a.rect.left - b.rect.left);
  const centre = collisionRect.left + collisionRect.width / 2;
  let at = columns.findIndex((c) => c.id === over?.id);
  if (at < 0) at = columns.findIndex((c) => centre >= c.rect.left && centre <= c.rect.left + c.rect.width);
  const next = columns[Math.min(Math.max(at + step, 0), columns.length - 1)];
  if (!next) return undefined;
  return { x: next.rect.left + (next.rect.width - collisionRect.width) / 2, y: currentCoordinates.y };
};

/** The pipeline as columns of stages holding their deals; cards move by drag, keyboard or menu. */
export function Board({ pipeline }: { pipeline: Pipeline }) {
  const canMove = useCan('deals:write');
  const move = useMoveDeal();
  const [dragged, setDragged] = useState<Deal | null>(null);
  const stages = [...pipeline.stages].sort((a, b) => a.position - b.position);
  const stageName = (id: unknown) => stages.find((s) => s.id === id)?.name ?? 'no stage';
  const sensors = useSensors(
    useSensor(PointerSensor, { activationConstraint: { distance: 6 } }),
    useSensor(KeyboardSensor, { coordinateGetter: columnCoordinates }),
  );
  const dealOf = (data: unknown) => (data as { deal?: Deal } | undefined)?.deal;
  const announcements: Announcements = {
    onDragStart: ({ active }) => `Picked up ${dealOf(active.data.current)?.customerCompany ?? 'the deal'} in ${stageName(dealOf(active.data.current)?.stageId)}.`,
    onDragOver: ({ active, over }) => `${dealOf(active.data.current)?.customerCompany ?? 'The deal'} is over ${over ? stageName(over.id) : 'no stage'}.`,
    onDragEnd: ({ active, over }) => `${dealOf(active.data.current)?.customerCompany ?? 'The deal'} dropped on ${over ? stageName(over.id) : 'no stage'}.`,
    onDragCancel: ({ active }) => `Moving ${dealOf(active.data.current)?.customerCompany ?? 'the deal'} was cancelled.`,
  };

  return (
    <>
      <DndContext sensors={sensors}
        accessibility={{
          announcements,
          screenReaderInstructions: {
            draggable: 'To move the deal to another stage, press space, choose the stage with the left and right arrow keys, and press space again. Escape cancels. The "Move to" menu does the same.',
          },
        }}
        onDragStart={({ active }) => { setDragged(dealOf(active.data.current) ?? null); }}
        onDragCancel={() => { setDragged(null); }}
        onDragEnd={({ active, over }) => {
          setDragged(null);
          const deal = dealOf(active.data.current);
          const stage = stages.find((s) => s.id === over?.id);
          if (deal && stage) move.request(deal, stage);
        }}>
        <ScrollArea type="auto" offsetScrollbars>
          <Group align="stretch" wrap="nowrap" gap="sm" pb="sm">
            {stages.map((stage) => (
              <Column key={stage.id} stage={stage} stages={stages} canMove={canMove}
                moving={move.moving} onMove={move.request} />
            ))}
          </Group>
        </ScrollArea>
        <DragOverlay>
          {dragged && <CardBody deal={dragged} overlay />}
        </DragOverlay>
      </DndContext>
      {move.dialog}
    </>
  );
}

interface ColumnProps {
  stage: Stage;
  stages: Stage[];
  canMove: boolean;
  moving: { dealId: string; stage: Stage } | null;
  onMove: (deal: Deal, stage: Stage) => void;
}

/** One stage's deals, twenty at a time. */
function Column({ stage, stages, canMove, moving, onMove }: ColumnProps) {
  const { setNodeRef, isOver } = useDroppable({ id: stage.id });
  const q = useInfiniteQuery({
    queryKey: ['deals', 'board', stage.id],
    queryFn: async ({ pageParam }) => unwrap(await api.GET('/api/deals', {
      params: { query: { stageId: stage.id, limit: 20, cursor: pageParam || undefined } },
    })),
    initialPageParam: '',
    getNextPageParam: (last) => last.nextCursor || undefined,
  });
  const deals = q.data?.pages.flatMap((p) => p.data) ?? [];
  const headingId = `stage-${stage.id}`;
  const count = q.data ? `${String(deals.length)}${q.hasNextPage ? '+' : ''}` : '…';
  return (
    <Paper ref={setNodeRef} component="section" aria-labelledby={headingId} data-stage={stage.name} withBorder p="xs" radius="md"
      w={columnWidth} miw={columnWidth} mih={320}
      bg={isOver ? 'var(--mantine-primary-color-light)' : 'var(--mantine-color-default-hover)'}
      aria-busy={q.isFetching}>
      <Group justify="space-between" wrap="nowrap" mb="xs" gap={4}>
        <Title order={2} size="h6" id={headingId}>{stage.name}</Title>
        <Group gap={4} wrap="nowrap">
          {stage.outcome !== 'open' && <Badge size="xs" variant="dot" color={stage.outcome === 'won' ? 'green' : 'red'}>{stage.outcome}</Badge>}
          <Badge size="xs" variant="outline" color="gray" title={`${String(stage.probability)}% likely to be won`}>{stage.probability}%</Badge>
          <Badge size="xs" variant="default" aria-label={`${count} deals`}>{count}</Badge>
        </Group>
      </Group>
      {q.isError && <ErrorAlert error={q.error} />}
      <Stack gap="xs">
        {q.isPending && [0, 1].map((i) => <Skeleton key={i} height={92} radius="sm" />)}
        {deals.map((deal) => (
          <DealCard key={deal.id} deal={deal} stages={stages} canMove={canMove} onMove={onMove}
            movingTo={moving?.dealId === deal.id ? moving.stage : undefined} />
        ))}
        {q.isSuccess && deals.length === 0 && <Text size="sm" c="dimmed" ta="center" py="lg">No deals</Text>}
        {q.hasNextPage && (
          <Button variant="subtle" size="xs" loading={q.isFetchingNextPage} onClick={() => { void q.fetchNextPage(); }}>
            Show more
          </Button>
        )}
      </Stack>
    </Paper>
  );
}

/** A deal on the board: a handle to drag it, its link, and the "Move to" menu. */
function DealCard({ deal, stages, canMove, onMove, movingTo }: {
  deal: Deal; stages: Stage[]; canMove: boolean; onMove: (deal: Deal, stage: Stage) => void; movingTo: Stage | undefined;
}) {
  const enabled = canMove && movable(deal) && !movingTo;
  const { attributes, listeners, setNodeRef, isDragging } = useDraggable({ id: deal.id, data: { deal }, disabled: !enabled });
  return (
    <Paper ref={setNodeRef} withBorder p="xs" radius="sm" shadow="xs" data-deal={deal.id}
      style={{ opacity: isDragging || movingTo ? 0.5 : 1 }}>
      <CardBody deal={deal} handle={enabled ? (
        <Box component="span" {...attributes} {...listeners} aria-label={`Drag ${deal.customerCompany} to another stage`}
          style={{ cursor: 'grab', padding: '0 4px', borderRadius: 4, lineHeight: 1, touchAction: 'none', userSelect: 'none' }}
          c="dimmed" fz="lg">⠿</Box>
      ) : undefined} />
      {movingTo && <Group gap={6} mt={6}><Loader size="xs" /><Text size="xs">Moving to {movingTo.name}…</Text></Group>}
      {enabled && (
        <Menu position="bottom-start" withinPortal>
          <Menu.Target>
            <Button size="compact-xs" variant="subtle" mt={6} aria-label={`Move ${deal.customerCompany} to…`}>Move to…</Button>
          </Menu.Target>
          <Menu.Dropdown>
            <Menu.Label>Move to stage</Menu.Label>
            {stages.map((s) => (
              <Menu.Item key={s.id} disabled={s.id === deal.stageId} onClick={() => { onMove(deal, s); }}
                color={s.outcome === 'lost' ? 'red' : undefined}>
                {s.name}{s.outcome !== 'open' ? ` (${s.outcome})` : ''}
              </Menu.Item>
            ))}
          </Menu.Dropdown>
        </Menu>
      )}
    </Paper>
  );
}

/** What a card shows: customer, partner, amount, status, conflict. */
function CardBody({ deal, handle, overlay }: { deal: Deal; handle?: ReactNode; overlay?: boolean }) {
  return (
    <Box p={overlay ? 'xs' : 0} w={overlay ? columnWidth - 20 : undefined}
      bg={overlay ? 'var(--mantine-color-body)' : undefined}
      style={overlay ? { border: '1px solid var(--mantine-color-default-border)', borderRadius: 8, boxShadow: 'var(--mantine-shadow-md)' } : undefined}>
      <Group gap={4} wrap="nowrap" align="flex-start">
        {handle}
        <Stack gap={2} style={{ minWidth: 0, flex: 1 }}>
          {overlay
            ? <Text fw={600} size="sm" truncate>{deal.customerCompany}</Text>
            : <Anchor component={Link} to={`/deals/${deal.id}`} fw={600} size="sm" truncate>{deal.customerCompany}</Anchor>}
          <Text size="xs" c="dimmed" truncate><PartnerName id={deal.partnerId} /></Text>
        </Stack>
      </Group>
      <Group justify="space-between" mt={6} gap={4}>
        <Text size="sm" fw={500}><Money minor={deal.amountMinor} currency={deal.currency} /></Text>
        <Group gap={4}>
          <DealStatus status={deal.status} />
          <ConflictMarker deal={deal} />
        </Group>
      </Group>
    </Box>
  );
}
