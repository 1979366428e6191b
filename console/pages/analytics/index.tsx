/**
 * A chatbot's figures (GET /chatbots/{id}/analytics): totals over the chosen days, conversations
 * and messages per day (one call per day, as the API answers for a range), answered against
 * unanswered questions, the escalation rate, the most cited sources and the open knowledge gaps
 * asked most often (GET /knowledge-gaps).
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, get, listAll } from '../../api.js';
import { fill, formatDate, formatNumber, language, type Partial2, useStrings } from '../../i18n/index.js';
import type { PageProps } from '../../registry.js';
import { BarChart } from './BarChart.js';
import { en, type Strings } from './strings/en.js';
import './analytics.css';

const loaders = import.meta.glob<{ default: Partial2<Strings> }>(['./strings/*.ts', '!./strings/en.ts']);
const RANGES = [7, 14, 30] as const;

export interface Analytics {
  range: { from: string; to: string };
  conversations: number;
  messages: { total: number; visitor: number; ai: number; agent: number };
  escalations: number;
  leads: number;
  unansweredQuestions: number;
  satisfaction: number | null;
  topSources: Array<{ documentId: string; title: string; url: string | null; citations: number }>;
}
interface Gap {
  question: string;
  answered: boolean;
}
interface Figures {
  total: Analytics;
  days: Array<{ start: Date; figures: Analytics }>;
  gaps: Array<{ question: string; count: number }>;
}

/** Local midnights: the last `n` days, today included. */
function dayStarts(n: number): Date[] {
  const today = new Date();
  today.setHours(0, 0, 0, 0);
  return Array.from(
    { length: n },
    (_, i) => new Date(today.getFullYear(), today.getMonth(), today.getDate() - (n - 1 - i)),
  );
}

async function loadFigures(chatbotId: string, n: number): Promise<Figures> {
  const starts = dayStarts(n);
  const now = new Date();
  const at = (from: Date, to: Date) =>
    get<{ analytics: Analytics }>(`/chatbots/${chatbotId}/analytics`, {
      query: { from: from.toISOString(), to: to.toISOString() },
    }).then((d) => d.analytics);
  const [total, days, gaps] = await Promise.all([
    at(starts[0], now),
    Promise.all(starts.map((s, i) => at(s, starts[i + 1] ?? now).then((figures) => ({ start: s, figures })))),
    listAll<Gap>(`/chatbots/${chatbotId}/knowledge-gaps`, 'knowledgeGaps', 500, { query: { answered: false } }).catch(
      () => [] as Gap[],
    ),
  ]);
  const counts = new Map<string, { question: string; count: number }>();
  for (const g of gaps) {
    const key = g.question.trim().toLowerCase();
    const c = counts.get(key) ?? { question: g.question.trim(), count: 0 };
    c.count++;
    counts.set(key, c);
  }
  return { total, days, gaps: [...counts.values()].sort((a, b) => b.count - a.count).slice(0, 5) };
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

  const dayLabel = (d: Date) => new Intl.DateTimeFormat(language.value, { month: 'short', day: 'numeric' }).format(d);
  const a = figures?.total;
  const answered = a ? Math.max(0, a.messages.ai - a.unansweredQuestions) : 0;
  const rate = a && a.conversations ? a.escalations / a.conversations : 0;
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
              bars={figures.days.map((d) => ({ label: dayLabel(d.start), value: d.figures.conversations }))}
              tableLabel={t.showTable}
              column={t.conversations}
              dayColumn={t.day}
            />
            <BarChart
              id="chart-messages"
              title={t.messagesPerDay}
              summary={fill(t.chartSummary, { total: formatNumber(a.messages.total), days })}
              bars={figures.days.map((d) => ({ label: dayLabel(d.start), value: d.figures.messages.total }))}
              tableLabel={t.showTable}
              column={t.messages}
              dayColumn={t.day}
            />
          </div>
          <div class="card">
            <h2>{t.answeredHeading}</h2>
            <Split
              t={t}
              answered={answered}
              unanswered={a.unansweredQuestions}
              label={fill(t.answeredSummary, {
                answered: formatNumber(answered),
                unanswered: formatNumber(a.unansweredQuestions),
              })}
            />
          </div>
          <div class="lists">
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

function Split(props: { t: Strings; answered: number; unanswered: number; label: string }) {
  const total = props.answered + props.unanswered;
  const share = total ? props.answered / total : 0;
  return (
    <>
      <svg viewBox="0 0 100 8" class="split" role="img" aria-label={props.label} preserveAspectRatio="none">
        <rect x="0" y="0" width="100" height="8" class="split-rest" rx="2" />
        {total > 0 && <rect x="0" y="0" width={share * 100} height="8" class="split-part" rx="2" />}
      </svg>
      <table class="chart-table split-table">
        <tbody>
          <tr>
            <th scope="row">
              <span class="key answered" aria-hidden="true" />
              {props.t.answered}
            </th>
            <td data-figure="answered">{formatNumber(props.answered)}</td>
          </tr>
          <tr>
            <th scope="row">
              <span class="key unanswered" aria-hidden="true" />
              {props.t.unanswered}
            </th>
            <td data-figure="unanswered">{formatNumber(props.unanswered)}</td>
          </tr>
        </tbody>
      </table>
    </>
  );
}
