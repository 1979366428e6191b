/** What the knowledge page says about a source's state and a job's failures, from what the API returns. */
import { counted, type Strings } from './strings.js';
import type { Job, Source } from './types.js';

export type SourceState = Source['status'] | 'partial';

/** One source per chatbot gathers every add of these kinds, each add a job of its own. */
const GATHERING: readonly Source['type'][] = ['links', 'youtube', 'text', 'files'];

/**
 * `partial` when some of a source's items were learned and some failed: its last job
 * partially succeeded (ready, with the job's error kept), or a gathering source's last add
 * failed while the documents of earlier adds are still learned. Error only when nothing was.
 */
export function sourceState(s: Pick<Source, 'type' | 'status' | 'documentCount' | 'lastError'>): SourceState {
  if (s.status === 'ready' && s.lastError) return 'partial';
  if (s.status === 'error' && s.documentCount > 0 && GATHERING.includes(s.type)) return 'partial';
  return s.status;
}

/** "1 page could not be read", in the unit the source reads: videos for YouTube, files for uploads. */
export function failuresSummary(t: Strings, type: Source['type'] | undefined, count: number): string {
  if (type === 'youtube') return counted(t.jobs.failuresVideos, t.jobs.failuresVideosOne, count);
  if (type === 'files') return counted(t.jobs.failuresFiles, t.jobs.failuresFilesOne, count);
  return counted(t.jobs.failures, t.jobs.failuresOne, count);
}

/** A job's state in words; "some pages failed" says videos or files for those sources. */
export function jobStatusText(t: Strings, status: Job['status'], type: Source['type'] | undefined): string {
  if (status === 'partially_succeeded' && type === 'youtube') return t.jobs.partlyVideos;
  if (status === 'partially_succeeded' && type === 'files') return t.jobs.partlyFiles;
  return t.jobs.status[status];
}
