import { useEffect, type ComponentType } from 'react';
import { Navigate } from 'react-router';
import { Loader } from '@mantine/core';
import { can, faceOf, useMe } from '../auth/me';
import { ErrorAlert } from '../ui/ErrorAlert';
import Forbidden from './Forbidden';
import type { PageDef } from './page';

/** Renders a page for a caller who may use it, the 403 view for anyone else. */
export function Gate({ page, Component }: { page: PageDef; Component: ComponentType }) {
  const me = useMe();
  useEffect(() => { document.title = `${page.title} · partnerd`; }, [page.title]);
  if (me.isPending) return <Loader role="status" aria-label="Loading" />;
  if (me.isError) return <ErrorAlert error={me.error} />;
  const face = faceOf(me.data);
  // One address for everyone's start: partners land on their portal.
  if (page.path === '/' && face === 'portal') return <Navigate to="/portal" replace />;
  if (face !== page.face || !can(me.data, page.permission)) {
    return <Forbidden home={face === 'portal' ? '/portal' : '/'} />;
  }
  return <Component />;
}
