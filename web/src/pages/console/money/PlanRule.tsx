import type { Schemas } from '../../../api/client';
import { Money } from '../../../ui/Money';
import { formatBps } from './util';

type Plan = Schemas['CommissionPlan'];

/** What a plan pays, in a few words: "10 %", "50.00 € flat", "tiered by quarter, 5–12 %". */
export function PlanRule({ plan }: { plan: Plan }) {
  const c = plan.definition.calculation;
  if (c.kind === 'percentage') return <span>{formatBps(c.rateBps)} of the amount</span>;
  if (c.kind === 'flat') {
    return plan.definition.currency
      ? <span><Money minor={c.flatAmount} currency={plan.definition.currency} /> flat</span>
      : <span>{String(c.flatAmount ?? 0)} minor units flat</span>;
  }
  const tiers = c.tiers ?? [];
  return <span>tiered by {c.tierPeriod}: {tiers.map((t) => formatBps(t.rateBps)).join(' → ')}</span>;
}
