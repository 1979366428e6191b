/**
 * The console's pages, found by folder: every `pages/<id>/page.ts` is a page's manifest (small,
 * loaded with the shell: its nav entry), its screen `pages/<id>/index.tsx` a chunk of its own,
 * loaded when first opened. Adding a page is adding a folder (console/README.md).
 */
import type { ComponentType } from 'preact';
import { lazy } from 'preact/compat';
import type { Language } from './i18n/index.js';

export interface PageProps {
  /** The selected chatbot's id (a chatbot page); null on an account page. */
  chatbotId: string | null;
}

export interface PageManifest {
  /** The URL segment: /console/<chatbotId>/<id>, or /console/<id> for an account page. */
  id: string;
  /** Place in the nav, lowest first. */
  order: number;
  /** The nav label per language; English is required, a language left out shows English. */
  label: { en: string } & Partial<Record<Language, string>>;
  /** The scope the user's role needs for the page to be listed (GET /me `scopes`); none: everyone. */
  scope?: string;
  /** true: the page works on the selected chatbot (/console/<chatbotId>/<id>). */
  chatbot: boolean;
  /** The screen: `() => import('./index.js')`, whose default export takes PageProps. */
  load: () => Promise<{ default: ComponentType<PageProps> }>;
}

export interface Page extends PageManifest {
  Component: ComponentType<PageProps>;
}

const manifests = import.meta.glob<{ default: PageManifest }>('./pages/*/page.ts', { eager: true });

export const PAGES: Page[] = Object.values(manifests)
  .map((m) => ({ ...m.default, Component: lazy(m.default.load) }))
  .sort((a, b) => a.order - b.order);

export const pageById = (id: string | undefined) => PAGES.find((p) => p.id === id);

/** The page /console/<chatbotId> opens: the first chatbot page. */
export const DEFAULT_CHATBOT_PAGE = PAGES.find((p) => p.chatbot)?.id ?? '';
