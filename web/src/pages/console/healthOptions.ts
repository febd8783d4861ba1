import { useQuery } from '@tanstack/react-query';
import { api, ApiError, unwrap, type Schemas } from '../../api/client';

type Component = Schemas['HealthComponent'];
type Source = Component['source'];

/** The component sources of the model, with the unit of their values. */
export const sources: { value: Source; label: string; unit: string }[] = [
  { value: 'won_revenue', label: 'Won revenue', unit: 'minor units of the currency' },
  { value: 'won_deals', label: 'Won deals', unit: 'deals won in the window' },
  { value: 'nps', label: 'NPS', unit: '−100 to 100' },
  { value: 'csat', label: 'CSAT', unit: '0 to 100' },
  { value: 'open_tickets', label: 'Open tickets', unit: 'tickets' },
  { value: 'sla_breaches', label: 'SLA breaches', unit: 'breaches in the window' },
  { value: 'onboarding_completion', label: 'Onboarding completion', unit: 'percent of tasks done' },
  { value: 'days_since_last_sign_in', label: 'Days since last sign-in', unit: 'days' },
  { value: 'metric', label: 'Metric', unit: 'the metric\'s value in the window' },
];
/** The sources counted over a window of days. */
export const windowed: Source[] = ['won_revenue', 'won_deals', 'nps', 'csat', 'sla_breaches', 'metric'];

/** A component's name for people: its label, its metric's name, or its source's name. */
export function componentName(c: { source: Source; label?: string; metricName?: string; metricDeleted?: boolean }): string {
  if (c.label) return c.label;
  if (c.source === 'metric') return c.metricName ?? (c.metricDeleted ? 'Deleted metric' : 'Metric');
  return sources.find((s) => s.value === c.source)?.label ?? c.source;
}

/** What a metric's values are, for the thresholds' descriptions. */
export function metricUnit(m: { unit: string; currency?: string; kind: string }): string {
  if (m.unit === 'money') return `minor units of ${m.currency ?? 'the currency'}`;
  if (m.unit === 'bps') return 'basis points: 10000 = 1× (no value without MDF spend)';
  if (m.kind === 'nps') return '−100 to 100';
  if (m.kind === 'csat') return '0 to 100';
  if (m.kind === 'unique') return 'distinct values in the window';
  return m.kind === 'sum' ? 'sum in the window' : 'events in the window';
}

/** The tenant's health model, or null before one is set. */
export function useHealthModel() {
  return useQuery({
    queryKey: ['health', 'model'],
    queryFn: async () => {
      try {
        return unwrap(await api.GET('/api/health/model'));
      } catch (e) {
        if (e instanceof ApiError && e.status === 404) return null;
        throw e;
      }
    },
  });
}

