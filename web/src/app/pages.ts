import { consolePages } from '../pages/console';
import { portalPages } from '../pages/portal';

/** Every page of the app: the console's and the portal's. */
export const pages = [...consolePages, ...portalPages];
