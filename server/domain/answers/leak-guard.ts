/**
 * The output filter against prompt extraction. A model told to keep its instructions secret
 * can still be talked into printing them; this catches the verbatim case whatever the model
 * does: an answer containing a long run of a confidential text (the system message, the
 * persona's or instruction's instructions, systemPrompt, userPrompt) is withheld.
 *
 * It works while streaming: text that could be the start of such a run is held back until the
 * run breaks (then it is released) or reaches the limit (a leak: nothing of it was released).
 * Each confidential text gets a suffix automaton, which tracks in O(1) per character the
 * longest end of the stream that occurs in the text. Comparison ignores case and collapses
 * whitespace. Passages in quotes inside an instruction ("always say: '…'") are meant to be
 * said, so quoted spans are not confidential.
 */

/** A run this long (normalised characters) of a confidential text is a leak. */
export const LEAK_MIN_CHARS = 40;
/** Confidential texts shorter than this are ignored on their own (a run of "be concise" is not a leak). */
export const SECRET_MIN_CHARS = 16;

class SuffixAutomaton {
  private readonly next: Map<string, number>[] = [new Map()];
  private readonly link: number[] = [-1];
  private readonly len: number[] = [0];

  constructor(text: string) {
    let last = 0;
    for (const c of text) {
      const cur = this.next.length;
      this.next.push(new Map());
      this.len.push(this.len[last] + 1);
      this.link.push(0);
      let p = last;
      while (p !== -1 && !this.next[p].has(c)) {
        this.next[p].set(c, cur);
        p = this.link[p];
      }
      if (p !== -1) {
        const q = this.next[p].get(c)!;
        if (this.len[p] + 1 === this.len[q]) this.link[cur] = q;
        else {
          const clone = this.next.length;
          this.next.push(new Map(this.next[q]));
          this.len.push(this.len[p] + 1);
          this.link.push(this.link[q]);
          while (p !== -1 && this.next[p].get(c) === q) {
            this.next[p].set(c, clone);
            p = this.link[p];
          }
          this.link[q] = clone;
          this.link[cur] = clone;
        }
      }
      last = cur;
    }
  }

  /** A matcher: after each character, the length of the longest end of the input occurring in the text. */
  matcher() {
    let state = 0;
    let length = 0;
    return (c: string): number => {
      while (state !== 0 && !this.next[state].has(c)) {
        state = this.link[state];
        length = this.len[state];
      }
      const to = this.next[state].get(c);
      if (to !== undefined) {
        state = to;
        length++;
      } else {
        state = 0;
        length = 0;
      }
      return length;
    };
  }
}

/** Built automata by text: a chatbot's instructions repeat on every answer. */
const cache = new Map<string, SuffixAutomaton>();
const CACHE_SIZE = 32;

function automaton(text: string): SuffixAutomaton {
  let a = cache.get(text);
  if (a) {
    cache.delete(text); // most recently used last
  } else {
    a = new SuffixAutomaton(text);
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
  }
  cache.set(text, a);
  return a;
}

const QUOTED = /"[^"\n]{1,500}"|“[^”\n]{1,500}”|«[^»\n]{1,500}»|„[^“”\n]{1,500}[“”]|(?<!\w)'[^'\n]{1,500}'(?!\w)/g;

/** Lower-case, whitespace collapsed to single spaces. */
function normalise(text: string): string {
  return text.toLowerCase().replace(/\s+/g, ' ').trim();
}

/** The confidential pieces of the given texts: quoted spans removed, short ones dropped. */
function pieces(secrets: string[]): string[] {
  const out: string[] = [];
  for (const s of secrets) {
    for (const part of s.split(QUOTED)) {
      const n = normalise(part);
      if (n.length >= SECRET_MIN_CHARS) out.push(n);
    }
  }
  return out;
}

interface Held {
  ch: string;
  /** Whether it advanced the matchers (collapsed whitespace does not). */
  counted: boolean;
}

export class LeakGuard {
  private readonly matchers: { match: (c: string) => number; limit: number; current: number }[];
  private held: Held[] = [];
  private lastWasSpace = true;
  private leakedFlag = false;

  constructor(secrets: string[], minChars = LEAK_MIN_CHARS) {
    this.matchers = pieces(secrets).map((p) => ({
      match: automaton(p).matcher(),
      limit: Math.min(minChars, p.length),
      current: 0,
    }));
  }

  get leaked(): boolean {
    return this.leakedFlag;
  }

  /** Feeds streamed text; returns the part that is safe to show now ('' while held or after a leak). */
  push(text: string): string {
    if (this.leakedFlag) return '';
    if (!this.matchers.length) return text;
    for (const ch of text) {
      const space = /\s/.test(ch);
      if (space && this.lastWasSpace) {
        this.held.push({ ch, counted: false });
        continue;
      }
      const c = space ? ' ' : ch.toLowerCase();
      this.lastWasSpace = space;
      this.held.push({ ch, counted: true });
      for (const m of this.matchers) {
        m.current = m.match(c);
        if (m.current >= m.limit) this.leakedFlag = true;
      }
    }
    if (this.leakedFlag) {
      this.held = [];
      return '';
    }
    return this.release();
  }

  /** The end of the stream: whatever is still held is safe (no run reached the limit). */
  flush(): string {
    if (this.leakedFlag) return '';
    const rest = this.held.map((h) => h.ch).join('');
    this.held = [];
    return rest;
  }

  /** Releases everything before the longest run in progress. */
  private release(): string {
    const keep = Math.max(0, ...this.matchers.map((m) => m.current));
    let counted = 0;
    let i = this.held.length;
    while (i > 0 && counted < keep) {
      i--;
      if (this.held[i].counted) counted++;
    }
    // Whitespace just before a held run stays with it.
    while (i > 0 && !this.held[i - 1].counted) i--;
    const out = this.held
      .slice(0, i)
      .map((h) => h.ch)
      .join('');
    this.held = this.held.slice(i);
    return out;
  }
}

/** True when `text` contains a run of a confidential text at least LEAK_MIN_CHARS long (or a whole short one). */
export function leaksSecrets(text: string, secrets: string[]): boolean {
  const guard = new LeakGuard(secrets);
  guard.push(text);
  return guard.leaked;
}
