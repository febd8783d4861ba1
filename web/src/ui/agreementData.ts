// Legal agreements' data: kinds as people read them, a version's exact text, who must accept, and
// the pending agreements of the signed-in partner.
import { useQuery } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../api/client';
import { useCan } from '../auth/useCan';

export type Agreement = Schemas['Agreement'];
export type AgreementVersion = Schemas['AgreementVersion'];
export type AgreementKind = Agreement['kind'];

export const agreementKinds: { value: AgreementKind; label: string }[] = [
  { value: 'partner_agreement', label: 'Partner agreement' },
  { value: 'nda', label: 'Non-disclosure agreement' },
  { value: 'program_terms', label: 'Program terms' },
  { value: 'other', label: 'Other' },
];

/** An agreement kind as people read it. */
export function kindLabel(kind: string): string {
  return agreementKinds.find((k) => k.value === kind)?.label ?? kind;
}

/** A version's document, byte for byte as the server hashes it. */
export function useAgreementDocument(agreementId: string, versionId: string | undefined) {
  return useQuery({
    queryKey: ['agreements', 'document', agreementId, versionId],
    enabled: !!versionId,
    staleTime: Infinity,
    queryFn: async () => unwrap(await api.GET('/api/agreements/{id}/versions/{versionId}/document', {
      params: { path: { id: agreementId, versionId: versionId ?? '' } }, parseAs: 'text',
    })),
  });
}

/** Who a requirement applies to. */
export function requiredOf(r: Schemas['AgreementRequirement']): string {
  return r.allPartners ? 'all partners' : `levels ${r.levels.join(', ') || '—'}`;
}

/** The agreements the signed-in partner must accept and has not (portal only). */
export function usePendingAgreements(enabled: boolean) {
  const allowed = useCan('agreements:read');
  return useQuery({
    queryKey: ['agreements', 'pending'],
    enabled: enabled && allowed,
    staleTime: 30_000,
    queryFn: async () => unwrap(await api.GET('/api/pending-agreements')),
  });
}
