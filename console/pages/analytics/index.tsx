/**
 * A chatbot's figures (GET /chatbots/{id}/analytics): totals over the chosen days and, from the
 * same call, conversations, messages, answers and the escalation rate per day of the browser's
 * time zone, and the questions visitors asked most; the open knowledge gaps asked most often
 * come from GET /knowledge-gaps.
 */
import { useEffect, useState } from 'preact/hooks';
import { normaliseQuestion } from '../../../shared/questions.js';
import { ApiError, get, listAll } from '../../api.js';
import { fill, formatDate, formatNumber, language, type Partial2, useStrings } from '../../i18n/index.js';
import type { PageProps } from '../../registry.js';
import { BarChart } from './BarChart.js';
import { en, type Strings } from './strings/en.js';
import './analytics.css';

const loaders = import.meta.glob<{ default: Partial2<Strings> }>(['./strings/*.ts', '!./strings/en.ts']);
const RANGES = [7, 14, 30] as const;

interface Answers {
  answered: number;
  notSure: number;
  refused: number;
}
interface Day {
  date: string;
  conversations: number;
  messages: { total: number; visitor: number; ai: number; agent: number };
  answers: Answers;
  escalations: number;
  leads: number;
}
export interface Analytics {
  range: { from: string; to: string };
  conversations: number;
  messages: { total: number; visitor: number; ai: number; agent: number };
  answers: Answers;
  escalations: number;
  leads: number;
  unansweredQuestions: number;
  satisfaction: number | null;
  topSources: Array<{ documentId: string; title: string; url: string | null; citations: number }>;
  topQuestions: Array<{ question: string; count: number; answered: number }>;
  days: Day[];
}
interface Gap {
  question: string;
  answered: boolean;
}
interface Figures {
  analytics: Analytics;
  gaps: Array<{ question: string; count: number }>;
}

async function loadFigures(chatbotId: string, n: number): Promise<Figures> {
  // From the browser's midnight n - 1 days ago to now, as days of the browser's time zone.
  const from = new Date();
  from.setHours(0, 0, 0, 0);
  from.setDate(from.getDate() - (n - 1));
  const [analytics, gaps] = await Promise.all([
    get<{ analytics: Analytics }>(`/chatbots/${chatbotId}/analytics`, {
      query: {
        from: from.toISOString(),
        to: new Date().toISOString(),
        timezone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      },
    }).then((d) => d.analytics),
    listAll<Gap>(`/chatbots/${chatbotId}/knowledge-gaps`, 'knowledgeGaps', 500, { query: { answered: false } }).catch(
      () => [] as Gap[],
    ),
  ]);
  const counts = new Map<string, { question: string; count: number }>();
  for (const g of gaps) {
    // Counted as the API counts top questions.
    const key = normaliseQuestion(g.question);
    const c = counts.get(key) ?? { question: g.question.trim(), count: 0 };
    c.count++;
    counts.set(key, c);
  }
  return { analytics, gaps: [...counts.values()].sort((a, b) => b.count - a.count).slice(0, 5) };
}

