// Moving a deal to a stage: a lost stage asks why, a won stage asks to confirm.
import { useState } from 'react';
import { useMutation, useQueryClient, type InfiniteData } from '@tanstack/react-query';
import { api, unwrap } from '../../../api/client';
import { notify, type Deal, type Stage } from './data';
import { CloseDialog } from './shared';

interface PendingMove {
  deal: Deal;
  stage: Stage;
}

/**
 * Moving deals between stages. The move is not idempotent (a repeat is refused as SAME_STAGE
 * and a won stage attributes a customer), so the board changes only after the server answers.
 */
export function useMoveDeal() {
  const qc = useQueryClient();
  const [asking, setAsking] = useState<PendingMove | null>(null);
  const mutation = useMutation({
    mutationFn: async ({ deal, stage, reason }: PendingMove & { reason?: string; asked?: boolean }) =>
      unwrap(await api.POST('/api/deals/{id}/move', { params: { path: { id: deal.id } }, body: { stageId: stage.id, reason } })),
    onSuccess: (moved, { stage }) => {
      setAsking(null);
      qc.setQueryData(['deals', 'detail', moved.id], moved);
      // The board shows the answer at once: the deal leaves its column and heads the new one.
      for (const [key, data] of qc.getQueriesData<InfiniteData<{ data: Deal[]; nextCursor: string }>>({ queryKey: ['deals', 'board'] })) {
        if (!data) continue;
        const here = key[2] === moved.stageId;
        qc.setQueryData(key, {
          ...data,
          pages: data.pages.map((p, i) => ({ ...p, data: [...(here && i === 0 ? [moved] : []), ...p.data.filter((d) => d.id !== moved.id)] })),
        });
      }
      notify('green', `${moved.customerCompany} is now in ${stage.name}${moved.status === 'won' ? ': won' : moved.status === 'lost' ? ': lost' : ''}.`);
    },
    onError: (err, { deal, stage, asked }) => {
      // A refusal of what the dialog asked shows in the dialog; a drag's refusal is told here.
      if (asked) return;
      notify('red', err.message, `${deal.customerCompany} was not moved to ${stage.name}`);
    },
    onSettled: () => qc.invalidateQueries({ queryKey: ['deals'] }),
  });

  /** Moves deal to stage; won and lost stages ask first. */
  const request = (deal: Deal, stage: Stage) => {
    if (stage.id === deal.stageId) return;
    mutation.reset();
    if (stage.outcome === 'open') mutation.mutate({ deal, stage });
    else setAsking({ deal, stage });
  };

  const dialog = (
    <CloseDialog key={asking ? asking.deal.id + asking.stage.id : ''} pending={asking} busy={mutation.isPending} error={asking ? mutation.error : null}
      onCancel={() => { setAsking(null); mutation.reset(); }}
      onConfirm={(reason) => { if (asking) mutation.mutate({ ...asking, reason, asked: true }); }} />
  );
  const moving = mutation.isPending ? { dealId: mutation.variables.deal.id, stage: mutation.variables.stage } : null;
  return { request, dialog, moving };
}
