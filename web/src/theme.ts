import { createTheme } from '@mantine/core';

// The console's default theme. A white-label portal passes its own createTheme() values
// (primaryColor, colors, fontFamily, radius) from the tenant's branding at run time.
export const theme = createTheme({
  primaryColor: 'indigo',
  defaultRadius: 'md',
  fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
});
