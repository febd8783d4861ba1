import type { ComponentType } from 'react';
import type { Face } from '../auth/me';

/** One page of the app: where it lives, who may open it, and how it appears in the menu. */
export interface PageDef {
  /** Route path; portal pages live under /portal. */
  path: string;
  /** Menu label and document title. */
  title: string;
  face: Face;
  /** The permission /api/me must list for the page (and its menu item) to show. */
  permission: string;
  /** Menu group; pages without one (detail pages) are not in the menu. */
  group?: string;
  load: () => Promise<{ default: ComponentType }>;
}