export default function AnalyticsPage({ chatbotId }: PageProps) {
  const t = useStrings(en, loaders);
  const [days, setDays] = useState<(typeof RANGES)[number]>(7);
  const [figures, setFigures] = useState<Figures | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setFigures(null);
    setError(null);
    loadFigures(chatbotId!, days).then(setFigures, (e: unknown) =>
      setError(
        e instanceof ApiError && e.code === 'ANALYTICS_LOCKED'
          ? t.locked
          : fill(t.failed, { message: e instanceof Error ? e.message : String(e) }),
      ),
    );
  }, [chatbotId, days]);

  // A day is a calendar date: written at UTC so no time zone moves it.
  const dayLabel = (date: string) =>
    new Intl.DateTimeFormat(language.value, { month: 'short', day: 'numeric', timeZone: 'UTC' }).format(
      new Date(`${date}T00:00:00Z`),
    );
  const a = figures?.analytics;
  const rateOf = (x: { escalations: number; conversations: number }) =>
    x.conversations ? x.escalations / x.conversations : 0;
  const rate = a ? rateOf(a) : 0;
  const percent = (x: number) =>
    new Intl.NumberFormat(language.value, { style: 'percent', maximumFractionDigits: 1 }).format(x);

  return (
    <section class="analytics-page" aria-labelledby="analytics-title">
      <div class="row">
        <h1 id="analytics-title" class="grow">
          {t.title}
        </h1>
        <label class="field">
          <span>{t.period}</span>
          <select value={days} onChange={(e) => setDays(Number(e.currentTarget.value) as (typeof RANGES)[number])}>
            {RANGES.map((n) => (
              <option key={n} value={n}>
                {fill(t.lastDays, { count: n })}
              </option>
            ))}
          </select>
        </label>
      </div>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {!figures && !error && <p class="loading">{t.loading}</p>}
      {figures && a && (
        <>
          <p class="muted small">{fill(t.range, { from: formatDate(a.range.from), to: formatDate(a.range.to) })}</p>
          <dl class="tiles">
            <div class="card tile">
              <dt>{t.conversations}</dt>
              <dd data-figure="conversations">{formatNumber(a.conversations)}</dd>
            </div>
            <div class="card tile">
              <dt>{t.messages}</dt>
              <dd data-figure="messages">{formatNumber(a.messages.total)}</dd>
            </div>
            <div class="card tile">
              <dt>{t.escalationRate}</dt>
              <dd data-figure="escalation-rate">{percent(rate)}</dd>
              <dd class="sub muted small">{fill(t.escalations, { count: formatNumber(a.escalations) })}</dd>
            </div>
            <div class="card tile">
              <dt>{t.leads}</dt>
              <dd data-figure="leads">{formatNumber(a.leads)}</dd>
            </div>
          </dl>
          <div class="charts">
            <BarChart
              id="chart-conversations"
              title={t.conversationsPerDay}
              summary={fill(t.chartSummary, { total: formatNumber(a.conversations), days })}
              bars={a.days.map((d) => ({ label: dayLabel(d.date), values: [d.conversations] }))}
              series={[{ name: t.conversations, className: 'one' }]}
              tableLabel={t.showTable}
              dayColumn={t.day}
            />
            <BarChart
              id="chart-messages"
              title={t.messagesPerDay}
              summary={fill(t.chartSummary, { total: formatNumber(a.messages.total), days })}
              bars={a.days.map((d) => ({ label: dayLabel(d.date), values: [d.messages.total] }))}
              series={[{ name: t.messages, className: 'one' }]}
              tableLabel={t.showTable}
              dayColumn={t.day}
            />
            <BarChart
              id="chart-answers"
              title={t.answersPerDay}
              summary={fill(t.answersSummary, {
                answered: formatNumber(a.answers.answered),
                notSure: formatNumber(a.answers.notSure),
                refused: formatNumber(a.answers.refused),
              })}
              bars={a.days.map((d) => ({
                label: dayLabel(d.date),
                values: [d.answers.answered, d.answers.notSure, d.answers.refused],
              }))}
              series={[
                { name: t.answered, className: 'answered' },
                { name: t.notSure, className: 'not-sure' },
                { name: t.unanswered, className: 'unanswered' },
              ]}
              tableLabel={t.showTable}
              dayColumn={t.day}
            />
            <BarChart
              id="chart-escalation-rate"
              title={t.escalationRatePerDay}
              summary={fill(t.rateSummary, { rate: percent(rate), days })}
              bars={a.days.map((d) => ({ label: dayLabel(d.date), values: [rateOf(d)] }))}
              series={[{ name: t.escalationRate, className: 'one' }]}
              tableLabel={t.showTable}
              dayColumn={t.day}
              format={percent}
            />
          </div>
          <div class="card">
            <h2>{t.answeredHeading}</h2>
            <Split
              t={t}
              answers={a.answers}
              label={fill(t.answersSummary, {
                answered: formatNumber(a.answers.answered),
                notSure: formatNumber(a.answers.notSure),
                refused: formatNumber(a.answers.refused),
              })}
            />
          </div>
          <div class="lists">
            <div class="card">
              <h2 id="top-questions-title">{t.topQuestions}</h2>
              {a.topQuestions.length === 0 ? (
                <p class="muted">{t.noQuestions}</p>
              ) : (
                <ol class="ranked" aria-labelledby="top-questions-title">
                  {a.topQuestions.map((q) => (
                    <li key={q.question}>
                      <span class="grow">{q.question}</span>
                      <span class="muted">
                        {fill(t.askedAnswered, { count: formatNumber(q.count), answered: formatNumber(q.answered) })}
                      </span>
                    </li>
                  ))}
                </ol>
              )}
            </div>
            <div class="card">
              <h2>{t.topGaps}</h2>
              {figures.gaps.length === 0 ? (
                <p class="muted">{t.noGaps}</p>
              ) : (
                <ol class="ranked">
                  {figures.gaps.map((g) => (
                    <li key={g.question}>
                      <span class="grow">{g.question}</span>
                      <span class="muted">{fill(t.times, { count: formatNumber(g.count) })}</span>
                    </li>
                  ))}
                </ol>
              )}
            </div>
            <div class="card">
              <h2>{t.topSources}</h2>
              {a.topSources.length === 0 ? (
                <p class="muted">{t.noSources}</p>
              ) : (
                <ol class="ranked">
                  {a.topSources.slice(0, 5).map((s) => (
                    <li key={s.documentId}>
                      <span class="grow">{s.url ? <a href={s.url}>{s.title || s.url}</a> : s.title}</span>
                      <span class="muted">{fill(t.citations, { count: formatNumber(s.citations) })}</span>
                    </li>
                  ))}
                </ol>
              )}
            </div>
          </div>
        </>
      )}
    </section>
  );
}

function Split(props: { t: Strings; answers: Answers; label: string }) {
  const { answered, notSure, refused } = props.answers;
  const total = answered + notSure + refused;
  const parts = [
    { key: 'answered', name: props.t.answered, value: answered },
    { key: 'not-sure', name: props.t.notSure, value: notSure },
    { key: 'unanswered', name: props.t.unanswered, value: refused },
  ];
  let x = 0;
  return (
    <>
      <svg viewBox="0 0 100 8" class="split" role="img" aria-label={props.label} preserveAspectRatio="none">
        <rect x="0" y="0" width="100" height="8" class="split-rest" rx="2" />
        {total > 0 &&
          parts.map((p) => {
            const w = (p.value / total) * 100;
            x += w;
            return w > 0 ? <rect key={p.key} x={x - w} y="0" width={w} height="8" class={`split-${p.key}`} /> : null;
          })}
      </svg>
      <table class="chart-table split-table">
        <tbody>
          {parts.map((p) => (
            <tr key={p.key}>
              <th scope="row">
                <span class={`key ${p.key}`} aria-hidden="true" />
                {p.name}
              </th>
              <td data-figure={p.key}>{formatNumber(p.value)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
