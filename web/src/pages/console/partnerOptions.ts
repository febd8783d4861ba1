// What the partner and recruitment pages share: partner types and statuses, the lifecycle's
// moves, the tenant's levels and partner roles, and the one-time links people are sent.
import { useQuery } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../../api/client';
import { useCan } from '../../auth/useCan';

export type Partner = Schemas['Partner'];
export type Level = Schemas['Level'];

export const partnerTypes = ['reseller', 'franchise', 'campus', 'broker', 'agency', 'distributor', 'other'] as const;
export type PartnerType = (typeof partnerTypes)[number];

export const partnerStatuses = ['onboarding', 'active', 'suspended', 'offboarded'] as const;
export type PartnerStatus = (typeof partnerStatuses)[number];

/** A machine word as people read it: "partner_admin" → "Partner admin". */
export function label(word: string): string {
  const s = word.replaceAll('_', ' ');
  return s.charAt(0).toUpperCase() + s.slice(1);
}

export const typeOptions = partnerTypes.map((t) => ({ value: t, label: label(t) }));
export const statusOptions = partnerStatuses.map((s) => ({ value: s, label: label(s) }));

// The partner lifecycle: onboarding → active ⇄ suspended, and offboarded from any state, for good.
const moves: Record<string, PartnerStatus[]> = {
  onboarding: ['active', 'offboarded'],
  active: ['suspended', 'offboarded'],
  suspended: ['active', 'offboarded'],
  offboarded: [],
};

/** The statuses a partner in status `from` may be given (its own included). */
export function statusesFrom(from: string): PartnerStatus[] {
  return partnerStatuses.filter((s) => s === from || (moves[from] ?? []).includes(s));
}

export function isPartnerType(v: string): v is PartnerType {
  return (partnerTypes as readonly string[]).includes(v);
}

export function isPartnerStatus(v: string): v is PartnerStatus {
  return (partnerStatuses as readonly string[]).includes(v);
}

export { useLevels } from '../../ui/levels';

/** The roles a partner user may be given: the tenant's partner-audience roles. */
export function usePartnerRoles() {
  const canRead = useCan('roles:read');
  return useQuery({
    queryKey: ['roles', 'partner'],
    enabled: canRead,
    queryFn: async () => {
      const roles: Schemas['TenantRole'][] = [];
      let cursor: string | undefined;
      do {
        const page = unwrap(await api.GET('/api/roles', { params: { query: { limit: 100, cursor } } }));
        roles.push(...page.data);
        cursor = page.nextCursor || undefined;
      } while (cursor);
      return roles.filter((r) => r.audience === 'partner');
    },
  });
}

/** Built-in partner roles, offered when the caller may not read the tenant's roles. */
export const builtInPartnerRoles = ['partner_admin', 'partner_user'];

/** The link that lets an invited person choose a password; the token rides in the fragment. */
export function invitationLink(token: string): string {
  return `${location.origin}/accept-invitation#token=${token}`;
}

/** The link that lets a person choose a new password. */
export function resetLink(token: string): string {
  return `${location.origin}/reset-password#token=${token}`;
}
