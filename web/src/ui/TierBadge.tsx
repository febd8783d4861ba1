import { Badge } from '@mantine/core';
import type { Schemas } from '../api/client';

type Tier = Schemas['HealthTier'];

/** A tier's colour by its rank in the model: the highest green, the lowest red, the rest orange. */
function tierColor(tier: string, tiers: Tier[] | null | undefined): string {
  const list = tiers ?? [];
  const i = list.findIndex((t) => t.name === tier);
  if (i < 0) return 'gray';
  if (i === 0) return 'green';
  if (i === list.length - 1) return 'red';
  return 'orange';
}

/** A health tier as a badge coloured by its rank in the model. */
export function TierBadge({ tier, tiers }: { tier: string; tiers: Tier[] | null | undefined }) {
  return <Badge variant="dot" color={tierColor(tier, tiers)}>{tier.replaceAll('_', ' ')}</Badge>;
}
