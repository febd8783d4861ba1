import { createContext, useContext } from 'react';
import type { CSSVariablesResolver, MantineColorsTuple, MantineThemeOverride } from '@mantine/core';
import type { components } from './api/schema';

// A white-label portal: on a tenant's verified custom domain the server marks index.html, and
// the app reads the tenant's brand (GET /api/branding for this host) before its first render.

export type Brand = components['schemas']['PublicBranding'];

/** Whether this page was served on a verified custom domain (a tenant's portal). */
export const onPortalHost = document.querySelector('meta[name="partnerd-portal"]')?.getAttribute('content') === '1';

/** The brand of this host's portal, or null on the installation's own host. */
export async function loadBrand(): Promise<Brand | null> {
  if (!onPortalHost) return null;
  const res = await fetch('/api/branding').catch(() => null);
  return res?.ok ? ((await res.json()) as Brand) : null;
}

/** The brand the app is shown in; null is the product's own look. */
export const BrandContext = createContext<Brand | null>(null);
export const useBrand = () => useContext(BrandContext);

const rgb = (hex: string) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
const toHex = (c: number[]) => '#' + c.map((v) => Math.round(v).toString(16).padStart(2, '0')).join('');
const mix = (a: number[], b: number[], t: number) => a.map((v, i) => v + ((b[i] ?? 0) - v) * t);

/** Ten shades around colour, shade 6 being the colour itself (Mantine's primary shade here). */
export function shades(colour: string): MantineColorsTuple {
  const c = rgb(colour);
  const light = [0.92, 0.8, 0.65, 0.5, 0.32, 0.16].map((t) => toHex(mix(c, [255, 255, 255], t)));
  const dark = [0.15, 0.3, 0.45].map((t) => toHex(mix(c, [0, 0, 0], t)));
  return [...light, colour.toLowerCase(), ...dark] as unknown as MantineColorsTuple;
}

/** The Mantine theme of a brand: its primary colour as the theme's. */
export function brandTheme(b: Brand): MantineThemeOverride {
  if (!b.theme.primary) return {};
  return { primaryColor: 'brand', primaryShade: { light: 6, dark: 6 }, colors: { brand: shades(b.theme.primary) } };
}

/** Adds the brand's colour tokens to the light scheme's variables of base. */
export function brandVariables(b: Brand, base: CSSVariablesResolver): CSSVariablesResolver {
  return (theme) => {
    const v = base(theme);
    const light: Record<string, string> = { ...v.light };
    if (b.theme.background) light['--mantine-color-body'] = b.theme.background;
    if (b.theme.text) light['--mantine-color-text'] = b.theme.text;
    return { ...v, light };
  };
}

/** Shows the brand outside React: the tab's title and icon, and its tokens as CSS variables. */
export function applyBrand(b: Brand) {
  document.title = b.name;
  if (b.favicon) {
    const link = document.querySelector<HTMLLinkElement>('link[rel="icon"]') ?? document.head.appendChild(document.createElement('link'));
    link.rel = 'icon';
    link.type = b.favicon.contentType;
    link.href = b.favicon.url;
  }
  const root = document.documentElement.style;
  for (const [k, v] of Object.entries({ primary: b.theme.primary, accent: b.theme.accent, background: b.theme.background, text: b.theme.text })) {
    if (v) root.setProperty(`--brand-${k}`, v);
  }
  // Values the API checked: plain tokens, never url(), strings or blocks.
  for (const [k, v] of Object.entries(b.cssVariables)) root.setProperty(k, v);
}
