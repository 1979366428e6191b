/**
 * Does the built-in answer quote what answers? Per in-scope question, `corpora/<name>.quotes.txt`
 * names the sentence(s) of its page that answer it (`=`) and the other sentences a reader would
 * call on-topic (`~`): `question | = sentence || ~ sentence …`. Of the answered questions with a
 * label, two figures:
 *
 * - quoted-sentence precision: the share of quoted sentences that are labelled (= or ~);
 * - answering sentence present: the share of answers quoting an `=` sentence.
 *
 * A quoted sentence and a label match when the first 60 characters of one begin the other, case,
 * punctuation and spacing ignored (labels keep the first 100 characters of a long sentence; the
 * answerer cuts sentences past 400 and may put a heading before one).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { normalizeForMatch, sentences } from '../../server/domain/answers/text.js';
import type { Page } from './corpus.js';

const DIR = join(dirname(fileURLToPath(import.meta.url)), 'corpora');

export interface QuoteLabel {
  answering: string[];
  onTopic: string[];
}

/** The labels of a corpus by question text; empty when it has no quotes file. */
export function loadQuoteLabels(corpus: string): Map<string, QuoteLabel> {
  const file = join(DIR, `${corpus}.quotes.txt`);
  const out = new Map<string, QuoteLabel>();
  if (!existsSync(file)) return out;
  for (const raw of readFileSync(file, 'utf8').split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const bar = line.indexOf(' | ');
    if (bar < 0) throw new Error(`${file}: no " | " in ${line}`);
    const label: QuoteLabel = { answering: [], onTopic: [] };
    for (const part of line.slice(bar + 3).split(' || ')) {
      const m = /^([=~]) (.+)$/.exec(part.trim());
      if (!m) throw new Error(`${file}: a label starts with "= " or "~ ": ${part}`);
      (m[1] === '=' ? label.answering : label.onTopic).push(m[2]);
    }
    out.set(line.slice(0, bar).trim(), label);
  }
  return out;
}

const key = (s: string) => normalizeForMatch(s.replace(/…$/, '')).slice(0, 60);

/** The sentences an answer quotes (paragraphs, then sentences). */
export function quotedSentences(text: string): string[] {
  // A section heading put before a passage's quote ("**Opening hours** — …") is not a quoted sentence.
  return text.split(/\n{2,}/).flatMap((p) => sentences(p.trim().replace(/^\*\*[^*\n]+\*\* — /, '')));
}

function matches(sentence: string, labels: string[]): boolean {
  const s = key(sentence);
  return labels.some((l) => {
    const k = key(l);
    return s.length > 0 && k.length > 0 && (s.startsWith(k) || k.startsWith(s) || s.includes(k));
  });
}

export interface QuoteOutcome {
  question: string;
  answered: boolean;
  text: string;
  /** The question's answering pages' text, normalised: tells a quote from the wrong page. */
  pageText?: string;
}

export interface QuoteFigures {
  /** Answered questions with a label. */
  answered: number;
  quoted: number;
  onTopic: number;
  precision: number;
  present: number;
  presence: number;
  /** Quoted sentences from a page that does not answer the question (when pageText is known). */
  otherPage: number;
  /** Precision of the quotes taken from an answering page: the sentence choice alone. */
  rightPagePrecision: number;
  /** Quoted sentences no label covers, for EVAL_VERBOSE. */
  offTopic: { question: string; sentence: string; otherPage: boolean }[];
  missing: string[];
}

