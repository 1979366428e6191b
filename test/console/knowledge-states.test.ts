/**
 * What the knowledge page says about a source and a job's failures: the unit the source reads
 * (videos, files, pages) in every language, and a partial state, not Error, when some items
 * were learned and some failed.
 */
import { describe, expect, test } from 'vitest';
import { failuresSummary, jobStatusText, sourceState } from '../../console/pages/knowledge/states.js';
import { en } from '../../console/pages/knowledge/strings/en.js';
import type { Source } from '../../console/pages/knowledge/types.js';

const merged = async (lang: string) => {
  const { default: over } = (await import(`../../console/pages/knowledge/strings/${lang}.ts`)) as {
    default: { jobs: Record<string, string> };
  };
  return { ...en, jobs: { ...en.jobs, ...over.jobs } };
};

describe("a job's failures, counted in what the source reads", () => {
  test.each([
    ['youtube', 1, '1 video could not be read'],
    ['youtube', 3, '3 videos could not be read'],
    ['files', 1, '1 file could not be read'],
    ['files', 2, '2 files could not be read'],
    ['website', 1, '1 page could not be read'],
    ['links', 4, '4 pages could not be read'],
    [undefined, 1, '1 page could not be read'],
  ] as const)('%s, %i failed: "%s"', (type, n, text) => {
    expect(failuresSummary(en, type, n)).toBe(text);
  });

  test.each([
    ['de', '1 Video konnte nicht gelesen werden', '2 Dateien konnten nicht gelesen werden'],
    ['fr', '1 vidéo n’a pas pu être lue', '2 fichiers n’ont pas pu être lus'],
    ['ja', '1 本の動画を読み込めませんでした', '2 件のファイルを読み込めませんでした'],
    ['pl', 'Nie udało się przeczytać 1 filmu', 'Nie udało się przeczytać plików: 2'],
  ])('%s says videos and files in its own words', async (lang, oneVideo, twoFiles) => {
    const t = await merged(lang);
    expect(failuresSummary(t, 'youtube', 1)).toBe(oneVideo);
    expect(failuresSummary(t, 'files', 2)).toBe(twoFiles);
  });
});

describe("a source's state", () => {
  const source = (over: Partial<Source>): Source => ({
    id: 's',
    type: 'youtube',
    name: 'YouTube videos',
    status: 'ready',
    documentCount: 1,
    lastSyncAt: null,
    nextSyncAt: null,
    syncIntervalMinutes: null,
    lastError: null,
    ...over,
  });

  test('a YouTube source whose latest video failed while an earlier one is learned is partial, not Error', () => {
    const s = source({ status: 'error', documentCount: 1, lastError: 'The item failed: The video has no captions' });
    expect(sourceState(s)).toBe('partial');
    expect(en.sources.status[sourceState(s)]).toBe('Partly read');
  });

  test('a job that partially succeeded leaves its source partial', () => {
    expect(sourceState(source({ type: 'website', lastError: '1 of 2 items failed; see the error list' }))).toBe(
      'partial',
    );
  });

  test('Error when nothing was learned, or a whole site failed to read', () => {
    expect(sourceState(source({ status: 'error', documentCount: 0 }))).toBe('error');
    expect(sourceState(source({ type: 'website', status: 'error', documentCount: 5 }))).toBe('error');
  });

  test('ready, reading and waiting are shown as they are', () => {
    expect(sourceState(source({}))).toBe('ready');
    expect(sourceState(source({ status: 'syncing', lastError: 'x' }))).toBe('syncing');
    expect(sourceState(source({ status: 'idle', documentCount: 0 }))).toBe('idle');
  });
});

describe("a job's state in words", () => {
  test('a partly successful YouTube or files job says videos or files failed, not pages', () => {
    expect(jobStatusText(en, 'partially_succeeded', 'youtube')).toBe('Done, some videos failed');
    expect(jobStatusText(en, 'partially_succeeded', 'files')).toBe('Done, some files failed');
    expect(jobStatusText(en, 'partially_succeeded', 'sitemap')).toBe('Done, some pages failed');
    expect(jobStatusText(en, 'failed', 'youtube')).toBe('Failed');
  });
});
