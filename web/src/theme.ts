import { createTheme, DEFAULT_THEME, type CSSVariablesResolver } from '@mantine/core';

// The console's default theme. A white-label portal passes its own createTheme() values
// (primaryColor, colors, fontFamily, radius) from the tenant's branding at run time.
export const theme = createTheme({
  primaryColor: 'indigo',
  // indigo-6 under white text is 4.3:1, below WCAG AA's 4.5:1 (axe color-contrast); 7 is 5.0:1.
  primaryShade: { light: 7, dark: 8 },
  defaultRadius: 'md',
  // A reader who asked the system for less motion gets dialogs, menus and notices without animation.
  respectReducedMotion: true,
  fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
  // Close buttons are icons: give them a name assistive technology reads.
  components: {
    Modal: { defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } },
    Drawer: { defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } },
    // A titled notification's text is gray-6 on white (below AA): use the darkened dimmed colour.
    Notification: { defaultProps: { closeButtonProps: { 'aria-label': 'Close the notification' } }, styles: { description: { color: 'var(--mantine-color-dimmed)' } } },
  },
});

// Mantine's dimmed text (gray-6 on white, dark-2 on dark-7) fails WCAG AA contrast too, and so
// does the text of its light variant (a colour's shade 6 on its own tint), and so do a field's error
// message and value (red-6 on white): darken them in light mode.
const lightVariantText = Object.fromEntries(Object.keys(DEFAULT_THEME.colors).map((c) => [
  `--mantine-color-${c}-light-color`, `color-mix(in srgb, var(--mantine-color-${c}-9) 70%, black)`,
]));

export const cssVariablesResolver: CSSVariablesResolver = () => ({
  variables: {},
  light: { '--mantine-color-dimmed': 'var(--mantine-color-gray-7)', '--mantine-color-error': 'var(--mantine-color-red-9)', ...lightVariantText },
  dark: { '--mantine-color-dimmed': 'var(--mantine-color-dark-1)' },
});