export function quoteFigures(outcomes: QuoteOutcome[], labels: Map<string, QuoteLabel>): QuoteFigures {
  let answered = 0;
  let quoted = 0;
  let onTopic = 0;
  let present = 0;
  let otherPage = 0;
  const offTopic: QuoteFigures['offTopic'] = [];
  const missing: string[] = [];
  for (const o of outcomes) {
    const label = labels.get(o.question);
    if (!label || !o.answered) continue;
    answered++;
    const said = quotedSentences(o.text);
    let hasAnswer = false;
    for (const s of said) {
      quoted++;
      const elsewhere = o.pageText !== undefined && !o.pageText.includes(key(s).slice(0, 40));
      if (elsewhere) otherPage++;
      if (matches(s, label.answering)) {
        onTopic++;
        hasAnswer = true;
      } else if (matches(s, label.onTopic)) onTopic++;
      else offTopic.push({ question: o.question, sentence: s, otherPage: elsewhere });
    }
    if (hasAnswer) present++;
    else missing.push(o.question);
  }
  return {
    answered,
    quoted,
    onTopic,
    precision: quoted ? onTopic / quoted : NaN,
    otherPage,
    rightPagePrecision: quoted - otherPage ? onTopic / (quoted - otherPage) : NaN,
    present,
    presence: answered ? present / answered : NaN,
    offTopic,
    missing,
  };
}

const f2 = (x: number) => (Number.isNaN(x) ? '   -' : x.toFixed(2));

/** The eval's quote table: per corpus and split, then overall (answers-eval.ts calls add per corpus, print at the end). */
export function quoteReport() {
  const rows: { corpus: string; split: string; f: QuoteFigures }[] = [];
  const all = new Map<string, QuoteOutcome[]>();
  const allLabels = new Map<string, QuoteLabel>();
  return {
    add(
      corpus: string,
      outcomes: {
        question: { q: string; split: string; kind: string; pages: string[] };
        unanswered: boolean;
        text: string;
      }[],
      splits: readonly string[],
      pages: Page[],
    ) {
      const textOf = new Map(
        pages.map((p) => [
          p.path,
          normalizeForMatch([p.title, ...p.sections.flatMap((s) => [s.heading ?? '', ...s.paragraphs])].join(' ')),
        ]),
      );
      const labels = loadQuoteLabels(corpus);
      for (const [q, l] of labels) allLabels.set(`${corpus}\u0000${q}`, l);
      for (const split of splits) {
        const of = outcomes
          .filter((o) => o.question.split === split && o.question.kind !== 'oos')
          .map((o) => ({
            question: o.question.q,
            answered: !o.unanswered,
            text: o.text,
            pageText: o.question.pages.map((p) => textOf.get(p) ?? '').join(' '),
          }));
        if (!of.length) continue;
        const f = quoteFigures(of, labels);
        rows.push({ corpus, split, f });
        all.set(split, [
          ...(all.get(split) ?? []),
          ...of.map((o) => ({ ...o, question: `${corpus}\u0000${o.question}` })),
        ]);
        if (process.env.EVAL_VERBOSE) {
          for (const x of f.offTopic)
            console.log(
              `   ${split[0]} off-topic quote${x.otherPage ? ' (other page)' : ''}  ${x.question}\n        ${x.sentence.slice(0, 140)}`,
            );
          for (const q of f.missing)
            console.log(
              `   ${split[0]} answer not quoted ${q}\n        ${of
                .find((o) => o.question === q)
                ?.text.replace(/\s+/g, ' ')
                .slice(0, 220)}`,
            );
        }
      }
    },
    print() {
      console.log(
        '\nquoted sentences (in-scope questions answered, labels in corpora/*.quotes.txt; goals: precision >= 0.85, answering sentence present >= 0.90)',
      );
      console.log(
        'corpus          split     answered | quoted precision | answer present | from another page, precision of the rest',
      );
      const line = (corpus: string, split: string, f: QuoteFigures) =>
        console.log(
          `${corpus.padEnd(15)} ${split.padEnd(9)} ${String(f.answered).padStart(8)} | ${String(f.quoted).padStart(6)}      ${f2(f.precision)} |           ${f2(f.presence)} | ${String(f.otherPage).padStart(6)}  ${f2(f.rightPagePrecision)}`,
        );
      for (const r of rows) line(r.corpus, r.split, r.f);
      if (new Set(rows.map((r) => r.corpus)).size > 1)
        for (const [split, of] of all) line('overall', split, quoteFigures(of, allLabels));
    },
  };
}
