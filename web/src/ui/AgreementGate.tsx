import { lazy, Suspense } from 'react';
import { Link, Outlet, useLocation } from 'react-router';
import { Alert, Anchor, Loader, Stack } from '@mantine/core';
import { usePendingAgreements } from './agreementData';

const PortalAgreements = lazy(() => import('../pages/portal/Agreements'));

/**
 * The portal's page, under a banner while the partner has agreements to accept; while one refuses
 * the partner (blocking), every portal address shows the agreements instead until they are accepted.
 */
export function AgreementGate({ portal }: { portal: boolean }) {
  const pending = usePendingAgreements(portal);
  const { pathname } = useLocation();
  // The page waits for the answer, so that a held partner never glimpses the page first.
  if (portal && pending.isLoading) return <Loader role="status" aria-label="Loading" />;
  const data = portal ? pending.data : undefined;
  if (!data || data.data.length === 0) return <Outlet />;
  const onPage = pathname === '/portal/agreements';
  return (
    <Stack>
      {!onPage && (
        <Alert color={data.blocking ? 'red' : 'yellow'} title={data.blocking ? 'Accept the agreements to continue' : 'Agreements to accept'} data-testid="agreement-banner">
          {data.blocking
            ? 'Your organisation must accept the agreements below before it uses the portal.'
            : <>Your organisation is asked to accept {data.data.map((p) => p.title).join(', ')}. <Anchor component={Link} to="/portal/agreements">Read and accept</Anchor></>}
        </Alert>
      )}
      {data.blocking && !onPage
        ? <Suspense fallback={<Loader aria-label="Loading agreements" />}><PortalAgreements /></Suspense>
        : <Outlet />}
    </Stack>
  );
}
